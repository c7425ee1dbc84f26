package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestMCP_ConsoleTail_CollapsedPollerAccountsForEveryRecord: an agent
// polling console_tail {format: json} with sinceId at the default collapse
// while eight writers append numbered repeats gets fewer entries than
// lines, because runs of one template are merged (repeat, id to lastId),
// not missed: the entries' repeats add up to every line appended, each
// line's ID in exactly one entry's range.
func TestMCP_ConsoleTail_CollapsedPollerAccountsForEveryRecord(t *testing.T) {
	h := mustServe(t, nil)
	m := mustConnect(t, h, nil)
	const writers, batches, batchSize = 8, 30, 10
	appended := make(chan []uint64, writers*batches)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				var body bytes.Buffer
				for i := range batchSize {
					fmt.Fprintf(&body, `{"level":"info","name":"Stream","text":"Chunk %d,%d streamed in %d ms"}`+"\n", w, b*batchSize+i, 3+i%5)
				}
				req, _ := http.NewRequest(http.MethodPost, h.URL+"/api/v1/logs", &body)
				req.Header.Set("Authorization", "Bearer "+testToken)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				var a struct{ IDs []uint64 }
				err = json.NewDecoder(res.Body).Decode(&a)
				res.Body.Close()
				if err != nil || res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated || len(a.IDs) != batchSize {
					t.Errorf("POST /api/v1/logs: %d, %v, %d IDs", res.StatusCode, err, len(a.IDs))
					return
				}
				appended <- a.IDs
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	type entry struct {
		ID     uint64 `json:"id"`
		Repeat int    `json:"repeat"`
		LastID uint64 `json:"lastId"`
	}
	seen := map[uint64]int{}
	var since uint64
	entries, lines, polls := 0, 0, 0
	deadline := time.Now().Add(2 * time.Minute)
	for finished := false; ; polls++ {
		select {
		case <-done:
			finished = true
		default:
		}
		a := call[struct {
			Lines  []entry `json:"lines"`
			LastID uint64  `json:"lastId"`
			More   bool    `json:"more"`
		}](t, m, "console_tail", map[string]any{"sinceId": since, "waitMs": 100})
		for _, e := range a.Lines {
			last, n := e.ID, 1
			if e.Repeat > 1 {
				last, n = e.LastID, e.Repeat
			}
			if int(last-e.ID)+1 != n {
				t.Fatalf("entry #%d repeat %d lastId %d: the range does not hold repeat lines", e.ID, e.Repeat, e.LastID)
			}
			for id := e.ID; id <= last; id++ {
				seen[id]++
			}
			entries, lines = entries+1, lines+n
		}
		since = a.LastID
		if finished && !a.More && len(a.Lines) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still polling after 2 minutes: %d lines seen", lines)
		}
	}
	close(appended)
	total := 0
	for ids := range appended {
		for _, id := range ids {
			total++
			if seen[id] != 1 {
				t.Errorf("line #%d was in %d entries, want 1", id, seen[id])
			}
		}
	}
	if lines != total || len(seen) != total {
		t.Errorf("the entries stand for %d lines (%d IDs), %d were appended", lines, len(seen), total)
	}
	if entries >= lines {
		t.Errorf("%d entries for %d lines: nothing was merged, so this test proves nothing of the collapse", entries, lines)
	}
	t.Logf("%d lines appended by %d writers, read in %d polls as %d entries (merged, none missed)", total, writers, polls, entries)
}
