package studio_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/logtest"
	"github.com/mcplogd/mcplogd/internal/vltest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/studio"
)

// TestForward_Refused: a VictoriaLogs that answers 429 (its disk full, or
// over its limits) is named as refusing, not unreachable; once it takes
// rows again every record is there once.
func TestForward_Refused(t *testing.T) {
	v := vltest.Start(t)
	target, _ := url.Parse(v.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var refusing atomic.Bool
	refusing.Store(true)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refusing.Load() && strings.HasPrefix(r.URL.Path, "/insert/") {
			http.Error(w, "cannot store rows: the disk is full", http.StatusTooManyRequests)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	l, _ := logtest.MustOpenLog(t, nil)
	f := forward(t, l, front.URL, "m1")
	logtest.MustAppend(t, l, logtest.Lines(1000, "refused")...)
	logtest.Eventually(t, 10*time.Second, "the forwarder to say VictoriaLogs refuses rows", func() bool {
		s := f.Status()
		return s.State == oplog.StudioRefusing && strings.Contains(s.LastError, "429") && strings.Contains(s.LastError, "refuses rows")
	})
	refusing.Store(false)
	if s := caughtUp(t, f, l, 60*time.Second); s.State != oplog.StudioUpToDate {
		t.Errorf("after VictoriaLogs took rows again: %+v", s)
	}
	exactlyOnce(t, v, l, "m1")
}

// TestForward_StallLongerThanTimeout: VictoriaLogs frozen with an insert
// in flight for longer than the request timeout and the settle time takes
// the insert when it wakes and makes it searchable a moment later; the
// settle time counts from when it answers again, so nothing is sent twice.
func TestForward_StallLongerThanTimeout(t *testing.T) {
	v := vltest.Start(t, "-inmemoryDataFlushInterval=5s") // searchable only after a while, as under load
	l, _ := logtest.MustOpenLog(t, nil)
	f, err := studio.Forward(l, studio.ForwardOptions{URL: v.URL, Project: "game", Machine: "m1",
		StatePath: filepath.Join(t.TempDir(), "studio-forward.json"), Settle: time.Second, Timeout: time.Second,
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	logtest.MustAppend(t, l, logtest.Lines(10, "before")...)
	caughtUp(t, f, l, 30*time.Second)
	v.Front.Pause()
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			v.Front.Resume()
		}
	})
	logtest.MustAppend(t, l, logtest.Lines(1000, "stalled")...)
	logtest.Eventually(t, 20*time.Second, "the insert to time out", func() bool {
		s := f.Status()
		return s.State == oplog.StudioUnreachable && s.LastError != ""
	})
	frozen := time.Now()
	for time.Since(frozen) < 3*time.Second {
		time.Sleep(50 * time.Millisecond) // the stall's length: longer than timeout and settle
	}
	v.Front.Resume()
	resumed = true
	s := caughtUp(t, f, l, 60*time.Second)
	if s.Resent != 0 {
		t.Errorf("%d rows sent again: VictoriaLogs had them all", s.Resent)
	}
	exactlyOnce(t, v, l, "m1")

}
