package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Appender is where RunCommand stores records: an oplog.Log, or a client
// of a running server.
type Appender interface {
	Append(ctx context.Context, recs []oplog.Record) error
}

// CommandOptions configures RunCommand.
type CommandOptions struct {
	Name   string   // the records' Source; required
	Args   []string // the program and its arguments; required
	Parser string   // "" or "auto": detected from the first lines; else a parser name
	Dir    string   // its working directory; "": this process's
	Env    []string // its environment; nil: this process's
	// Stdin is the program's standard input; nil: none (the null device).
	Stdin io.Reader
	// Output receives everything the program prints, as it prints it (a
	// terminal: the game's output still shows); nil: nowhere.
	Output io.Writer
	// Signals are forwarded to the program as they arrive (the CLI's
	// Ctrl-C); nil: none. When ctx ends, the program is sent SIGTERM, and
	// SIGKILL after StopWait.
	Signals  <-chan os.Signal
	StopWait time.Duration // 10 s when <= 0
	Quiet    time.Duration // store a held entry after this long without output; DefaultQuiet when <= 0
	Logger   *slog.Logger  // nil: discard
	// started, when set, is called with the process once it runs (tests).
	started func(*os.Process)
}

// Exit is how a program RunCommand ran ended.
type Exit struct {
	Code   int    // its exit status; -1 when a signal ended it
	Signal string // the signal that ended it ("SIGSEGV"), or ""
	// SignalNumber is the signal's number; 0 when it exited.
	SignalNumber int
	CoreDumped   bool
	Duration     time.Duration
	// Stopped is the signal mcplogd passed on to the program (Ctrl-C,
	// a stop of mcplogd itself) before it ended; "" when it ended by
	// itself.
	Stopped string
}

// String says how the program ended: "exited with status 3", "killed by
// signal 11 (SIGSEGV)".
func (e Exit) String() string {
	if e.Signal == "" {
		return fmt.Sprintf("exited with status %d", e.Code)
	}
	s := fmt.Sprintf("killed by signal %d (%s", e.SignalNumber, e.Signal)
	if e.CoreDumped {
		s += ", core dumped"
	}
	return s + ")"
}

// Level is the level the exit marker is stored at: fatal for the signals
// of a crash (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS),
// info for status 0 or an end mcplogd asked for (whatever status the
// program then chose: LÖVE exits 1 on SIGTERM), warn for the signals that
// ask a program to stop, sent by another (Ctrl-C at the game's own
// terminal, an IDE's stop button, a shutdown: SIGINT, SIGTERM, SIGHUP),
// error for another status or signal (SIGKILL: the out-of-memory killer).
// A run ends crashed at error and fatal, exited at info and warn.
func (e Exit) Level() oplog.Level {
	switch {
	case crashSignals[e.Signal]:
		return oplog.LevelFatal
	case e.Signal == "" && e.Code == 0, e.Stopped != "":
		return oplog.LevelInfo
	case e.Signal == "SIGINT", e.Signal == "SIGTERM", e.Signal == "SIGHUP":
		return oplog.LevelWarn
	}
	return oplog.LevelError
}

var crashSignals = map[string]bool{"SIGSEGV": true, "SIGABRT": true, "SIGBUS": true, "SIGFPE": true, "SIGILL": true, "SIGTRAP": true, "SIGSYS": true}

// RunCommand runs a game (or any program) and records what it prints, as
// a Follower records a file: a run starts at the launch (a run marker
// naming the command), its output is read through a pseudo-terminal (so
// that the program's output stays line-buffered, as on a terminal, and
// nothing it printed is lost when it is killed), parsed with
// opts.Parser, copied to opts.Output, and appended as it comes; when the
// program has exited and its output is read, an exit marker (oplog.MarkerExit)
// records its exit status or the signal that ended it. Where there are no
// pseudo-terminals (Windows), its output is read through a pipe. A line
// over 1 MiB is stored once, its head marked cut with the bytes dropped
// (lineCutter), not as a record of each MiB.
//
// RunCommand returns when the program has ended and everything is stored.
// It returns an error when the program cannot be started (nothing is
// stored then), or when records could not be stored (the program still ran
// to its end).
func RunCommand(ctx context.Context, a Appender, opts CommandOptions) (Exit, error) {
	if err := checkName(opts.Name); err != nil {
		return Exit{}, err
	}
	if len(opts.Args) == 0 || opts.Args[0] == "" {
		return Exit{}, errors.New("run: no command given: want a program and its arguments")
	}
	p, err := NewParser(opts.Parser, func() time.Time { return time.Now() })
	if err != nil {
		return Exit{}, err
	}
	c := newCapture(a, opts, p)
	cmd := exec.Command(opts.Args[0], opts.Args[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = opts.Dir, opts.Env, opts.Stdin
	out, held, err := startCaptured(cmd)
	if err != nil {
		return Exit{}, fmt.Errorf("run %s: %w", opts.Args[0], err)
	}
	start := time.Now()
	c.launched(cmd.Process.Pid, start)
	if opts.started != nil {
		opts.started(cmd.Process)
	}
	exit := c.loop(ctx, cmd, out, held)
	exit.Duration = time.Since(start)
	c.exited(exit)
	return exit, c.err
}

// startCaptured starts cmd with its standard output and error going to one
// reader, and returns it with mcplogd's copy of the program's side of a
// pseudo-terminal (nil for a pipe), to close once the program is reaped
// (startPTY).
func startCaptured(cmd *exec.Cmd) (io.ReadCloser, io.Closer, error) {
	out, held, err := startPTY(cmd)
	if err == nil || !errors.Is(err, errNoPTY) {
		return out, held, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, nil, err
	}
	w.Close() // a pipe keeps what was written until it is read
	return r, nil, nil
}

// commandText is a command as a person would type it.
func commandText(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || strings.ContainsAny(a, " \t\"'\\$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		b.WriteString(a)
	}
	return b.String()
}
