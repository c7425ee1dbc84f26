package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Acks is what a server acknowledged: each line's ID and unique text.
type Acks struct {
	mu      sync.Mutex
	ids     map[uint64]ack
	batches atomic.Int64
	failed  atomic.Int64 // posts answered with an error
}

// ack is what the data file must hold under an acknowledged ID.
type ack struct {
	text      string
	completed bool // an operation whose completion was acknowledged
}

func newAcks() *Acks { return &Acks{ids: map[uint64]ack{}} }

func (a *Acks) add(id uint64, text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ids[id] = ack{text: text}
}

// addCompleted records an acknowledged completion of operation id.
func (a *Acks) addCompleted(id uint64, text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ids[id] = ack{text: text, completed: true}
}

// Len is how many lines were acknowledged.
func (a *Acks) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.ids)
}

// wireLine is a line as POST /api/v1/logs takes it.
type wireLine struct {
	Level  string `json:"level"`
	Name   string `json:"name"`
	Source string `json:"source"`
	Text   string `json:"text"`
}

// Ingest posts batches of 1 to 40 lines from 8 writers to s until ctx ends
// or, for a writer, a post fails (the server died); every line's text is
// unique (tag, writer, batch, line). It returns once every writer stopped.
func (e *Env) Ingest(ctx context.Context, s *Server, tag string, a *Acks) {
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := 0; ctx.Err() == nil; b++ {
				n := 1 + (w*7+b)%40
				lines := make([]wireLine, n)
				for j := range lines {
					lines[j] = wireLine{Level: "info", Name: "fault", Source: fmt.Sprint("w", w),
						Text: fmt.Sprintf("%s w%d b%d l%d %s", tag, w, b, j, strings.Repeat("x", (b*j)%200))}
				}
				body, _ := json.Marshal(lines)
				var ans struct {
					IDs []uint64 `json:"ids"`
				}
				code, err := s.Post(ctx, "/api/v1/logs", body, &ans)
				if err != nil || len(ans.IDs) != n {
					a.failed.Add(1)
					if ctx.Err() != nil || code == 0 { // the server is gone
						return
					}
					continue
				}
				for j, id := range ans.IDs {
					a.add(id, lines[j].Text)
				}
				a.batches.Add(1)
			}
		}()
	}
	wg.Wait()
}

// KillWhen kills s once cond holds (checked every millisecond), or after
// max; it returns when s is dead.
func KillWhen(s *Server, max time.Duration, cond func() bool) {
	deadline := time.Now().Add(max)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // the kill point: a harness's clock, not a test's wait
	}
	s.Kill()
}

// Verify compares what was acknowledged with recs (the data file after the
// restart): an acknowledged line missing, or stored with another text, or
// an acknowledged completion whose operation is stored pending, is lost; a text (with the prefix) stored more than once is duplicated.
// Acknowledged IDs below first were trimmed by retention and not counted.
func (a *Acks) Verify(recs []oplog.Record, prefix string, first uint64) (lost, dup int) {
	byID := make(map[uint64]*oplog.Record, len(recs))
	seen := map[string]int{}
	for i, r := range recs {
		byID[r.ID] = &recs[i]
		if strings.HasPrefix(r.Text, prefix) {
			seen[r.Text]++
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, want := range a.ids {
		if id < first {
			continue
		}
		if got, ok := byID[id]; !ok || got.Text != want.text || want.completed && got.Status != oplog.StatusSuccess {
			lost++
		}
	}
	for _, n := range seen {
		dup += n - 1
	}
	return lost, dup
}
