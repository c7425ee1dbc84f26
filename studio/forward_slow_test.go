package studio_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/studio"
)

// slowFront passes requests to VictoriaLogs; while slow is set it answers
// an insert only after the client gave up waiting, so that VictoriaLogs
// stored the rows but the forwarder never heard so.
func slowFront(t *testing.T, vl string, slow *atomic.Bool) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequest(r.Method, vl+r.URL.RequestURI(), r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if slow.Load() && strings.HasPrefix(r.URL.Path, "/insert/") {
			<-r.Context().Done() // stored; the answer comes too late
			return
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestForward_AnswersLost: inserts VictoriaLogs stored but whose answers
// timed out are found by reconciliation and not sent again.
func TestForward_AnswersLost(t *testing.T) {
	v := vltest.Start(t)
	var slow atomic.Bool
	slow.Store(true)
	url := slowFront(t, v.URL, &slow)
	l, _ := logtest.MustOpenLog(t, nil)
	f, err := studio.Forward(l, studio.ForwardOptions{URL: url, Project: "game", Machine: "m1",
		StatePath: filepath.Join(t.TempDir(), "studio-forward.json"), Timeout: 300 * time.Millisecond,
		Settle: 2 * time.Second, MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Retention: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logtest.MustAppend(t, l, logtest.Lines(3000, "slow")...)
	logtest.Eventually(t, 30*time.Second, "an insert whose answer timed out", func() bool {
		s := f.Status()
		return s.Seq > 0 && s.LastError != "" && s.State == "unreachable"
	})
	slow.Store(false)
	s := caughtUp(t, f, l, 60*time.Second)
	if s.Resent != 0 {
		t.Errorf("resent %d rows that VictoriaLogs had stored", s.Resent)
	}
	exactlyOnce(t, v, l, "m1")
}
