package studio_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
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
	if doubled, s := stall(t); doubled != 0 || s.Resent != 0 {
		t.Errorf("%d rows held twice, %d sent again: VictoriaLogs had them all", doubled, s.Resent)
	}
}

// TestForward_StallUnderLoad is the stall twice beside four busy CPU
// loops: a VictoriaLogs that wakes slowly still takes its frozen batch
// before the forwarder looks for it, and no row is held twice. (Before the
// settle time counted from VictoriaLogs' answer, the ping that waited
// through the freeze dated it from its sending, so the rows were looked for
// the moment VictoriaLogs woke: 1,000 of 1,100 rows twice in every run.)
func TestForward_StallUnderLoad(t *testing.T) {
	defer busyLoops(4)()
	doubled, resent := 0, uint64(0)
	for i := range 2 { // (the loops slow the tests of every package beside it)
		t.Run(fmt.Sprint("run", i+1), func(t *testing.T) {
			d, s := stall(t)
			t.Logf("run %d: %d of %d rows held twice, %d sent again", i+1, d, s.Seq, s.Resent)
			doubled, resent = doubled+d, resent+s.Resent
		})
	}
	if doubled != 0 || resent != 0 {
		t.Errorf("over 2 stalls under load: %d rows held twice, %d sent again; want 0", doubled, resent)
	}
}

// busyLoops spins n goroutines, each on a processor of its own (GOMAXPROCS
// raised by n), until the returned function is called.
func busyLoops(n int) (stop func()) {
	prev := runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + n)
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !done.Load() {
				x++
			}
			_ = x
		}()
	}
	return func() {
		done.Store(true)
		wg.Wait()
		runtime.GOMAXPROCS(prev)
	}
}

// stall forwards 100 records, freezes VictoriaLogs (SIGSTOP), appends 1,000
// more, whose insert times out, keeps it frozen until the ping sent after
// the timeout has waited longer than the settle time, and wakes it. Once
// every record is reconciled it returns how many rows VictoriaLogs holds
// twice (rows less distinct seqs) and the forwarder's status.
func stall(t *testing.T) (int, oplog.StudioStatus) {
	v := vltest.Start(t, "-inmemoryDataFlushInterval=5s") // searchable only after a while, as under load
	l, _ := logtest.MustOpenLog(t, nil)
	f, err := studio.Forward(l, studio.ForwardOptions{URL: v.URL, Project: "game", Machine: "m1",
		StatePath: filepath.Join(t.TempDir(), "studio-forward.json"), Settle: time.Second, Timeout: 3 * time.Second,
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	logtest.MustAppend(t, l, logtest.Lines(100, "before")...)
	caughtUp(t, f, l, 30*time.Second)
	v.Front.Pause()
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			v.Front.Resume()
		}
	})
	logtest.MustAppend(t, l, logtest.Lines(1000, "stalled")...)
	logtest.Eventually(t, 30*time.Second, "the insert to time out", func() bool {
		s := f.Status()
		return s.State == oplog.StudioUnreachable && s.LastError != ""
	})
	frozen := time.Now()
	for time.Since(frozen) < 2*time.Second {
		time.Sleep(50 * time.Millisecond) // the stall's length: longer than the settle time, shorter than a ping's timeout
	}
	v.Front.Resume()
	resumed = true
	s := caughtUp(t, f, l, 60*time.Second)
	got := rows(t, v, "m1")
	seqs := map[string]bool{}
	for _, r := range got {
		seqs[r["seq"]] = true
	}
	if s.Resent == 0 && len(got) == len(seqs) {
		exactlyOnce(t, v, l, "m1")
	}
	return len(got) - len(seqs), s
}
