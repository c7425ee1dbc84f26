package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

var ctx = context.Background()

func TestDB_Append_ConcurrentWritersGetDenseUniqueIDs(t *testing.T) {
	l, db := logtest.MustOpenLog(t, nil)
	const writers, each = 16, 50
	ids := make(chan uint64, writers*each*2)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				batch := logtest.Lines(1+i%3, fmt.Sprintf("w%d-%d", w, i))
				if err := l.Append(ctx, batch); err != nil {
					t.Error(err)
					return
				}
				for j := 1; j < len(batch); j++ {
					if batch[j].ID != batch[j-1].ID+1 {
						t.Errorf("batch IDs not consecutive: %d then %d", batch[j-1].ID, batch[j].ID)
					}
				}
				for _, r := range batch {
					ids <- r.ID
				}
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[uint64]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("ID %d assigned twice", id)
		}
		seen[id] = true
	}
	s := db.Stats()
	if uint64(len(seen)) != s.Records || s.LastID != s.Records || s.FirstID != 1 {
		t.Fatalf("stats %+v after %d records", s, len(seen))
	}
	for id := uint64(1); id <= s.LastID; id++ {
		if !seen[id] {
			t.Fatalf("ID %d missing: IDs are not dense", id)
		}
	}
}

func TestDB_Reopen_KeepsRecordsAndStats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	l := oplog.New(db, nil)
	logtest.MustAppend(t, l, logtest.Lines(10, "a")...)
	op := logtest.MustAppend(t, l, oplog.Record{Tool: "run_lua", Arguments: json.RawMessage(`{"code":"return 1"}`)})
	before := db.Stats()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	db = logtest.MustOpenDBAt(t, path, nil)
	if after := db.Stats(); after != before {
		t.Fatalf("stats after reopen %+v, before %+v", after, before)
	}
	l = oplog.New(db, nil)
	got, err := l.Get(ctx, op[0].ID)
	if err != nil || got.Tool != "run_lua" || got.Status != oplog.StatusPending || string(got.Arguments) != `{"code":"return 1"}` {
		t.Fatalf("op after reopen: %+v, %v", got, err)
	}
	next := logtest.MustAppend(t, l, logtest.Lines(1, "b")...)
	if next[0].ID != before.LastID+1 {
		t.Fatalf("ID after reopen %d, want %d", next[0].ID, before.LastID+1)
	}
}

func TestDB_Open_Locked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	logtest.MustOpenDBAt(t, path, nil)
	start := time.Now()
	_, err := store.Open(path, &store.Options{Timeout: 200 * time.Millisecond})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second open: %v; want ErrLocked", err)
	}
	if !containsAll(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("second open took %s: it should fail fast", d)
	}
}

func TestLog_Append_BadRecordRejectsBatch(t *testing.T) {
	l, db := logtest.MustOpenLog(t, nil)
	batch := logtest.Lines(5, "x")
	batch[3].Level = 0
	err := l.Append(ctx, batch)
	be, ok := oplog.IsBatchError(err)
	if !ok || be.Index != 3 || oplog.ErrorCode(err) != oplog.EINVALID || !containsAll(err.Error(), "record 3", "level") {
		t.Fatalf("err = %v; want a batch error at index 3 naming level", err)
	}
	if n := db.Stats().Records; n != 0 {
		t.Fatalf("%d records written from a rejected batch", n)
	}
	for _, bad := range []oplog.Record{
		{Level: oplog.LevelInfo, Data: json.RawMessage(`[1]`)},
		{Level: oplog.LevelInfo, Data: json.RawMessage(`{bad`)},
		{Level: oplog.LevelInfo, Status: oplog.StatusSuccess},
		{Level: oplog.LevelInfo, Source: "a\nb"},
		{Level: oplog.LevelInfo, Time: time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Kind: oplog.KindOp},
	} {
		if err := l.Append(ctx, []oplog.Record{bad}); oplog.ErrorCode(err) != oplog.EINVALID {
			t.Errorf("Append(%+v) = %v; want EINVALID", bad, err)
		}
	}
}

