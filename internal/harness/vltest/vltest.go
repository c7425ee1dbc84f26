package vltest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/vlnode"
)

// Version is the VictoriaLogs release the tests run, as
// scripts/need-victoria-logs installs it.
const Version = vlnode.Version

// Binary returns the path of the victoria-logs binary, "" when there is none.
func Binary() string { return vlnode.Binary() }

// need returns the binary or ends the test: skipped, or failed when
// MCPLOGD_REQUIRE_VICTORIALOGS=1.
func need(tb testing.TB) string {
	tb.Helper()
	p := Binary()
	if p == "" {
		msg := "victoria-logs not found on PATH, in $(go env GOBIN) or in $(go env GOPATH)/bin; install it with scripts/need-victoria-logs"
		if os.Getenv("MCPLOGD_REQUIRE_VICTORIALOGS") == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return p
}

// Node is one victoria-logs process.
type Node struct {
	Addr string // host:port of its HTTP listener
	URL  string // http://Addr
	bin  string
	args []string
	out  string // its log file
	cmd  *exec.Cmd
	done chan struct{}
}

// startNode starts a node with args on a free port and waits until it
// answers /health.
func startNode(tb testing.TB, bin, name string, args ...string) *Node {
	tb.Helper()
	n := &Node{bin: bin, out: filepath.Join(tb.TempDir(), name+".log")}
	n.Addr = freeAddr(tb)
	n.URL = "http://" + n.Addr
	n.args = append([]string{"-httpListenAddr=" + n.Addr, "-loggerLevel=WARN"}, args...)
	n.Start(tb)
	tb.Cleanup(n.Kill)
	return n
}

// Start starts the node again (after Stop or Kill) on its address and data
// path, and waits until it answers.
func (n *Node) Start(tb testing.TB) {
	tb.Helper()
	out, err := os.OpenFile(n.out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	defer out.Close()
	n.cmd = exec.Command(n.bin, n.args...)
	n.cmd.Stdout, n.cmd.Stderr = out, out
	if err := n.cmd.Start(); err != nil {
		tb.Fatalf("start victoria-logs: %v", err)
	}
	n.done = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { _ = c.Wait(); close(done) }(n.cmd, n.done)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(n.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-n.done:
			b, _ := os.ReadFile(n.out)
			tb.Fatalf("victoria-logs %v exited at start:\n%s", n.args, tail(b))
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("victoria-logs %v did not answer /health within 30s", n.args)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop ends the node gracefully (SIGINT: it writes what it holds).
func (n *Node) Stop() { n.signal(syscall.SIGINT) }

// Kill ends the node at once (SIGKILL: rows not written to disk yet are lost).
func (n *Node) Kill() { n.signal(syscall.SIGKILL) }

// Pause freezes the node (SIGSTOP; on Windows every thread suspended): it
// takes no connection and answers nothing, with what it was sent still in
// its sockets, until Resume.
func (n *Node) Pause() { suspend(n.cmd.Process) }

// Resume wakes a paused node (SIGCONT; on Windows its threads resumed).
func (n *Node) Resume() { resume(n.cmd.Process) }

func (n *Node) signal(sig syscall.Signal) {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	select {
	case <-n.done:
		return
	default:
	}
	_ = n.cmd.Process.Signal(sig)
	select {
	case <-n.done:
	case <-time.After(30 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.done
	}
}

// VL is a running VictoriaLogs: one node, or a cluster's front and its
// storage nodes.
type VL struct {
	URL     string  // where to ingest and query: the node, or the front
	Front   *Node   // the node that URL names
	Storage []*Node // a cluster's storage nodes; nil for a single node
}

// common are the flags every node gets: rows of any age are kept, and what
// is buffered reaches disk within a second.
var common = []string{"-retentionPeriod=100y", "-inmemoryDataFlushInterval=1s"}

// Start runs a single node with its data in a temporary directory; the
// test's cleanup ends it. args are added to its flags (a later flag wins:
// "-inmemoryDataFlushInterval=1h" keeps rows in memory, so that Kill
// loses them).
func Start(tb testing.TB, args ...string) *VL {
	tb.Helper()
	bin := need(tb)
	flags := append([]string{"-storageDataPath=" + filepath.Join(tb.TempDir(), "vl")}, common...)
	n := startNode(tb, bin, "single", append(flags, args...)...)
	return &VL{URL: n.URL, Front: n}
}

// StartCluster runs storage storage nodes and a front that routes inserts
// and queries to them (-storageNode).
func StartCluster(tb testing.TB, storage int) *VL {
	tb.Helper()
	bin := need(tb)
	v := &VL{}
	addrs := make([]string, storage)
	for i := range storage {
		n := startNode(tb, bin, "storage"+strconv.Itoa(i), append([]string{"-storageDataPath=" + filepath.Join(tb.TempDir(), "vl")}, common...)...)
		v.Storage, addrs[i] = append(v.Storage, n), n.Addr
	}
	v.Front = startNode(tb, bin, "front", "-storageNode="+strings.Join(addrs, ","))
	v.URL = v.Front.URL
	return v
}

// Stop ends every node gracefully.
func (v *VL) Stop() {
	v.Front.Stop()
	for _, n := range v.Storage {
		n.Stop()
	}
}

// Restart starts every node again, storage nodes first.
func (v *VL) Restart(tb testing.TB) {
	tb.Helper()
	for _, n := range v.Storage {
		n.Start(tb)
	}
	v.Front.Start(tb)
}

// ForceFlush makes every row received so far visible to queries.
func (v *VL) ForceFlush(tb testing.TB) {
	tb.Helper()
	resp, err := http.Get(v.URL + "/internal/force_flush")
	if err != nil {
		tb.Fatalf("force_flush: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("force_flush: %s", resp.Status)
	}
}

// Query runs a LogsQL query over all time and returns its rows.
func (v *VL) Query(tb testing.TB, logsql string) []map[string]string {
	tb.Helper()
	rows, err := v.TryQuery(context.Background(), logsql)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// TryQuery is Query that returns its error, for polling while nodes restart.
func (v *VL) TryQuery(ctx context.Context, logsql string) ([]map[string]string, error) {
	form := url.Values{"query": {logsql}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.URL+"/select/logsql/query", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("query %q: %s: %s", logsql, resp.Status, tail(body))
	}
	var rows []map[string]string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		row := map[string]string{}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("query %q: row %q: %w", logsql, sc.Text(), err)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// freeAddr returns a 127.0.0.1 address with a port free at the moment.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
