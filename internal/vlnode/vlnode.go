package vlnode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Version is the VictoriaLogs release mcplogd is tested and measured
// against, as scripts/need-victoria-logs installs it.
const Version = "v1.52.1"

// Limits of a node's start and stop.
const (
	// StartTimeout is how long Start waits for /health to answer 200.
	StartTimeout = 30 * time.Second
	// StopTimeout is how long Stop waits after the interrupt before it
	// kills the process.
	StopTimeout = 30 * time.Second
	// startPoll is how often /health is asked while the node starts.
	startPoll = 20 * time.Millisecond
)

// ErrExited is wrapped by Start's error when the process ended before it
// answered /health (a taken port, a bad flag, a data path it cannot use).
var ErrExited = errors.New("victoria-logs exited at start")

// Binary returns the path of the victoria-logs binary: on PATH, else where
// go install puts it ($(go env GOBIN), else each GOPATH's bin). "" means it
// is not installed.
func Binary() string {
	if p, err := exec.LookPath("victoria-logs"); err == nil {
		return p
	}
	out, _ := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	env := strings.Split(string(out), "\n")
	var dirs []string
	if len(env) > 0 && strings.TrimSpace(env[0]) != "" {
		dirs = append(dirs, strings.TrimSpace(env[0]))
	}
	if len(env) > 1 {
		for _, dir := range filepath.SplitList(strings.TrimSpace(env[1])) {
			dirs = append(dirs, filepath.Join(dir, "bin"))
		}
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, "victoria-logs")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Node is one victoria-logs process started by Start.
type Node struct {
	// URL is the root of its HTTP API, http://127.0.0.1:port.
	URL string
	// DataPath is its -storageDataPath.
	DataPath string

	cmd  *exec.Cmd
	out  *os.File // its standard output and error
	done chan struct{}
}

// Start runs bin as a single node on a free port of 127.0.0.1, with its
// data in dataPath (created if missing) and its log in dataPath's parent
// folder as victoria-logs.log, and waits until /health answers 200. args
// are added to its flags (a later flag wins). The error wraps ErrExited
// when the process ended first, with the end of its log; ctx ending or
// StartTimeout passing stops it.
func Start(ctx context.Context, bin, dataPath string, args ...string) (*Node, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(filepath.Dir(dataPath), "victoria-logs.log")
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	flags := append([]string{"-httpListenAddr=" + addr, "-storageDataPath=" + dataPath, "-loggerLevel=WARN"}, args...)
	n := &Node{URL: "http://" + addr, DataPath: dataPath, cmd: exec.Command(bin, flags...), out: out, done: make(chan struct{})}
	n.cmd.Stdout, n.cmd.Stderr = out, out
	if err := n.cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start victoria-logs: %w", err)
	}
	go func() { _ = n.cmd.Wait(); close(n.done) }()
	if err := n.waitHealthy(ctx); err != nil {
		n.Stop()
		return nil, err
	}
	return n, nil
}

// waitHealthy asks /health until it answers 200, the process ends, ctx
// ends or StartTimeout passes.
func (n *Node) waitHealthy(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	hc := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.URL+"/health", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-n.done:
			b, _ := os.ReadFile(n.out.Name())
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			return fmt.Errorf("%w (%v):\n%s", ErrExited, n.cmd.Args[1:], b)
		case <-ctx.Done():
			return fmt.Errorf("victoria-logs did not answer /health: %w", ctx.Err())
		case <-time.After(startPoll):
		}
	}
}

// PID is the process's ID, for reading its /proc/<pid>/status.
func (n *Node) PID() int { return n.cmd.Process.Pid }

// Stop ends the node gracefully (an interrupt: it writes what it holds to
// disk), kills it after StopTimeout, and waits until it has ended. Calling
// it again does nothing.
func (n *Node) Stop() {
	select {
	case <-n.done:
	default:
		if err := n.cmd.Process.Signal(os.Interrupt); err != nil { // Windows has no interrupt to send
			_ = n.cmd.Process.Kill()
		}
		select {
		case <-n.done:
		case <-time.After(StopTimeout):
			_ = n.cmd.Process.Kill()
			<-n.done
		}
	}
	n.out.Close()
}

// freeAddr returns a 127.0.0.1 address with a port free at the moment.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