func TestLog_Complete(t *testing.T) {
	l, db := logtest.MustOpenLog(t, nil)
	op := logtest.MustAppend(t, l, oplog.Record{Tool: "execute_code", Arguments: json.RawMessage(`{"code":"x"}`), Source: "unity"})[0]
	if op.Status != oplog.StatusPending || op.Name != "execute_code" || op.Text == "" || op.StartTime.IsZero() {
		t.Fatalf("started op %+v", op)
	}
	t.Run("OK", func(t *testing.T) {
		r, err := l.Complete(ctx, op.ID, oplog.Completion{Error: "boom"})
		if err != nil || r.Status != oplog.StatusError || r.Level != oplog.LevelError || r.Error != "boom" || r.EndTime.IsZero() {
			t.Fatalf("complete = %+v, %v", r, err)
		}
		got, _ := l.Get(ctx, op.ID)
		if !got.IsComplete() || got.Error != "boom" {
			t.Fatalf("stored %+v", got)
		}
		if n := db.Stats().Counts[oplog.KindOp][oplog.LevelError]; n != 1 {
			t.Fatalf("error ops counted %d, want 1", n)
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		_, err := l.Complete(ctx, op.ID, oplog.Completion{})
		if oplog.ErrorCode(err) != oplog.ECONFLICT {
			t.Fatalf("second complete: %v; want ECONFLICT", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := l.Complete(ctx, 999, oplog.Completion{})
		if oplog.ErrorCode(err) != oplog.ENOTFOUND {
			t.Fatalf("complete unknown: %v; want ENOTFOUND", err)
		}
	})
	t.Run("ErrInvalidLine", func(t *testing.T) {
		line := logtest.MustAppend(t, l, logtest.Lines(1, "l")...)[0]
		_, err := l.Complete(ctx, line.ID, oplog.Completion{})
		if oplog.ErrorCode(err) != oplog.EINVALID {
			t.Fatalf("complete a line: %v; want EINVALID", err)
		}
	})
	t.Run("OneShot", func(t *testing.T) {
		end := time.Now().UTC()
		r := logtest.MustAppend(t, l, oplog.Record{Tool: "query", Status: oplog.StatusTimeout, StartTime: end.Add(-time.Second), EndTime: end})[0]
		got, _ := l.Get(ctx, r.ID)
		if got.Status != oplog.StatusTimeout || !got.IsComplete() || got.Level != oplog.LevelError || !got.EndTime.Equal(end) {
			t.Fatalf("one-shot op stored as %+v", got)
		}
	})
}

// TestLog_Tail_PagingWhileWriting pages through 10,000 lines with sinceId
// while writers keep appending and checks each line arrives exactly once, in order.
func TestLog_Tail_PagingWhileWriting(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	const writers, perWriter, batch = 4, 2500, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i += batch {
				recs := make([]oplog.Record, batch)
				for j := range recs {
					recs[j] = oplog.Record{Level: oplog.LevelInfo, Source: fmt.Sprint("w", w), Text: fmt.Sprint(i + j)}
				}
				if err := l.Append(ctx, recs); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	next := make([]int, writers) // the next text expected from each writer
	var since, lastSeen uint64
	total := 0
	deadline := time.Now().Add(30 * time.Second)
	for total < writers*perWriter {
		if time.Now().After(deadline) {
			t.Fatalf("read only %d of %d lines", total, writers*perWriter)
		}
		tail, err := l.Tail(ctx, oplog.TailQuery{Filter: oplog.Filter{Kind: oplog.KindLine}, SinceID: since, HasSince: true, Limit: 137, Wait: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if tail.Reset || tail.Dropped != 0 {
			t.Fatalf("unexpected reset/dropped: %+v", tail)
		}
		for _, r := range tail.Lines {
			if r.ID <= lastSeen {
				t.Fatalf("line %d after %d: duplicate or out of order", r.ID, lastSeen)
			}
			lastSeen = r.ID
			var w int
			fmt.Sscanf(r.Source, "w%d", &w)
			if r.Text != fmt.Sprint(next[w]) {
				t.Fatalf("writer %d: got line %q, want %d (a line was missed)", w, r.Text, next[w])
			}
			next[w]++
			total++
		}
		if tail.LastID < since {
			t.Fatalf("lastId went back from %d to %d", since, tail.LastID)
		}
		since = tail.LastID
	}
	wg.Wait()
	tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: since, HasSince: true})
	if err != nil || len(tail.Lines) != 0 || tail.More {
		t.Fatalf("after reading everything: %+v, %v", tail, err)
	}
}

func TestLog_Tail_Newest(t *testing.T) {
	l, db := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, logtest.Lines(50, "a")...)
	logtest.MustAppend(t, l, oplog.Record{Tool: "ping"})
	tail, err := l.Tail(ctx, oplog.TailQuery{Filter: oplog.Filter{Kind: oplog.KindLine}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(tail.Lines) != 10 || tail.Lines[0].Text != "a-40" || tail.Lines[9].Text != "a-49" {
		t.Fatalf("newest 10 lines: %v", texts(tail.Lines))
	}
	if tail.LastID != db.Stats().LastID || tail.Revision != db.Stats().Revision || tail.Reset || tail.More {
		t.Fatalf("tail %+v; want lastId %d", tail, db.Stats().LastID)
	}
}

func TestLog_Tail_MoreAndLastIDWithFilter(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	recs := logtest.Lines(30, "x")
	for i := range recs {
		if i%3 == 0 {
			recs[i].Level = oplog.LevelError
		}
	}
	logtest.MustAppend(t, l, recs...)
	logtest.MustAppend(t, l, logtest.Lines(5, "tail")...) // no errors among the newest
	q := oplog.TailQuery{Filter: oplog.Filter{MinLevel: oplog.LevelError}, HasSince: true, Limit: 4}
	var got []string
	for range 10 {
		tail, err := l.Tail(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, texts(tail.Lines)...)
		q.SinceID = tail.LastID
		if !tail.More {
			if tail.LastID != 35 {
				t.Fatalf("final lastId %d; want 35: the filter's skipped lines count as read", tail.LastID)
			}
			break
		}
	}
	if len(got) != 10 || got[0] != "x-0" || got[9] != "x-27" {
		t.Fatalf("errors read: %v", got)
	}
}

func TestLog_Tail_Reset(t *testing.T) {
	l, db := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, logtest.Lines(5, "a")...)
	t.Run("PastNewest", func(t *testing.T) {
		tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: 1000, HasSince: true})
		if err != nil || !tail.Reset || len(tail.Lines) != 5 || tail.LastID != 5 {
			t.Fatalf("tail past newest: %+v, %v; want reset with every line", tail, err)
		}
	})
	t.Run("OtherRevision", func(t *testing.T) {
		tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: 3, HasSince: true, Revision: db.Stats().Revision + 2})
		if err != nil || !tail.Reset || len(tail.Lines) != 5 {
			t.Fatalf("tail of another generation: %+v, %v; want reset", tail, err)
		}
	})
	t.Run("SameRevision", func(t *testing.T) {
		tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: 3, HasSince: true, Revision: db.Stats().Revision})
		if err != nil || tail.Reset || len(tail.Lines) != 2 {
			t.Fatalf("tail: %+v, %v", tail, err)
		}
	})
}

