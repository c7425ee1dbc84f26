package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/mcplogd/mcplogd/follow"
	"github.com/mcplogd/mcplogd/internal/shellwords"
	"github.com/mcplogd/mcplogd/oplog"
)

// exitStatus is a command's error that only sets mcplogd's exit status:
// run exits as the program it ran did.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// runCommand is `mcplogd run`: it runs a game and records its output.
func (m *Main) runCommand(ctx context.Context, args []string) error {
	fs := m.flags("run", "[--name NAME] [--parser P] [--data DIR] -- COMMAND ARGS...",
		"Run a game (or its server, or any program) and record what it prints: its standard output and error go through a pseudo-terminal "+
			"(line-buffered as on a terminal, so nothing is lost when it is killed), to this terminal and, parsed, to the log; the launch "+
			"starts a run, and its exit status or signal ends it. mcplogd run exits with the program's status (128+N for signal N).")
	data := m.dataFlag(fs)
	fs.Bool("create", false, "accepted for older command lines: run makes a missing data directory anyway")
	name := fs.String("name", "", "the records' source (default: the program's file name)")
	parser := fs.String("parser", "", "the output's format: "+follow.ParserNames+" (default: detected)")
	if err := m.parse(fs, args, -1); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		argsError(m.Stderr, fs, "no command; give it after --, such as: mcplogd run --name Game -- love game/")
		return errUsage
	}
	spec := runSpec{Name: *name, Parser: *parser, Args: fs.Args()}
	if spec.Name == "" {
		spec.Name = programName(spec.Args[0])
	}
	// A game's first run is often the first command a person types: it
	// makes the store, as serve, stdio and import do.
	dir, _, err := openDir(*data)
	if err != nil {
		return err
	}
	b, err := connect(ctx, dir, openOptions{})
	if err != nil {
		return err
	}
	defer b.Close()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Ctrl-C goes to the program (Signals), which ends when it likes: ctx,
	// which the same Ctrl-C ends, must not stop the recording first.
	exit, err := follow.RunCommand(context.WithoutCancel(ctx), b, spec.options(m.Stdin, m.Stdout, sigs, logger))
	if err != nil && exit == (follow.Exit{}) {
		return err
	}
	fmt.Fprintf(m.Stderr, "mcplogd: %s %s; recorded as source %s\n", programName(spec.Args[0]), exit, spec.Name)
	if err != nil {
		return fmt.Errorf("some of the output could not be stored: %w", err)
	}
	switch {
	case exit.Signal != "":
		return exitStatus(128 + exit.SignalNumber)
	case exit.Code != 0:
		return exitStatus(exit.Code)
	}
	return nil
}

// runSpec is one program to run and record: `mcplogd run`'s, or serve's
// --run [PARSER:]NAME=COMMAND ARGS.
type runSpec struct {
	Name, Parser string
	Args         []string
}

func (r runSpec) String() string {
	s := r.Name + "=" + strings.Join(r.Args, " ")
	if r.Parser != "" {
		s = r.Parser + ":" + s
	}
	return s
}

// options are the follow.CommandOptions of r.
func (r runSpec) options(stdin io.Reader, out io.Writer, sigs <-chan os.Signal, logger *slog.Logger) follow.CommandOptions {
	return follow.CommandOptions{Name: r.Name, Args: r.Args, Parser: r.Parser, Stdin: stdin, Output: out, Signals: sigs, Logger: logger}
}

// parseRun reads --run [PARSER:]NAME=COMMAND ARGS.
func parseRun(s string) (runSpec, error) {
	key, command, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(command) == "" {
		return runSpec{}, fmt.Errorf("--run %q: want [PARSER:]NAME=COMMAND ARGS, such as love:Game=love game/", s)
	}
	return runKey(key, command)
}

func runKey(key, command string) (runSpec, error) {
	f, err := followKey(key, "-")
	if err != nil {
		return runSpec{}, fmt.Errorf("run %q: the name (the records' source) must be a word, such as Game", key)
	}
	words, err := shellwords.Split(command)
	if err != nil || len(words) == 0 {
		return runSpec{}, fmt.Errorf("run %s: cannot read the command %q: %v", f.Name, command, err)
	}
	if f.Parser != "" {
		if _, err := follow.NewParser(f.Parser, nil); err != nil {
			return runSpec{}, fmt.Errorf("run %s: %w", f.Name, err)
		}
	}
	return runSpec{Name: f.Name, Parser: f.Parser, Args: words}, nil
}

// programName is a program's file name without its extension.
func programName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// runners are the programs serve runs and records (--run).
type runners struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startRuns starts each program of specs, its output to out.
func startRuns(l *oplog.Log, specs []runSpec, out io.Writer, logger *slog.Logger) *runners {
	ctx, cancel := context.WithCancel(context.Background())
	rs := &runners{cancel: cancel}
	for _, r := range specs {
		rs.wg.Add(1)
		go func() {
			defer rs.wg.Done()
			exit, err := follow.RunCommand(ctx, l, r.options(nil, out, nil, logger))
			switch {
			case err != nil && errors.Is(err, oplog.ErrClosed):
			case err != nil:
				logger.Error("run "+r.Name, "err", err)
			default:
				logger.Info("run "+r.Name+": "+programName(r.Args[0])+" "+exit.String(), "command", strings.Join(r.Args, " "))
			}
		}()
	}
	return rs
}

// Close stops the programs still running (SIGTERM, SIGKILL 10 s later) and
// waits until their output and exits are stored.
func (rs *runners) Close() {
	if rs == nil {
		return
	}
	rs.cancel()
	rs.wg.Wait()
}
