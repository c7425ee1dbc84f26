package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ProcessRun records one start of a cmd: upstream's process as a run of
// the upstream's source (Options.Runs makes it).
type ProcessRun interface {
	// Write takes what the process printed on its standard error.
	Write(p []byte) (int, error)
	// End stores how the process ended, after the last Write: ps is its
	// state after Wait, stopped the signal mcplogd sent to stop it (""
	// when it ended by itself). It returns the exit marker as stored (ID
	// 0 when it could not be) and the error storing records, if any.
	End(ps *os.ProcessState, stopped string) (oplog.Record, error)
}

// ProcessEnd is how a cmd: upstream's process ended: what its exit marker
// says, and the marker's record.
type ProcessEnd struct {
	Start  int    // which start of the process it was: 1 the first, 2 after a restart, …
	Text   string // "game exited with status 3", "game killed by signal 11 (SIGSEGV)"
	Code   int    // its exit status; -1 when a signal ended it
	Signal string // the signal that ended it ("SIGSEGV"); "" when it exited, and on Windows
	// Stopped is the signal mcplogd sent to stop it (an upstream that did
	// not exit when its standard input closed); "" when it ended by itself.
	Stopped string
	// Crashed says the exit marker's level is error or fatal (a failing
	// status, a signal mcplogd did not send): the run reads as crashed.
	Crashed bool
	ExitID  uint64    // the exit marker's record ID; 0 when none was stored (Options.Runs nil, a store error)
	Run     uint64    // the run of the upstream's source the marker ended; 0 when none was stored
	Time    time.Time // when the end was recorded
}

// processes is an upstream's record of its process's starts and ends.
type processes struct {
	starts  int           // processes started so far
	last    ProcessEnd    // the last end; Start 0 before any
	ended   chan struct{} // closed and replaced at each end
	current *process      // the newest process started; nil before any
}

// ProcessEnd returns how upstream name's process last ended: ok is false
// when name is no cmd: upstream or its process has not ended since the
// gateway started. The call-completion code reads it (and awaitEnd) to say
// how the game of a call in flight ended.
func (g *Gateway) ProcessEnd(name string) (end ProcessEnd, ok bool) {
	for _, u := range g.ups {
		if u.cfg.Name == name {
			u.mu.Lock()
			defer u.mu.Unlock()
			return u.procs.last, u.procs.last.Start > 0
		}
	}
	return ProcessEnd{}, false
}

// processStart returns the start number of the process running now (or
// the last one started); 0 before any, and for an HTTP upstream.
func (u *upstream) processStart() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.procs.starts
}

// awaitEnd waits until the process of start number start (or a later one)
// has ended and its end is recorded, and returns that end; ok is false
// when ctx ended first, and at once for start 0 (no process: an HTTP
// upstream). A call in flight reads processStart when it is sent, and
// awaitEnd once it failed: its answer comes before the exit marker.
func (u *upstream) awaitEnd(ctx context.Context, start int) (end ProcessEnd, ok bool) {
	if start <= 0 {
		return ProcessEnd{}, false
	}
	for {
		u.mu.Lock()
		last, ch := u.procs.last, u.procs.ended
		u.mu.Unlock()
		if last.Start >= start {
			return last, true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ProcessEnd{}, false
		}
	}
}

// exited reports whether the process of start number start has exited
// (Wait returned), its end perhaps not yet recorded.
func (u *upstream) exited(start int) bool {
	u.mu.Lock()
	p := u.procs.current
	u.mu.Unlock()
	if p == nil || p.start != start {
		return false
	}
	select {
	case <-p.waited:
		return true
	default:
		return false
	}
}

// processTransport starts the upstream's program for one session: MCP on
// its standard input and output, its standard error to Options.Runs.
type processTransport struct{ u *upstream }

// Connect starts the program and connects to it.
func (t processTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, err := t.u.startProcess()
	if err != nil {
		return nil, err
	}
	return (&mcp.IOTransport{Reader: stdoutOf{p}, Writer: p}).Connect(ctx)
}

// process is one start of a cmd: upstream's program. Closing it (the
// session's end) closes its standard input, waits terminateWait for it to
// exit, then asks it to stop (SIGTERM), then kills it, and returns once its
// end is recorded.
type process struct {
	u      *upstream
	start  int // which start of the upstream's process it is (ProcessEnd.Start)
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File      // read end
	waited chan struct{} // closed once Wait has returned
	ended  chan struct{} // closed once the end is recorded

	mu      sync.Mutex
	stopped string // the signal sent to stop it
	closed  bool
}