func TestLog_Tail_WaitReturnsWhenLineArrives(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, logtest.Lines(3, "old")...)
	type result struct {
		tail oplog.Tail
		err  error
	}
	done := make(chan result, 1)
	waiting := l.Changed()
	go func() {
		tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: 3, HasSince: true, Wait: 20 * time.Second})
		done <- result{tail, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("tail returned before any new line: %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
	start := time.Now()
	logtest.MustAppend(t, l, logtest.Lines(1, "new")...)
	<-waiting
	select {
	case r := <-done:
		if r.err != nil || len(r.tail.Lines) != 1 || r.tail.Lines[0].Text != "new-0" {
			t.Fatalf("woken tail: %+v, %v", r.tail, r.err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("tail woke %s after the append", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("waiting tail did not return after a line arrived")
	}
}

func TestLog_Tail_WaitEnds(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	t.Run("Deadline", func(t *testing.T) {
		tail, err := l.Tail(ctx, oplog.TailQuery{HasSince: true, Wait: 30 * time.Millisecond})
		if err != nil || len(tail.Lines) != 0 {
			t.Fatalf("tail after its wait: %+v, %v; want an empty answer", tail, err)
		}
	})
	t.Run("Cancel", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := l.Tail(c, oplog.TailQuery{HasSince: true, Wait: time.Minute})
			done <- err
		}()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled tail: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("cancelled tail kept waiting")
		}
	})
}

func TestLog_Tail_FilterSkipsNonMatchingArrivalsWhileWaiting(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	done := make(chan oplog.Tail, 1)
	go func() {
		tail, err := l.Tail(ctx, oplog.TailQuery{Filter: oplog.Filter{Name: "physics"}, HasSince: true, Wait: 20 * time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- tail
	}()
	logtest.MustAppend(t, l, logtest.Lines(3, "noise")...)
	logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelWarn, Name: "physics", Text: "tunnelling"})
	select {
	case tail := <-done:
		if len(tail.Lines) != 1 || tail.Lines[0].Text != "tunnelling" || tail.LastID != 4 {
			t.Fatalf("filtered waiting tail: %+v", tail)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("filtered waiting tail did not return")
	}
}

func TestDB_Retention_ShowsAsDropped(t *testing.T) {
	l, db := logtest.MustOpenLog(t, &store.Options{MaxRecords: 100, TrimBatch: 30})
	for range 10 {
		logtest.MustAppend(t, l, logtest.Lines(100, "r")...)
	}
	logtest.Eventually(t, 10*time.Second, "retention to trim to 100 records", func() bool { return db.Stats().Records <= 100 })
	s := db.Stats()
	if s.Trimmed != 900 || s.TrimmedThrough != 900 || s.FirstID != 901 || s.Records != 100 {
		t.Fatalf("stats after retention %+v", s)
	}
	tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: 500, HasSince: true, Limit: 1000})
	if err != nil || tail.Dropped != 400 || len(tail.Lines) != 100 || tail.Lines[0].ID != 901 || tail.Reset {
		t.Fatalf("tail from 500: dropped %d, %d lines, first %v, err %v; want dropped 400", tail.Dropped, len(tail.Lines), tail.Lines[0].ID, err)
	}
	tail, _ = l.Tail(ctx, oplog.TailQuery{SinceID: 950, HasSince: true})
	if tail.Dropped != 0 || len(tail.Lines) != 50 {
		t.Fatalf("tail from 950: %+v", tail)
	}
	if _, err := l.Get(ctx, 10); oplog.ErrorCode(err) != oplog.ENOTFOUND || !containsAll(err.Error(), "retention") {
		t.Fatalf("get trimmed record: %v", err)
	}
}

