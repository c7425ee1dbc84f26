package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools/remote"
)

// This file starts the background recorder: `mcplogd stdio` with no server
// of its data directory running starts `mcplogd serve` for it, detached
// from the agent's session (recorder_unix.go, recorder_windows.go), and
// serves MCP through it, so that recording (config.json's follows and
// runs) goes on after the agent disconnects.

const (
	// recorderWait is how long stdio waits for the recorder it started
	// (or the one a concurrent stdio started) to answer.
	recorderWait = 30 * time.Second
	// recorderLog is the recorder's standard output and error, in the
	// data directory; past recorderLogMax it is moved to recorderLog.1.
	recorderLog    = "serve.log"
	recorderLogMax = 1 << 20
)

// recorderFlags are the stdio flags the recorder is started with when
// given: they shape the store, which the recorder opens.
var recorderFlags = []string{"max-bytes", "max-records", "max-age", "memory-limit"}

// recorder returns the running server of dir, starting one in the
// background first when none answers. Of the stdio sessions that find none
// at once (several agents starting, or the open sessions of a recorder that
// was killed), one starts it: the one that makes recorderStarting in the
// data directory (an election by exclusive create); the others wait for
// its server. Should two start one all the same (an election file left by
// a start that died), the store's lock lets one run, the other stops at
// once saying the directory is in use, and both attach to the one that runs.
func (m *Main) recorder(ctx context.Context, dir *datadir.Dir, token string, fs *flag.FlagSet) (*remote.Backend, error) {
	var given []string // the recorder's flags, as given
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(recorderFlags, f.Name) {
			given = append(given, "--"+f.Name+"="+f.Value.String())
		}
	})
	if r := runningServer(ctx, dir, token); r != nil {
		if len(given) > 0 {
			s, _ := dir.Server()
			fmt.Fprintf(m.Stderr, "mcplogd: %s not applied: they are the store's, and its server runs already (pid %d); restart it with them\n", strings.Join(given, " "), s.PID)
		}
		return r, nil
	}
	for range 2 {
		elected, release := electStarter(dir)
		if elected {
			defer release()
			return m.startRecorder(ctx, dir, token, given)
		}
		if r, err := waitStarter(ctx, dir, token); r != nil || err != nil {
			return r, err
		}
		// The other session's start ended without a server: elect again,
		// and this session tells why when it fails too.
	}
	return nil, fmt.Errorf("no server of %s answered: other sessions' starts of the background recorder ended without one (its log: %s)", dir.Path, filepath.Join(dir.Path, recorderLog))
}

