package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// needles is how many of n lines that prepare writes say "needle".
func needles(n int) int { return (n + 6) / 7 }

// prepare makes a data directory (a copy of a cached one) holding n lines,
// every 7th a needle, with its search index built.
func (e *Env) prepare(name string, n int) (string, error) {
	cache := filepath.Join(e.Dir, fmt.Sprintf("prepared-%d", n))
	if _, err := Records(cache); err != nil {
		s, err := e.Start(cache)
		if err != nil {
			return "", err
		}
		for i := 0; i < n; i += 1000 {
			lines := make([]wireLine, 0, 1000)
			for k := i; k < min(i+1000, n); k++ {
				text := fmt.Sprintf("frame %d rendered", k)
				if k%7 == 0 {
					text = fmt.Sprintf("found the needle %d", k)
				}
				lines = append(lines, wireLine{Level: "info", Name: "Render", Source: "game", Text: text})
			}
			body, _ := json.Marshal(lines)
			if _, err := s.Post(context.Background(), "/api/v1/logs", body, nil); err != nil {
				s.Kill()
				return "", err
			}
		}
		if err := waitIndexed(s, uint64(n)); err != nil {
			s.Kill()
			return "", err
		}
		if err := s.Stop(); err != nil {
			return "", err
		}
	}
	data := filepath.Join(e.Dir, name)
	if out, err := exec.Command("cp", "-a", cache, data).CombinedOutput(); err != nil {
		return "", fmt.Errorf("cp: %v %s", err, out)
	}
	return data, nil
}

// waitIndexed waits until s's search index holds every ID up to through.
func waitIndexed(s *Server, through uint64) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		pg, err := s.C.Search(context.Background(), oplog.SearchQuery{Query: "needle", Limit: 1})
		if err == nil && pg.IndexedThrough >= through {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the index did not reach %d within 3 minutes (%v)", through, err)
		}
		time.Sleep(50 * time.Millisecond) // polling the server's indexer
	}
}

// countNeedles pages through the search for "needle" and returns the hits
// and how many IDs came twice.
func countNeedles(s *Server) (hits, dup int, err error) {
	q := oplog.SearchQuery{Query: "needle", Limit: 500}
	seen := map[uint64]bool{}
	for {
		pg, err := s.C.Search(context.Background(), q)
		if err != nil {
			return hits, dup, err
		}
		for _, h := range pg.Hits {
			if !strings.HasPrefix(h.Record.Text, "found the needle") {
				return hits, dup, fmt.Errorf("search needle answered %q", h.Record.Text)
			}
			if seen[h.Record.ID] {
				dup++
			}
			seen[h.Record.ID] = true
			hits++
		}
		if pg.NextCursor == "" {
			return hits, dup, nil
		}
		q.Cursor = pg.NextCursor
	}
}
