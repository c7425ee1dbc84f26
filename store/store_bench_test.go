package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// benchFill is how many records the read benchmarks find in their store.
// `mcplogd bench` measures the same reads on 1,000,000.
const benchFill = 100_000

// pool returns at least n records of the workload, a whole number of
// batches, generated before the clock starts so that the ingest benchmarks
// measure the log rather than the generator.
func pool(seed int64, batch, n int) []oplog.Record {
	recs := make([]oplog.Record, batch*max(1, (n+batch-1)/batch))
	workload.New(seed).Fill(recs)
	return recs
}

func avgPayload(recs []oplog.Record) int64 {
	var n int64
	for i := range recs {
		n += int64(workload.Payload(&recs[i]))
	}
	return n / int64(len(recs))
}

// BenchmarkAppend measures durable appends through oplog.Log from
// concurrent writers, each appending batches of its own records. One op is
// one record.
func BenchmarkAppend(b *testing.B) {
	for _, writers := range []int{1, 8, 64} {
		for _, batch := range []int{1, 100, 1000} {
			b.Run(fmt.Sprintf("writers=%d/batch=%d", writers, batch), func(b *testing.B) {
				benchAppend(b, writers, batch)
			})
		}
	}
}

func benchAppend(b *testing.B, writers, batch int) {
	l, _ := logtest.MustOpenLog(b, nil)
	pools := make([][]oplog.Record, writers)
	for w := range pools {
		pools[w] = pool(int64(w+1), batch, 2000)
	}
	b.SetBytes(avgPayload(pools[0]))
	b.ReportAllocs()
	ctx := context.Background()
	var claimed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := range writers {
		wg.Go(func() {
			p, buf, off := pools[w], make([]oplog.Record, batch), 0
			for {
				n := int(claimed.Add(int64(batch))) - batch
				if n >= b.N {
					return
				}
				k := min(batch, b.N-n)
				// Append normalises in place; a copy keeps the pool as generated.
				copy(buf, p[off:off+k])
				off = (off + batch) % len(p)
				if err := l.Append(ctx, buf[:k]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRawBbolt is the baseline for BenchmarkAppend: the same records in
// the same encoding, appended under sequential keys in durable bbolt
// transactions of 1,000, with the store's bbolt options and none of its
// work (validation, group commit, counters). One op is one record.
func BenchmarkRawBbolt(b *testing.B) {
	const batch = 1000
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, &bbolt.Options{FreelistType: bbolt.FreelistMapType})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	recs := pool(1, batch, 2000)
	b.SetBytes(avgPayload(recs))
	b.ReportAllocs()
	b.ResetTimer()
	var id uint64
	for n := 0; n < b.N; n += batch {
		off := n % len(recs)
		chunk := recs[off : off+min(batch, b.N-n)]
		err := db.Update(func(tx *bbolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists(codec.RecordsBucket)
			if err != nil {
				return err
			}
			bk.FillPercent = 1
			keys := make([]byte, 0, 8*len(chunk))
			vals := make([]byte, 0, 300*len(chunk))
			for i := range chunk {
				id++
				keys = codec.AppendKey(keys, id)
				start := len(vals)
				vals = codec.Append(vals, &chunk[i])
				if err := bk.Put(keys[len(keys)-8:], vals[start:]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// fill appends the first n records of the workload in batches of 10,000.
func fill(b *testing.B, l *oplog.Log, n int) {
	b.Helper()
	g := workload.New(1)
	batch := make([]oplog.Record, 10_000)
	for done := 0; done < n; done += len(batch) {
		recs := batch[:min(len(batch), n-done)]
		g.Fill(recs)
		if err := l.Append(context.Background(), recs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTail reads the 200 records after a sinceId near the end of a
// store of benchFill records, as a console poller that fell a little behind.
func BenchmarkTail(b *testing.B) {
	l, _ := logtest.MustOpenLog(b, nil)
	fill(b, l, benchFill)
	last := l.Stats().LastID
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		since := last - 200 - rng.Uint64N(10_000)
		t, err := l.Tail(ctx, oplog.TailQuery{SinceID: since, HasSince: true, Limit: 200})
		if err != nil {
			b.Fatal(err)
		}
		if len(t.Lines) != 200 || t.Lines[0].ID != since+1 {
			b.Fatalf("tail after %d: %d lines from %d", since, len(t.Lines), t.Lines[0].ID)
		}
	}
}

// BenchmarkListNewest lists the newest records of a store of benchFill
// records, as get_logs does with its default count and a large one.
func BenchmarkListNewest(b *testing.B) {
	l, _ := logtest.MustOpenLog(b, nil)
	fill(b, l, benchFill)
	ctx := context.Background()
	for _, count := range []int{10, 200} {
		b.Run(fmt.Sprintf("count=%d", count), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := l.List(ctx, oplog.Query{Count: count})
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Records) != count {
					b.Fatalf("listed %d records, want %d", len(p.Records), count)
				}
			}
		})
	}
}

// BenchmarkReopen opens a store of benchFill records and reads its counters,
// what a restart costs before the first request can be answered.
func BenchmarkReopen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(b, path, nil)
	l := oplog.New(db, nil)
	fill(b, l, benchFill)
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		db, err := store.Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		if s := db.Stats(); s.Records != benchFill {
			b.Fatalf("reopened with %d records, want %d", s.Records, benchFill)
		}
		b.StopTimer()
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkGetMany loads 50 records by ID from a store of benchFill
// records, as a search loads its page of hits: the newest 50, 50 spread
// over the newest 50,000 (a query matching 0.1% of the records), and 50
// spread over the whole store (a rare one). Sealed records are read by
// expanding their block, so how far apart the hits are is what costs.
func BenchmarkGetMany(b *testing.B) {
	l, db := logtest.MustOpenLog(b, nil)
	fill(b, l, benchFill)
	last := l.Stats().LastID
	for _, span := range []uint64{50, 50_000, benchFill} {
		ids := make([]uint64, 50)
		for i := range ids {
			ids[i] = last - uint64(i)*(span/50)
		}
		b.Run(fmt.Sprintf("span=%d", span), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				recs, err := db.GetMany(ids)
				if err != nil || len(recs) != len(ids) {
					b.Fatalf("GetMany: %d records, %v", len(recs), err)
				}
			}
		})
	}
}

// BenchmarkAppendRunStarts measures appending a run's start (a run
// marker, as an imported Luanti debug.txt has one a session) into a
// source that already has some runs, beside the baseline of an info line
// appended there: a run start must not cost more as runs accumulate. One
// op is one record, appended alone in a batch of 100.
func BenchmarkAppendRunStarts(b *testing.B) {
	for _, runs := range []int{10, 10_000} {
		for _, kind := range []string{"line", "runStart"} {
			b.Run(fmt.Sprintf("runs=%d/%s", runs, kind), func(b *testing.B) {
				l, _ := logtest.MustOpenLog(b, nil)
				ctx := context.Background()
				batch := make([]oplog.Record, 100)
				mk := func(i int, kind string) oplog.Record {
					if kind == "line" {
						return oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: fmt.Sprintf("line %d", i)}
					}
					return oplog.Record{Source: "game", Kind: oplog.KindMarker, Name: oplog.MarkerRun, Text: fmt.Sprintf("session %d", i)}
				}
				for i := 0; i < runs; i += len(batch) {
					for j := range batch {
						batch[j] = mk(i+j, "runStart")
					}
					if err := l.Append(ctx, batch[:min(len(batch), runs-i)]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				for n := 0; n < b.N; n += len(batch) {
					k := min(len(batch), b.N-n)
					for j := range k {
						batch[j] = mk(n+j, kind)
					}
					if err := l.Append(ctx, batch[:k]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
