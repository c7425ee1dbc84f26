package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// A data directory damaged on disk, with the real binary: a damaged sets
// file of the index, and a damaged, empty or missing log.db.

// proc is a serve process.
type proc struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed once it exited; then waitErr is set
	waitErr error
	stderr  *syncBuffer
	c       *client.Client
	base    string
	token   string
}

// serveProc starts bin serve on data and waits for it to listen.
func serveProc(t *testing.T, bin, data string) *proc {
	t.Helper()
	p := startProc(t, bin, "serve", "--data", data, "--addr", "127.0.0.1:0")
	dir := &datadir.Dir{Path: data}
	logtest.Eventually(t, 20*time.Second, "the server to listen", func() bool {
		s, _ := dir.Server()
		return s.PID == p.cmd.Process.Pid
	})
	s, _ := dir.Server()
	p.base, p.token = s.BaseURL(), readToken(t, data)
	p.c = client.NewClient(p.base, p.token)
	return p
}

// startProc starts bin with args; the test's cleanup kills it.
func startProc(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.waitErr = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.exited })
	return p
}

func (p *proc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.exited
	if p.waitErr != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", p.waitErr, p.stderr.String())
	}
}

// refused runs bin serve on data and returns its output once it exits 1.
func refused(t *testing.T, bin, data string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "serve", "--data", data, "--addr", "127.0.0.1:0").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("serve on a damaged directory: %v, want exit status 1\n%s", err, out)
	}
	for _, trace := range []string{"goroutine ", "panic:", "fatal error", "SIGBUS", "SIGSEGV"} {
		if strings.Contains(string(out), trace) {
			t.Fatalf("serve crashed (%q) instead of refusing:\n%s", trace, out)
		}
	}
	return string(out)
}

// needles is how many of n records ingested by ingestNeedles say "needle".
func needles(n int) int { return (n + 6) / 7 }

// ingestNeedles posts n lines, every 7th a needle, and waits until the
// search index holds them all.
func ingestNeedles(t *testing.T, p *proc, n int) {
	t.Helper()
	for i := 0; i < n; i += 1000 {
		var b strings.Builder
		for k := i; k < min(i+1000, n); k++ {
			text := fmt.Sprintf("frame %d rendered", k)
			if k%7 == 0 {
				text = fmt.Sprintf("found the needle %d", k)
			}
			fmt.Fprintf(&b, `{"level":"info","name":"Render","text":%q}`+"\n", text)
		}
		code, body := post(t, p.base+"/api/v1/logs", p.token, b.String())
		if code != 200 {
			t.Fatalf("ingest: %d %s", code, body)
		}
	}
	waitIndexed(t, p, uint64(n))
}

func waitIndexed(t *testing.T, p *proc, through uint64) {
	t.Helper()
	logtest.Eventually(t, 60*time.Second, "the index to catch up", func() bool {
		pg, err := p.c.Search(context.Background(), oplog.SearchQuery{Query: "needle", Limit: 1})
		return err == nil && pg.IndexedThrough >= through
	})
}

// countNeedles pages through the search for needle and returns the hits.
func countNeedles(t *testing.T, p *proc) int {
	t.Helper()
	q := oplog.SearchQuery{Query: "needle", Limit: 500}
	n := 0
	for {
		pg, err := p.c.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("search: %v\n%s", err, p.stderr.String())
		}
		for _, h := range pg.Hits {
			if !strings.HasPrefix(h.Record.Text, "found the needle") {
				t.Fatalf("search needle answered %q", h.Record.Text)
			}
		}
		n += len(pg.Hits)
		if pg.NextCursor == "" {
			return n
		}
		q.Cursor = pg.NextCursor
	}
}

// copyTree copies the directory src to a new one and returns it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

func garbleFile(t *testing.T, r *rand.Rand, path string, pages int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	for _, pg := range r.Perm(int(fi.Size()/4096) - 2)[:pages] {
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if _, err := f.WriteAt(b, int64(pg+2)*4096); err != nil {
			t.Fatal(err)
		}
	}
}

