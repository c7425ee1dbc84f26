package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// commits collects what OnCommit reports.
type commits struct {
	mu   sync.Mutex
	list []oplog.Commit
}

func (c *commits) add(x oplog.Commit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, x)
}

// sum adds up every commit reported so far.
func (c *commits) sum() (total oplog.Commit, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	total.Sources = map[string]uint64{}
	for _, x := range c.list {
		total.Appended += x.Appended
		total.Completed += x.Completed
		total.Took += x.Took
		for k := range x.Counts {
			for l := range x.Counts[k] {
				total.Counts[k][l] += x.Counts[k][l]
			}
		}
		for s, v := range x.Sources {
			total.Sources[s] += v
		}
	}
	return total, len(c.list)
}

func TestDB_OnCommit_ReportsWhatWasAppended(t *testing.T) {
	var got commits
	l, _ := logtest.MustOpenLog(t, &store.Options{OnCommit: got.add})

	logtest.MustAppend(t, l,
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Render", Text: "a"},
		oplog.Record{Level: oplog.LevelError, Source: "unity", Name: "Physics", Text: "b"},
		oplog.Record{Level: oplog.LevelWarn, Source: "godot", Name: "Render", Text: "c"},
	)
	op := logtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindOp, Source: "godot", Tool: "run_lua", Text: "run"})[0]
	// Reported before the append is acknowledged: nothing to wait for.
	c, n := got.sum()
	if n < 2 || c.Appended != 4 || c.Completed != 0 {
		t.Fatalf("after appends: %d commits, appended %d, completed %d; want >= 2, 4, 0", n, c.Appended, c.Completed)
	}
	if c.Counts[oplog.KindLine][oplog.LevelInfo] != 1 || c.Counts[oplog.KindLine][oplog.LevelError] != 1 ||
		c.Counts[oplog.KindLine][oplog.LevelWarn] != 1 || c.Counts[oplog.KindOp][op.Level] != 1 {
		t.Errorf("counts %v, want one line each of info, error, warn and one op at %v", c.Counts, op.Level)
	}
	if len(c.Sources) != 2 || c.Sources["unity"] != 2 || c.Sources["godot"] != 2 {
		t.Errorf("sources %v, want unity:2 godot:2", c.Sources)
	}
	if c.Took <= 0 {
		t.Errorf("took %v, want > 0", c.Took)
	}

	// A completion moves the op to another level: it is no append.
	if _, err := l.Complete(ctx, op.ID, oplog.Completion{Error: "boom"}); err != nil {
		t.Fatal(err)
	}
	c2, n2 := got.sum()
	if n2 != n+1 || c2.Appended != 4 || c2.Completed != 1 || c2.Counts != c.Counts || len(c2.Sources) != 2 || c2.Sources["godot"] != 2 {
		t.Errorf("after a completion: %d commits, %+v; want %d commits, the same appends and 1 completion", n2, c2, n+1)
	}
}

func TestDB_OnCommit_NotForRetention(t *testing.T) {
	var got commits
	l, db := logtest.MustOpenLog(t, &store.Options{OnCommit: got.add, MaxRecords: 5, TrimBatch: 2})
	logtest.MustAppend(t, l, logtest.Lines(20, "x")...)
	logtest.Eventually(t, 10*time.Second, "retention", func() bool { return db.Stats().Records <= 5 })
	c, n := got.sum()
	if n != 1 || c.Appended != 20 || c.Sources["default"] != 20 {
		t.Errorf("%d commits, %+v; want one commit of 20 records from source default", n, c)
	}
}