func TestDB_Retention_ByBytesAndAge(t *testing.T) {
	t.Run("Bytes", func(t *testing.T) {
		l, db := logtest.MustOpenLog(t, &store.Options{MaxBytes: 10_000})
		for range 20 {
			logtest.MustAppend(t, l, logtest.Lines(50, "bytes")...)
		}
		logtest.Eventually(t, 10*time.Second, "retention by bytes", func() bool { return db.Stats().Bytes <= 10_000 })
		if s := db.Stats(); s.Records == 0 || s.Trimmed == 0 || s.Trimmed+s.Records != 1000 {
			t.Fatalf("stats %+v", s)
		}
	})
	t.Run("Age", func(t *testing.T) {
		var mu sync.Mutex
		now := time.Now()
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		l, db := logtest.MustOpenLog(t, &store.Options{MaxAge: time.Hour, RetentionInterval: 10 * time.Millisecond, Now: clock})
		old := logtest.Lines(10, "old")
		for i := range old {
			old[i].Time = now.Add(-2 * time.Hour)
		}
		logtest.MustAppend(t, l, old...)
		logtest.MustAppend(t, l, logtest.Lines(5, "new")...)
		logtest.Eventually(t, 10*time.Second, "retention by age", func() bool { return db.Stats().Records == 5 })
		mu.Lock()
		now = now.Add(3 * time.Hour)
		mu.Unlock()
		logtest.Eventually(t, 10*time.Second, "retention of everything", func() bool { return db.Stats().Records == 0 })
		if s := db.Stats(); s.FirstID != 0 || s.LastID != 15 || s.Trimmed != 15 {
			t.Fatalf("stats %+v", s)
		}
		next := logtest.MustAppend(t, l, logtest.Lines(1, "after")...)
		if next[0].ID != 16 {
			t.Fatalf("ID after trimming everything: %d; IDs must never be reused", next[0].ID)
		}
	})
}