// waitStarter waits while another session starts the recorder (it holds
// the election file): it returns the server once it answers, and nil
// once the file is gone without one, or is older than recorderWait (that
// start failed or died).
func waitStarter(ctx context.Context, dir *datadir.Dir, token string) (*remote.Backend, error) {
	path := filepath.Join(dir.Path, recorderStarting)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if r := answering(ctx, dir, &token); r != nil {
			return r, nil
		}
		if fi, err := os.Stat(path); err != nil || time.Since(fi.ModTime()) > recorderWait {
			return answering(ctx, dir, &token), nil // one last look: it may have answered as the file went
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// startRecorder starts `mcplogd serve` for dir in the background, with
// given flags, and returns its server once it answers.
func (m *Main) startRecorder(ctx context.Context, dir *datadir.Dir, token string, given []string) (*remote.Backend, error) {
	exe, err := m.executable()
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--data", dir.Path}, given...)
	logPath := filepath.Join(dir.Path, recorderLog)
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > recorderLogMax {
		_ = os.Rename(logPath, logPath+".1")
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the background recorder's log: %w", err)
	}
	start, _ := logFile.Seek(0, io.SeekEnd)
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	detach(cmd)
	err = cmd.Start()
	logFile.Close()
	if err != nil {
		return nil, fmt.Errorf("start the background recorder (%s serve --data %s): %w", exe, dir.Path, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	r, err := waitRecorder(ctx, dir, token, exited, logPath, start)
	if r != nil {
		// Attached to a concurrent start's recorder: this one, when it is
		// still starting, would take the store over once that one stops.
		if s, _ := dir.Server(); s.PID != cmd.Process.Pid {
			select {
			case <-exited:
			default:
				_ = cmd.Process.Kill()
			}
		}
	}
	return r, err
}

// recorderStarting is the election file of the background recorder's
// start, in the data directory: made (exclusively) by the session that
// starts it, removed once its server answers or the start failed.
const recorderStarting = "recorder.starting"

// electStarter reports whether this process is to start the recorder of
// dir: whether it made the election file. One older than recorderWait was
// left by a start that died, and is taken over. A directory where it
// cannot be made at all elects every caller (the store's lock still lets
// only one recorder run). release removes the file when it is this
// process's.
func electStarter(dir *datadir.Dir) (elected bool, release func()) {
	path := filepath.Join(dir.Path, recorderStarting)
	for range 3 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return true, func() { _ = os.Remove(path) }
		}
		if !errors.Is(err, os.ErrExist) {
			return true, func() {}
		}
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist): // its start just ended: elect again
		case err != nil:
			return true, func() {}
		case time.Since(fi.ModTime()) < recorderWait:
			return false, func() {}
		default:
			_ = os.Remove(path) // stale: its starter died
		}
	}
	return false, func() {}
}

// waitRecorder waits until dir's server answers, for recorderWait at
// most. The recorder started ending early is an error with what it said
// (from offset start of logPath), unless it found the directory in use:
// then another one is starting, and the wait goes on.
func waitRecorder(ctx context.Context, dir *datadir.Dir, token string, exited <-chan struct{}, logPath string, start int64) (*remote.Backend, error) {
	deadline := time.Now().Add(recorderWait)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if r := answering(ctx, dir, &token); r != nil {
			return r, nil
		}
		select {
		case <-exited:
			said := recorderSaid(logPath, start)
			if !strings.Contains(said, lockedPhrase) {
				return nil, fmt.Errorf("the background recorder (mcplogd serve --data %s) stopped at once: %s (its log: %s)", dir.Path, said, logPath)
			}
			exited = nil // a concurrent start holds the store: wait for its server
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no server of %s answered within %s of starting the background recorder (its log: %s; a process that holds the store without serving it, such as mcplogd stdio --in-process, keeps it from starting)",
				dir.Path, recorderWait, logPath)
		}
	}
}

// answering is dir's running server if one answers, reading the token
// again first (it may have been rotated meanwhile); nil when none does.
func answering(ctx context.Context, dir *datadir.Dir, token *string) *remote.Backend {
	if t, err := dir.Token(); err == nil {
		*token = t
	}
	return runningServer(ctx, dir, *token)
}

// recorderSaid is what the recorder wrote to its log from offset start:
// its last lines, without the "mcplogd: " of its error.
func recorderSaid(logPath string, start int64) string {
	f, err := os.Open(logPath)
	if err != nil {
		return "(no log)"
	}
	defer f.Close()
	b, _ := io.ReadAll(io.NewSectionReader(f, start, 1<<16))
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(it printed nothing)"
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && strings.HasPrefix(s[i+1:], "mcplogd: ") {
		s = s[i+1:] // the error it ended with
	}
	return strings.TrimPrefix(s, "mcplogd: ")
}

// executable is the mcplogd binary the recorder runs: this program.
func (m *Main) executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the mcplogd binary to start the background recorder: %w (or pass --in-process)", err)
	}
	if name := strings.TrimSuffix(filepath.Base(exe), ".exe"); strings.HasSuffix(name, ".test") {
		// A test ran stdio in its own process: the test binary would run
		// every test in the background.
		return "", errors.New("BUG: stdio in a test binary starts no recorder: run the mcplogd binary, or pass --in-process")
	}
	return exe, nil
}
