package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// Ingest configurations: every writer count with every batch size.
var (
	ingestWriters = []int{1, 8, 64}
	ingestBatches = []int{1, 100, 1000}
)

// rawBatch is the transaction size of the raw bbolt baseline.
const rawBatch = 1000

// poolRecords is about how many records each writer cycles through. They are
// generated before the clock starts, so that an ingest figure is the log's
// and not the generator's.
const poolRecords = 2000

// ingestRun is one timed run of one configuration.
type ingestRun struct {
	records int
	elapsed time.Duration
	others  float64 // share of the CPUs other processes used meanwhile
}

func (r ingestRun) rate() float64 { return float64(r.records) / r.elapsed.Seconds() }

// ingestRow is one configuration's runs.
type ingestRow struct {
	name    string // how the table names it
	writers int
	batch   int
	runs    []ingestRun // sorted by rate
}

func (row *ingestRow) median() ingestRun { return row.runs[len(row.runs)/2] }

// ingestFunc is one timed run in a new folder.
type ingestFunc func(ctx context.Context, dir string) (ingestRun, error)

// measureRounds runs every configuration once per round, cfg.Runs rounds,
// so that a busy moment of a shared machine spreads over all of them rather
// than sinking one; then it sorts each row's runs by rate.
func (r *runner) measureRounds(ctx context.Context, rows []*ingestRow, fns []ingestFunc) error {
	for round := range r.cfg.Runs {
		for i, row := range rows {
			dir, remove, err := r.runDir(fmt.Sprintf("w%d-b%d", row.writers, row.batch))
			if err != nil {
				return err
			}
			runtime.GC()
			before := sampleCPU()
			run, err := fns[i](ctx, dir)
			run.others = othersShare(before, sampleCPU())
			remove()
			if err != nil {
				return fmt.Errorf("%s: %w", row.name, err)
			}
			row.runs = append(row.runs, run)
			r.progress("%s, run %d/%d: %d records in %.2fs, %.0f records/s; other processes used %.0f%% of the CPUs",
				row.name, round+1, r.cfg.Runs, run.records, run.elapsed.Seconds(), run.rate(), 100*run.others)
		}
	}
	for _, row := range rows {
		slices.SortFunc(row.runs, func(a, b ingestRun) int { return cmp.Compare(a.rate(), b.rate()) })
	}
	return nil
}

func (r *runner) measureIngest(ctx context.Context) error {
	r.raw = ingestRow{name: "raw bbolt", writers: 1, batch: rawBatch}
	// The baseline runs just before the configuration it is compared with.
	rows, fns := []*ingestRow{&r.raw}, []ingestFunc{r.ingestRaw}
	r.ingest = make([]ingestRow, 0, len(ingestWriters)*len(ingestBatches))
	for _, w := range ingestWriters {
		for _, b := range ingestBatches {
			r.ingest = append(r.ingest, ingestRow{name: fmt.Sprintf("%d writer(s) × batch %d", w, b), writers: w, batch: b})
			rows = append(rows, &r.ingest[len(r.ingest)-1])
			fns = append(fns, func(ctx context.Context, dir string) (ingestRun, error) {
				return r.ingestLog(ctx, dir, w, b)
			})
		}
	}
	// 1 writer × batch 1000 first, right after the baseline.
	for i, row := range rows {
		if i > 1 && row.writers == 1 && row.batch == rawBatch {
			rows[1], rows[i] = rows[i], rows[1]
			fns[1], fns[i] = fns[i], fns[1]
		}
	}
	return r.measureRounds(ctx, rows, fns)
}

// pools returns one pool of the workload per writer, each from its own seed,
// a whole number of batches long.
func (r *runner) pools(writers, batch int) [][]oplog.Record {
	pools := make([][]oplog.Record, writers)
	for w := range pools {
		pools[w] = make([]oplog.Record, batch*max(1, (poolRecords+batch-1)/batch))
		r.generator(r.cfg.Seed + int64(w)).Fill(pools[w])
	}
	return pools
}