func TestLog_List(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var recs []oplog.Record
	for i := range 40 {
		r := oplog.Record{Level: oplog.Levels[i%5], Name: fmt.Sprint("n", i%4), Source: fmt.Sprint("s", i%2),
			Text: fmt.Sprint(i), Time: base.Add(time.Duration(i) * time.Minute)}
		recs = append(recs, r)
	}
	recs = append(recs, oplog.Record{Tool: "run_lua", Time: base.Add(time.Hour)})
	logtest.MustAppend(t, l, recs...)
	for _, tc := range []struct {
		name      string
		q         oplog.Query
		want      []string
		wantTotal int64
		more      bool
	}{
		{"Newest", oplog.Query{Count: 3}, []string{"run_lua", "39", "38"}, 41, true},
		{"Offset", oplog.Query{Count: 2, Offset: 2}, []string{"38", "37"}, 41, true},
		{"Before", oplog.Query{Count: 2, Before: 39}, []string{"37", "36"}, 41, true},
		{"KindOp", oplog.Query{Filter: oplog.Filter{Kind: oplog.KindOp}}, []string{"run_lua"}, 1, false},
		{"LevelFatal", oplog.Query{Filter: oplog.Filter{MinLevel: oplog.LevelFatal, Kind: oplog.KindLine}, Count: 3}, []string{"39", "34", "29"}, 8, true},
		{"LevelError", oplog.Query{Filter: oplog.Filter{MinLevel: oplog.LevelError}, Count: 2}, []string{"39", "38"}, 16, true},
		{"NameSource", oplog.Query{Filter: oplog.Filter{Name: "n1", Source: "s1"}, Count: 3}, []string{"37", "33", "29"}, 10, true},
		{"SinceUntil", oplog.Query{Filter: oplog.Filter{Since: base.Add(10 * time.Minute), Until: base.Add(13 * time.Minute)}}, []string{"12", "11", "10"}, 3, false},
		{"NoMatch", oplog.Query{Filter: oplog.Filter{Name: "nope"}}, nil, 0, false},
		{"NameLevelKind", oplog.Query{Filter: oplog.Filter{Name: "run_lua", Kind: oplog.KindOp, MinLevel: oplog.LevelInfo}}, []string{"run_lua"}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := l.List(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := texts(p.Records)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || p.Total != tc.wantTotal || p.More != tc.more {
				t.Fatalf("got %v total %d more %v; want %v total %d more %v", got, p.Total, p.More, tc.want, tc.wantTotal, tc.more)
			}
		})
	}
	if _, err := l.List(ctx, oplog.Query{Count: -1}); oplog.ErrorCode(err) != oplog.EINVALID || !containsAll(err.Error(), "count") {
		t.Fatalf("negative count: %v", err)
	}
}

func texts(recs []oplog.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Text)
	}
	return out
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestDB_Names(t *testing.T) {
	l, db := logtest.MustOpenLog(t, &store.Options{MaxRecords: 6, TrimBatch: 100})
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	logtest.MustAppend(t, l,
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Player", Text: "a", Time: t0},
		oplog.Record{Level: oplog.LevelError, Source: "unity", Name: "Player", Text: "b", Time: t0.Add(time.Minute)},
		oplog.Record{Level: oplog.LevelWarn, Source: "tecs", Name: "Player", Text: "c", Time: t0.Add(2 * time.Minute)},
		oplog.Record{Tool: "run_lua", Source: "tecs", Time: t0.Add(3 * time.Minute)},
	)
	names, err := l.Names(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(len(names))
	for _, n := range names {
		got += fmt.Sprintf(" %s/%s:%d", n.Source, n.Name, n.Total)
	}
	if got != "3 tecs/Player:1 tecs/run_lua:1 unity/Player:2" {
		t.Fatalf("names: %s", got)
	}
	unity, _ := l.Names(ctx, "unity")
	if len(unity) != 1 || unity[0].Counts[oplog.KindLine][oplog.LevelError] != 1 || unity[0].Count(0, oplog.LevelWarn) != 1 ||
		!unity[0].FirstSeen.Equal(t0) || !unity[0].LastSeen.Equal(t0.Add(time.Minute)) {
		t.Fatalf("unity names: %+v", unity)
	}
	p, err := l.List(ctx, oplog.Query{Filter: oplog.Filter{Name: "Player", MinLevel: oplog.LevelWarn}})
	if err != nil || p.Total != 2 {
		t.Fatalf("total of Player at warn and above: %d, %v", p.Total, err)
	}
	// Completing the op moves its count to the error level.
	if _, err := l.Complete(ctx, 4, oplog.Completion{Error: "x"}); err != nil {
		t.Fatal(err)
	}
	tecs, _ := l.Names(ctx, "tecs")
	if tecs[1].Name != "run_lua" || tecs[1].Counts[oplog.KindOp][oplog.LevelError] != 1 || tecs[1].Counts[oplog.KindOp][oplog.LevelInfo] != 0 {
		t.Fatalf("run_lua after completion: %+v", tecs[1])
	}
	// Retention takes trimmed records out of the counts, and names with none left go.
	logtest.MustAppend(t, l, logtest.Lines(6, "new")...)
	logtest.Eventually(t, 10*time.Second, "retention", func() bool { return db.Stats().Records <= 6 })
	names, _ = l.Names(ctx, "")
	if len(names) != 1 || names[0].Name != "test" || names[0].Total != 6 {
		t.Fatalf("names after retention: %+v", names)
	}
}

func TestLog_Clear(t *testing.T) {
	l, db := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, logtest.Lines(10, "old")...)
	before := db.Stats()
	s, err := l.Clear(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Revision == before.Revision || s.Records != 0 || s.GenStart != 11 || s.LastID != 10 || db.Stats() != s {
		t.Fatalf("stats after clear %+v (before %+v)", s, before)
	}
	if names, _ := l.Names(ctx, ""); len(names) != 0 {
		t.Fatalf("names after clear: %+v", names)
	}
	if _, err := l.Get(ctx, 5); oplog.ErrorCode(err) != oplog.ENOTFOUND || !strings.Contains(err.Error(), "cleared") {
		t.Fatalf("get a cleared record: %v", err)
	}
	next := logtest.MustAppend(t, l, logtest.Lines(3, "new")...)
	if next[0].ID != 11 {
		t.Fatalf("first ID after clear %d, want 11: IDs never go back", next[0].ID)
	}
	tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: 10, HasSince: true, Revision: before.Revision})
	if err != nil || !tail.Reset || len(tail.Lines) != 3 || tail.Lines[0].Text != "new-0" || tail.Dropped != 0 {
		t.Fatalf("tail with the old revision: %+v, %v; want reset and the 3 new lines", tail, err)
	}
}