// garbleRoot garbles the root bucket's page of the newest meta page.
func garbleRoot(t *testing.T, r *rand.Rand, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 2*4096 {
		t.Fatalf("read %s: %v (%d bytes)", path, err, len(b))
	}
	meta := b[:4096]
	if le := binary.LittleEndian; le.Uint64(b[4096+64:]) > le.Uint64(meta[64:]) { // txid
		meta = b[4096:]
	}
	root := int64(binary.LittleEndian.Uint64(meta[32:]))
	if root < 2 || (root+1)*4096 > int64(len(b)) {
		t.Fatalf("root page %d in a file of %d bytes", root, len(b))
	}
	for i := range int64(4096) {
		b[root*4096+i] = byte(r.Uint32())
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDamagedDataDir_Process(t *testing.T) {
	bin := buildBinary(t)
	const n = 20_000
	data := filepath.Join(t.TempDir(), "data")
	p := serveProc(t, bin, data)
	ingestNeedles(t, p, n)
	p.stop(t)

	t.Run("the sets file damaged: rebuilt, searches exact", func(t *testing.T) {
		d := copyTree(t, data)
		zaps, _ := filepath.Glob(filepath.Join(d, "index", "sets"))
		if len(zaps) == 0 {
			t.Fatal("no sets file")
		}
		for _, z := range zaps {
			f, _ := os.OpenFile(z, os.O_RDWR, 0)
			fi, _ := f.Stat()
			b := make([]byte, 64)
			for i := range b {
				b[i] = byte(rand.Uint32())
			}
			_, _ = f.WriteAt(b, fi.Size()/2)
			f.Close()
		}
		p := serveProc(t, bin, d)
		if got := countNeedles(t, p); got != needles(n) {
			t.Fatalf("%d needles found, want %d", got, needles(n))
		}
		waitIndexed(t, p, n)
		if got := countNeedles(t, p); got != needles(n) {
			t.Fatalf("after the rebuild %d needles found, want %d", got, needles(n))
		}
		if !strings.Contains(p.stderr.String(), "rebuild") {
			t.Errorf("the rebuild was not logged:\n%s", p.stderr.String())
		}
		p.stop(t)
	})

	damages := map[string]func(t *testing.T, db string){
		// The root page (which Open always checks: a garbled page of a
		// block's value may be an overflow page, whose header it does not
		// read) and a few more, any pages: a damaged page loses the loose
		// records on it, or the blocks (thousands of records each) with
		// bytes on it (store's salvage tests count).
		"pages garbled": func(t *testing.T, db string) {
			r := rand.New(rand.NewPCG(logtest.Seed(t), 0))
			garbleRoot(t, r, db)
			garbleFile(t, r, db, 1+r.IntN(6))
		},
		"truncated to half": func(t *testing.T, db string) { fi, _ := os.Stat(db); _ = os.Truncate(db, fi.Size()/2) },
	}
	for name, damage := range damages {
		t.Run("log.db "+name+": refused, then salvaged", func(t *testing.T) {
			d := copyTree(t, data)
			db := filepath.Join(d, "log.db")
			damage(t, db)
			out := refused(t, bin, d)
			if !strings.Contains(out, db) || !strings.Contains(out, "mcplogd salvage --data "+d) {
				t.Fatalf("the refusal does not name %s and mcplogd salvage:\n%s", db, out)
			}
			nd := filepath.Join(t.TempDir(), "new")
			sout, err := exec.Command(bin, "salvage", "--data", d, "--out", nd).CombinedOutput()
			if err != nil {
				t.Fatalf("salvage: %v\n%s", err, sout)
			}
			t.Logf("salvage: %s", sout)
			m := regexp.MustCompile(`copied (\d+) records`).FindSubmatch(sout)
			if m == nil {
				t.Fatalf("salvage did not say how many records it copied:\n%s", sout)
			}
			copied, _ := strconv.ParseUint(string(m[1]), 10, 64)
			// Some: with the root page or half the file gone, the records
			// are found on the pages no tree reaches.
			if copied < 1 || copied > n {
				t.Fatalf("salvage copied %d of %d records", copied, n)
			}
			p := serveProc(t, bin, nd)
			st, err := p.c.Stats(context.Background())
			if err != nil || st.Records != copied {
				t.Fatalf("the salvaged directory holds %d records (%v), salvage said %d", st.Records, err, copied)
			}
			p.stop(t)
		})
	}

	for name, damage := range map[string]func(db string) error{
		"empty":   func(db string) error { return os.Truncate(db, 0) },
		"missing": os.Remove,
	} {
		t.Run("log.db "+name+" beside the index: refused", func(t *testing.T) {
			d := copyTree(t, data)
			db := filepath.Join(d, "log.db")
			if err := damage(db); err != nil {
				t.Fatal(err)
			}
			out := refused(t, bin, d)
			if !strings.Contains(out, db) || !strings.Contains(out, filepath.Join(d, "index")) {
				t.Fatalf("the refusal does not name %s and the index:\n%s", db, out)
			}
			if fi, err := os.Stat(filepath.Join(d, "index", "sets")); err != nil || fi.Size() < 1000 {
				t.Fatalf("the index was deleted or emptied (%v)", err)
			}
		})
	}
}
