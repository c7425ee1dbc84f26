package main

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serveAt starts bin serve on data at addr and waits for /healthz (a full
// disk has no room for server.json, which serveProc waits for).
func serveAt(t *testing.T, bin, data, addr string) *proc {
	t.Helper()
	p := startProc(t, bin, "serve", "--data", data, "--addr", addr)
	logtest.Eventually(t, 20*time.Second, "the server to answer /healthz", func() bool {
		select {
		case <-p.exited:
			t.Fatalf("serve exited: %s", p.stderr.String())
		default:
		}
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
	p.base, p.token = "http://"+addr, readToken(t, data)
	p.c = client.NewClient(p.base, p.token)
	return p
}

// TestServe_StartsOnAFullDisk: a server restarted while its disk is full
// starts, answers reads and searches, refuses appends with an error, and
// takes appends again (and indexes them) once there is room.
func TestServe_StartsOnAFullDisk(t *testing.T) {
	bin := buildBinary(t)
	disk := logtest.MountTmpfs(t, 16<<20)
	data := filepath.Join(disk, "data")
	p := serveProc(t, bin, data)
	ingestNeedles(t, p, 5000)
	p.stop(t)

	filler := logtest.FillDisk(t, disk)
	p = serveAt(t, bin, data, freeAddr(t))
	ctx := context.Background()
	if st, err := p.c.Stats(ctx); err != nil || st.Records != 5000 {
		t.Fatalf("stats on a full disk: %+v, %v", st, err)
	}
	if got := countNeedles(t, p); got != needles(5000) {
		t.Fatalf("search on a full disk: %d needles, want %d", got, needles(5000))
	}
	// The log may still have free pages inside it: append batches of
	// incompressible text (records are S2-compressed) until one meets
	// the full disk, which must be a 507, and never any other failure.
	full := false
	for i := 0; i < 100 && !full; i++ {
		var batch strings.Builder
		for range 200 {
			fmt.Fprintf(&batch, `{"level":"info","text":"no room %x"}`+"\n", randomBytes(t, 1000))
		}
		code, body := post(t, p.base+"/api/v1/logs", p.token, batch.String())
		switch {
		case code == http.StatusInsufficientStorage && strings.Contains(body, "no_space"):
			full = true
		case code != http.StatusOK:
			t.Fatalf("an append on a full disk answered %d (want 507, no_space): %.300s", code, body)
		}
	}
	if !full {
		t.Fatal("100 batches of 400 KB went into a full 16 MB disk")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	code, body := post(t, p.base+"/api/v1/logs", p.token, `{"level":"info","text":"room again, a needle"}`)
	if code != 200 {
		t.Fatalf("append once there is room: %d %s", code, body)
	}
	st, _ := p.c.Stats(ctx)
	waitIndexed(t, p, st.LastID)
	pg, err := p.c.Search(ctx, oplog.SearchQuery{Query: `"room again"`, Limit: 5})
	if err != nil || len(pg.Hits) != 1 {
		t.Fatalf("search for the new record: %+v, %v", pg, err)
	}
	p.stop(t)
	// By the search index ("disk full") or by the store's failed commit:
	// while a burst is written the indexer steps aside, and may not have
	// tried to write before there was room again.
	if out := p.stderr.String(); !strings.Contains(out, "disk full") && !strings.Contains(out, "no space left on device") {
		t.Errorf("the full disk was not logged:\n%s", out)
	}
}

// randomBytes returns n random bytes.
func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := crand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServe_FullDiskServerFound: a server restarted on another port while
// its disk is full is found by the CLI (server.json names its port, not
// the last run's), and a server started on a full disk without a
// server.json writes one once there is room.
func TestServe_FullDiskServerFound(t *testing.T) {
	bin := buildBinary(t)
	disk := logtest.MountTmpfs(t, 16<<20)
	data := filepath.Join(disk, "data")
	dir := &datadir.Dir{Path: data}
	p := serveProc(t, bin, data)
	old, _ := dir.Server()
	p.stop(t)

	logtest.FillDisk(t, disk)
	addr := freeAddr(t)
	p = serveAt(t, bin, data, addr)
	if s, err := dir.Server(); err != nil || s.Addr != addr || s.PID != p.cmd.Process.Pid {
		t.Fatalf("server.json on a full disk: %+v, %v; want %s (the last run's was %s)", s, err, addr, old.Addr)
	}
	if r := runningServer(t.Context(), dir, p.token); r == nil {
		t.Fatal("the CLI does not find the server restarted on a full disk")
	}
	p.stop(t)

	must(t, os.Remove(filepath.Join(data, "server.json")))
	filler := logtest.FillDisk(t, disk) // again: the file's page is free
	addr = freeAddr(t)
	p = serveAt(t, bin, data, addr)
	defer p.stop(t)
	if s, _ := dir.Server(); s.Addr != "" {
		t.Fatalf("server.json written on a full disk without one: %+v", s)
	}
	must(t, os.Remove(filler))
	logtest.Eventually(t, 20*time.Second, "server.json once there is room", func() bool {
		s, err := dir.Server()
		return err == nil && s.Addr == addr && s.PID == p.cmd.Process.Pid
	})
	if r := runningServer(t.Context(), dir, p.token); r == nil {
		t.Fatal("the CLI does not find the server once server.json is written")
	}
}
