package search_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// TestIndex_DamagedBlock: a sealed block of log.db with a flipped bit, met
// by the indexer building the index or by a search loading the hits the
// index found in it before, is read in part: the index catches up to the
// newest record, and the search finds every needle outside the runs of 64
// records whose checksums fail and names those runs.
func TestIndex_DamagedBlock(t *testing.T) {
	for _, c := range []struct {
		name         string
		indexedFirst bool
	}{{"WhileIndexing", false}, {"AfterIndexing", true}} {
		t.Run(c.name, func(t *testing.T) {
			path, blocks := logtest.MustSealedStore(t, 20_000)
			dir := filepath.Dir(path)
			if c.indexedFirst {
				e := mustOpen(t, dir, search.Options{}, nil)
				waitIndexedWithin(t, e.idx, e.db.Stats().LastID, time.Minute)
				e.close()
			}
			b := blocks[1]
			if err := logtest.FlipBit(path, b.At+b.Size/2, 1); err != nil {
				t.Fatal(err)
			}
			lost, err := logtest.LostRuns(path, b)
			if err != nil {
				t.Fatal(err)
			}
			inLost := func(id uint64) bool {
				for _, l := range lost {
					if id >= l[0] && id <= l[1] {
						return true
					}
				}
				return false
			}
			e := mustOpen(t, dir, search.Options{}, nil)
			waitIndexedWithin(t, e.idx, e.db.Stats().LastID, time.Minute)
			hits, damaged := searchAll(t, e.log, "needle")
			want := 0
			for id := uint64(1); id <= e.db.Stats().LastID; id++ {
				if (id-1)%7 == 0 && !inLost(id) {
					want++
				}
			}
			if hits != want || len(damaged) == 0 || damaged[0].From != lost[0][0] || damaged[0].To != lost[0][1] {
				t.Fatalf("%d hits naming %v; want %d (the needles outside the runs the block loses, %v), naming them", hits, damaged, want, lost)
			}
			if !strings.Contains(damaged[0].String(), "mcplogd salvage") {
				t.Fatalf("marker %q", damaged[0])
			}
		})
	}
}

// searchAll pages through the search for query and returns its hits and
// the damaged runs the pages named.
func searchAll(t *testing.T, l *oplog.Log, query string) (int, []oplog.Damaged) {
	t.Helper()
	q := oplog.SearchQuery{Query: query, Limit: 500}
	hits := 0
	var damaged []oplog.Damaged
	for {
		p, err := l.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		hits += len(p.Hits)
		damaged = append(damaged, p.Damaged...)
		if p.NextCursor == "" {
			return hits, damaged
		}
		q.Cursor = p.NextCursor
	}
}
