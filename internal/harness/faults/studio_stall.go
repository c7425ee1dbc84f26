package faults

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The studio's VictoriaLogs stalls or refuses with rows in flight, and
// must still hold every record exactly once afterwards, by a direct LogsQL
// count (what vmui, Grafana and other readers see).
//
//	stall       VictoriaLogs frozen (SIGSTOP) longer than the insert timeout
//	            and the settle time, with an insert in flight; then woken
//	stall+kill  the same, with mcplogd killed -9 and restarted during the freeze
//	429         VictoriaLogs answering 429 (full, over its limits) to inserts
//	            for a while, through a proxy
const (
	stallTimeout = 2 * time.Second // --studio-timeout of the scenarios
	stallSettle  = 2 * time.Second // --studio-settle
)

// ScenarioStudioStall: a freeze longer than the timeout plus the settle time.
func ScenarioStudioStall(e *Env) (Result, error) { return e.studioStall("studio stall", false) }

// ScenarioStudioStallKill: the freeze, and a kill -9 of mcplogd during it.
func ScenarioStudioStallKill(e *Env) (Result, error) { return e.studioStall("studio stall+kill", true) }

func (e *Env) studioStall(name string, kill bool) (Result, error) {
	r := Result{Scenario: name}
	if e.VL == nil {
		r.Skipped = "victoria-logs not installed (scripts/need-victoria-logs)"
		return r, nil
	}
	v := e.VL()
	data := filepath.Join(e.Dir, "studio-stall", "mcplogd-data")
	a := newAcks()
	for round := range e.Rounds {
		s, err := e.Start(data, stallArgs(v.URL)...)
		if err != nil {
			return r, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { e.Ingest(ctx, s, fmt.Sprintf("fault-studio stall r%d", round), a) })
		v.Front.Pause()
		frozen := time.Now()
		err = s.waitStderr(time.Minute, "studio: VictoriaLogs unreachable")
		cancel()
		wg.Wait()
		if err == nil && kill {
			s.Kill()
			s, err = e.Start(data, stallArgs(v.URL)...)
		}
		// Frozen for longer than a request may take and the settle time
		// after it: the stall the old forwarder sent everything twice after.
		for time.Since(frozen) < stallTimeout+stallSettle+time.Second && err == nil {
			time.Sleep(50 * time.Millisecond) // the fault's length, not a wait for a condition
		}
		v.Front.Resume()
		if err != nil {
			return r, fmt.Errorf("round %d: %w", round, err)
		}
		if err := s.reconciled(); err != nil {
			return r, fmt.Errorf("round %d: %w", round, err)
		}
		r.Rounds = round + 1
		e.logf("%s round %d: frozen %s%s; %d acknowledged so far", name, round, time.Since(frozen).Round(time.Millisecond),
			map[bool]string{true: ", mcplogd killed and restarted meanwhile"}[kill], a.Len())
	}
	return e.countStudio(r, v, data, a)
}

// ScenarioStudio429: VictoriaLogs answering 429 to inserts for a while.
func ScenarioStudio429(e *Env) (Result, error) {
	r := Result{Scenario: "studio 429"}
	if e.VL == nil {
		r.Skipped = "victoria-logs not installed (scripts/need-victoria-logs)"
		return r, nil
	}
	v := e.VL()
	target, _ := url.Parse(v.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var refusing atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if refusing.Load() && strings.HasPrefix(req.URL.Path, "/insert/") {
			http.Error(w, "cannot store rows: the disk is full", http.StatusTooManyRequests)
			return
		}
		proxy.ServeHTTP(w, req)
	}))
	defer front.Close()
	data := filepath.Join(e.Dir, "studio-429", "mcplogd-data")
	a := newAcks()
	for round := range e.Rounds {
		s, err := e.Start(data, stallArgs(front.URL)...)
		if err != nil {
			return r, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		refusing.Store(true)
		wg.Go(func() { e.Ingest(ctx, s, fmt.Sprintf("fault-studio 429 r%d", round), a) })
		err = s.waitStderr(time.Minute, "studio: VictoriaLogs refuses rows")
		cancel()
		wg.Wait()
		refusing.Store(false)
		if err == nil {
			err = s.reconciled()
		}
		if err != nil {
			return r, fmt.Errorf("round %d: %w", round, err)
		}
		r.Rounds = round + 1
		e.logf("studio 429 round %d: refused, then taken; %d acknowledged so far", round, a.Len())
	}
	return e.countStudio(r, v, data, a)
}

func stallArgs(url string) []string {
	return []string{"--studio", url, "--project", "faults", "--machine", "m1",
		"--studio-settle", stallSettle.String(), "--studio-timeout", stallTimeout.String()}
}

// reconciled waits until the server forwarded and reconciled everything,
// then stops it.
func (s *Server) reconciled() error {
	err := s.waitMetric(5*time.Minute, "the server to forward and reconcile everything", func(m func(string) float64) bool {
		acked := m("mcplogd_studio_rows_acknowledged_total")
		return m("mcplogd_studio_lag_records") == 0 && acked > 0 && m("mcplogd_studio_rows_reconciled") == acked
	})
	if stopErr := s.Stop(); err == nil {
		err = stopErr
	}
	return err
}

// waitStderr waits until the server's log says want.
func (s *Server) waitStderr(max time.Duration, want string) error {
	for deadline := time.Now().Add(max); !strings.Contains(s.Stderr(), want); {
		if time.Now().After(deadline) {
			return fmt.Errorf("waited %s for the server to log %q\n%s", max, want, s.Stderr())
		}
		time.Sleep(20 * time.Millisecond) // polling a running process's log
	}
	return nil
}