func TestLog_Neighbors(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, logtest.Lines(3, "n")...)
	for id, want := range map[uint64][2]uint64{1: {0, 2}, 2: {1, 3}, 3: {2, 0}} {
		prev, next, err := l.Neighbors(ctx, id)
		if err != nil || prev != want[0] || next != want[1] {
			t.Errorf("Neighbors(%d) = %d, %d, %v; want %v", id, prev, next, err, want)
		}
	}
	if _, _, err := l.Neighbors(ctx, 9); oplog.ErrorCode(err) != oplog.ENOTFOUND {
		t.Fatalf("Neighbors(9): %v", err)
	}
}

func TestLog_AwaitComplete(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	op := logtest.MustAppend(t, l, oplog.Record{Tool: "execute_code"})[0]
	done := make(chan oplog.Record, 1)
	go func() {
		r, err := l.AwaitComplete(ctx, op.ID)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	logtest.MustAppend(t, l, logtest.Lines(2, "noise")...) // wakes the waiter, which must keep waiting
	if _, err := l.Complete(ctx, op.ID, oplog.Completion{Result: []byte(`"Done"`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if !r.IsComplete() || string(r.Result) != `"Done"` {
			t.Fatalf("awaited %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("AwaitComplete did not return after the completion")
	}
	c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	pending := logtest.MustAppend(t, l, oplog.Record{Tool: "query"})[0]
	r, err := l.AwaitComplete(c, pending.ID)
	if !errors.Is(err, context.DeadlineExceeded) || r.ID != pending.ID || r.IsComplete() {
		t.Fatalf("AwaitComplete past its deadline: %+v, %v", r, err)
	}
}

func TestLog_Wait(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, logtest.Lines(2, "w")...)
	t.Run("AlreadyThere", func(t *testing.T) {
		if err := l.Wait(ctx, 1); err != nil {
			t.Fatalf("Wait(1) with record 2 stored: %v", err)
		}
	})
	t.Run("Arrives", func(t *testing.T) {
		done := make(chan error, 1)
		go func() { done <- l.Wait(ctx, 2) }()
		select {
		case err := <-done:
			t.Fatalf("Wait(2) returned %v before record 3 existed", err)
		case <-time.After(20 * time.Millisecond):
		}
		logtest.MustAppend(t, l, logtest.Lines(1, "x")...)
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Wait(2) after record 3: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Wait(2) did not return after record 3 arrived")
		}
	})
	t.Run("Deadline", func(t *testing.T) {
		c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if err := l.Wait(c, 100); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait past its deadline: %v", err)
		}
	})
	t.Run("Closed", func(t *testing.T) {
		done := make(chan error, 1)
		go func() { done <- l.Wait(ctx, 100) }()
		l.Close()
		select {
		case err := <-done:
			if !errors.Is(err, oplog.ErrClosed) {
				t.Fatalf("Wait across Close: %v; want ErrClosed", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Wait did not end at Close")
		}
	})
}