// writeLoop runs writers goroutines that call write(w) for writer w's next
// batch of batch records until cfg.Records records were claimed (in whole
// batches), cfg.PerConfig is up or a write failed, and returns how many
// records were written and how long it took.
func (r *runner) writeLoop(ctx context.Context, writers, batch int, write func(w int) error) (ingestRun, error) {
	var (
		claimed, written atomic.Int64
		wg               sync.WaitGroup
		errOnce          sync.Once
		firstErr         error
		failed           atomic.Bool
	)
	limit := int64(r.cfg.Records)
	start := time.Now()
	deadline := start.Add(r.cfg.PerConfig)
	for w := range writers {
		wg.Go(func() {
			for !failed.Load() && ctx.Err() == nil && time.Now().Before(deadline) {
				if claimed.Add(int64(batch)) > limit {
					return
				}
				if err := write(w); err != nil {
					errOnce.Do(func() { firstErr = err })
					failed.Store(true)
					return
				}
				written.Add(int64(batch))
			}
		})
	}
	wg.Wait()
	run := ingestRun{records: int(written.Load()), elapsed: time.Since(start)}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr == nil && run.records == 0 {
		firstErr = errors.New("no record written")
	}
	return run, firstErr
}

// cycler hands each writer the next batch of its own pool, copied into a
// buffer of its own because appends normalise records in place.
type cycler struct {
	pools [][]oplog.Record
	bufs  [][]oplog.Record
	offs  []int
}

func newCycler(pools [][]oplog.Record, batch int) *cycler {
	c := &cycler{pools: pools, bufs: make([][]oplog.Record, len(pools)), offs: make([]int, len(pools))}
	for w := range c.bufs {
		c.bufs[w] = make([]oplog.Record, batch)
	}
	return c
}

// next returns writer w's next batch; only w's goroutine may call it.
func (c *cycler) next(w int) []oplog.Record {
	p, buf := c.pools[w], c.bufs[w]
	copy(buf, p[c.offs[w]:])
	c.offs[w] = (c.offs[w] + len(buf)) % len(p)
	return buf
}

// ingestLog appends through oplog.Log over a new store.DB: validation,
// normalisation, group commit and an fsync per commit, the path every
// writer takes.
func (r *runner) ingestLog(ctx context.Context, dir string, writers, batch int) (ingestRun, error) {
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		return ingestRun{}, err
	}
	l := oplog.New(db, nil)
	defer l.Close()
	c := newCycler(r.pools(writers, batch), batch)
	return r.writeLoop(ctx, writers, batch, func(w int) error {
		return l.Append(ctx, c.next(w))
	})
}

// ingestRaw is the baseline: one writer puts the same records, in the same
// encoding, under sequential keys in durable bbolt transactions of
// rawBatch, with the store's bbolt options and none of its work.
func (r *runner) ingestRaw(ctx context.Context, dir string) (ingestRun, error) {
	db, err := bbolt.Open(filepath.Join(dir, "raw.db"), 0o600, &bbolt.Options{FreelistType: bbolt.FreelistMapType})
	if err != nil {
		return ingestRun{}, err
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(codec.RecordsBucket)
		return err
	})
	if err != nil {
		return ingestRun{}, err
	}
	var id uint64
	c := newCycler(r.pools(1, rawBatch), rawBatch)
	return r.writeLoop(ctx, 1, rawBatch, func(w int) error {
		recs := c.next(w)
		return db.Update(func(tx *bbolt.Tx) error {
			b := tx.Bucket(codec.RecordsBucket)
			b.FillPercent = 1
			keys := make([]byte, 0, 8*len(recs))
			vals := make([]byte, 0, 320*len(recs))
			for i := range recs {
				id++
				keys = codec.AppendKey(keys, id)
				start := len(vals)
				vals = codec.Append(vals, &recs[i])
				if err := b.Put(keys[len(keys)-8:], vals[start:len(vals):len(vals)]); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
