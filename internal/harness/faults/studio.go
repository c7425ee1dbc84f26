package faults

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/vltest"
)

// ScenarioStudio: kill -9 of a `serve --studio` that forwards an 8-writer
// ingest to a real VictoriaLogs, at a random moment (0–1.5 s) once
// VictoriaLogs acknowledged rows of the round; then a last server forwards
// and reconciles the rest. Every acknowledged record must be in
// VictoriaLogs exactly once (by id and by seq) with its text.
func ScenarioStudio(e *Env) (Result, error) {
	r := Result{Scenario: "studio"}
	if e.VL == nil {
		r.Skipped = "victoria-logs not installed (scripts/need-victoria-logs)"
		return r, nil
	}
	v := e.VL()
	data := filepath.Join(e.Dir, "studio", "mcplogd-data")
	args := []string{"--studio", v.URL, "--project", "faults", "--machine", "m1", "--studio-settle", "2s"}
	a := newAcks()
	for round := range e.Rounds {
		s, err := e.Start(data, args...)
		if err != nil {
			return r, err
		}
		seq, _ := s.Metric("mcplogd_studio_rows_acknowledged_total")
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { e.Ingest(ctx, s, fmt.Sprintf("fault-studio r%d", round), a) })
		err = s.waitMetric(30*time.Second, "rows of this round acknowledged by VictoriaLogs", func(m func(string) float64) bool {
			return m("mcplogd_studio_rows_acknowledged_total") > seq
		})
		after := time.Duration(e.Rand.IntN(1500)) * time.Millisecond
		KillWhen(s, after, func() bool { return false })
		cancel()
		wg.Wait()
		if err != nil {
			return r, fmt.Errorf("round %d: %w", round, err)
		}
		r.Rounds = round + 1
		e.logf("studio round %d: killed %s after forwarding began; %d acknowledged so far", round, after, a.Len())
	}
	s, err := e.Start(data, args...)
	if err != nil {
		return r, err
	}
	err = s.waitMetric(5*time.Minute, "the last server to forward and reconcile everything", func(m func(string) float64) bool {
		acked := m("mcplogd_studio_rows_acknowledged_total")
		return m("mcplogd_studio_lag_records") == 0 && acked > 0 && m("mcplogd_studio_rows_reconciled") == acked
	})
	if stopErr := s.Stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		return r, err
	}
	return e.countStudio(r, v, data, a)
}

// countStudio compares what clients were told (a), the data file and the
// rows VictoriaLogs holds of the machine.
func (e *Env) countStudio(r Result, v *vltest.VL, data string, a *Acks) (Result, error) {
	recs, err := Records(data)
	if err != nil {
		return r, err
	}
	r.Lost, r.Dup = a.Verify(recs, "fault-studio", 0)
	if resp, err := http.Get(v.URL + "/internal/force_flush"); err != nil {
		return r, err
	} else {
		resp.Body.Close()
	}
	rows, err := v.TryQuery(context.Background(), `{project="faults",machine="m1"} | fields id, seq, _msg`)
	if err != nil {
		return r, err
	}
	byID, seqs := make(map[uint64]string, len(rows)), make(map[uint64]bool, len(rows))
	for _, row := range rows {
		id, err1 := strconv.ParseUint(row["id"], 10, 64)
		seq, err2 := strconv.ParseUint(row["seq"], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return r, fmt.Errorf("a row of VictoriaLogs: %v: %w", row, err)
		}
		if _, dup := byID[id]; dup || seqs[seq] {
			r.Dup++
		}
		byID[id], seqs[seq] = row["_msg"], true
	}
	a.mu.Lock()
	for id, want := range a.ids {
		if text, ok := byID[id]; !ok || text != want.text {
			r.Lost++
		}
	}
	a.mu.Unlock()
	missing := 0
	for _, rec := range recs {
		if _, ok := byID[rec.ID]; !ok {
			missing++
		}
	}
	r.Lost += missing
	r.Acked = a.Len()
	r.Note = fmt.Sprintf("%d records in log.db, %d rows in VictoriaLogs (each acknowledged record once, by id and by seq; %d stored records not forwarded)", len(recs), len(rows), missing)
	e.logf("studio: %s", r.Note)
	return r, nil
}

// Metric reads one sample without labels of GET /metrics; -1 when absent.
func (s *Server) Metric(name string) (float64, error) {
	req, _ := http.NewRequest(http.MethodGet, s.Base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return -1, sc.Err()
}

// waitMetric polls GET /metrics until cond holds of its samples, or max.
func (s *Server) waitMetric(max time.Duration, what string, cond func(m func(string) float64) bool) error {
	m := func(name string) float64 { v, _ := s.Metric(name); return v }
	for deadline := time.Now().Add(max); !cond(m); {
		if time.Now().After(deadline) {
			return fmt.Errorf("waited %s for %s\n%s", max, what, s.Stderr())
		}
		time.Sleep(50 * time.Millisecond) // polling a running process
	}
	return nil
}