// stdoutOf is a process's standard output as the session reads it; the
// session's close leaves it to the process's Close, so that a program
// still running is never cut off by a broken pipe.
type stdoutOf struct{ p *process }

func (s stdoutOf) Read(b []byte) (int, error) { return s.p.stdout.Read(b) }
func (s stdoutOf) Close() error               { return nil }

// startProcess starts the program and the run it is, and reads its
// standard error into that run until it has ended.
func (u *upstream) startProcess() (*process, error) {
	// The session may end (its standard output closed) before the process
	// that died is reaped and its standard error drained: its run's last
	// lines and its exit marker come before the next run starts.
	u.mu.Lock()
	prev := u.procs.current
	u.mu.Unlock()
	if prev != nil {
		select {
		case <-prev.ended:
		case <-time.After(stderrDrain + terminateWait):
		}
	}
	cmd := exec.Command(u.cfg.Command[0], u.cfg.Command[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &process{u: u, cmd: cmd, stdin: stdin, stdout: outR, waited: make(chan struct{}), ended: make(chan struct{})}
	u.mu.Lock()
	u.procs.starts++
	start := u.procs.starts
	p.start = start
	u.procs.current = p
	u.mu.Unlock()
	var run ProcessRun
	if u.g.opts.Runs != nil {
		if run, err = u.g.opts.Runs(u.cfg.Name, u.cfg.Command, cmd.Process.Pid); err != nil {
			u.g.opts.Logger.Warn("the run of an upstream's process is not recorded", "upstream", u.cfg.Name, "err", err)
			run = nil
		}
	}
	var w io.Writer = io.Discard
	if run != nil {
		w = run
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(w, errR)
	}()
	go func() {
		_ = cmd.Wait()
		close(p.waited)
		select {
		case <-read: // all it printed: the exit marker comes after its lines
		case <-time.After(stderrDrain):
			u.g.opts.Logger.Warn("an upstream's process exited but something it started holds its standard error; not read further", "upstream", u.cfg.Name)
			errR.Close() // ends the copy
			<-read
		}
		errR.Close()
		p.recordEnd(start, run)
	}()
	return p, nil
}

// recordEnd stores how the process ended and keeps it as the upstream's
// last end.
func (p *process) recordEnd(start int, run ProcessRun) {
	ps := p.cmd.ProcessState
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	end := ProcessEnd{Start: start, Code: -1, Stopped: stopped, Text: p.u.cfg.Command[0] + " ended"}
	if ps != nil {
		end.Code, end.Text = ps.ExitCode(), p.u.cfg.Command[0]+" ended: "+ps.String()
	}
	if run != nil {
		rec, err := run.End(ps, stopped)
		if err != nil {
			p.u.g.opts.Logger.Error("the end of an upstream's process is not recorded", "upstream", p.u.cfg.Name, "err", err)
		}
		end.Text, end.Crashed, end.ExitID, end.Run = rec.Text, rec.Level >= oplog.LevelError, rec.ID, rec.Run
		var d struct {
			Signal string `json:"signal"`
		}
		if json.Unmarshal(rec.Data, &d) == nil && d.Signal != "" {
			end.Signal = d.Signal
		}
	}
	end.Time = time.Now().UTC()
	p.u.g.opts.Logger.Info("upstream process ended", "upstream", p.u.cfg.Name, "how", end.Text)
	p.u.mu.Lock()
	p.u.procs.last = end
	close(p.u.procs.ended)
	p.u.procs.ended = make(chan struct{})
	p.u.mu.Unlock()
	close(p.ended)
}

// Write sends to the process's standard input.
func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the process, as the MCP stdio transport asks: its standard
// input closed first, then SIGTERM, then a kill; it returns once its end
// is recorded.
func (p *process) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.ended
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	err := p.stdin.Close()
	wait := func() bool {
		select {
		case <-p.waited:
			return true
		case <-time.After(terminateWait):
			return false
		}
	}
	if !wait() {
		p.setStopped("SIGTERM")
		if p.cmd.Process.Signal(syscall.SIGTERM) != nil || !wait() {
			p.setStopped("SIGKILL")
			if kerr := p.cmd.Process.Kill(); kerr != nil && !errors.Is(kerr, os.ErrProcessDone) {
				err = errors.Join(err, kerr)
			}
			<-p.waited
		}
	}
	<-p.ended
	p.stdout.Close()
	if errors.Is(err, os.ErrClosed) {
		err = nil
	}
	return err
}

func (p *process) setStopped(sig string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = sig
}
