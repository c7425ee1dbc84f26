package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// Result is what one scenario counted over its rounds.
type Result struct {
	Scenario string
	Rounds   int    // kills (or faults) injected
	Acked    int    // records (or completions) the server acknowledged
	Lost     int    // of those, missing or changed after the restart
	Dup      int    // records stored twice
	Note     string // what else the scenario saw
	Skipped  string // why it did not run, if it did not

	// LossExpected: the fault destroys data by design (damaged pages),
	// so Lost is not a failure.
	LossExpected bool
}

// Scenario is one kind of fault.
type Scenario struct {
	Name string
	Run  func(e *Env) (Result, error)
}

// Env is what a scenario runs with: the binary, a scratch directory, a
// random source and the number of rounds.
type Env struct {
	Bin    string
	Dir    string // scratch space, removed by the caller
	Rounds int
	Rand   *rand.Rand
	Log    io.Writer // progress; io.Discard for none

	// VL starts a VictoriaLogs for the studio scenario; nil when
	// victoria-logs is not installed.
	VL func() *vltest.VL
}

// Server is one running mcplogd serve process.
type Server struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
	stderr *logtest.Buffer
	Data   string
	Base   string
	Token  string
	C      *client.Client
}

// Start runs serve on data with args and waits until it answers /healthz.
func (e *Env) Start(data string, args ...string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &Server{Data: data, Base: "http://" + addr, stderr: &logtest.Buffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(e.Bin, append([]string{"serve", "--data", data, "--addr", addr}, args...)...)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("serve exited: %v\n%s", s.err, s.stderr.String())
		default:
		}
		if resp, err := http.Get(s.Base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			s.Kill()
			return nil, fmt.Errorf("serve did not answer /healthz within 30s\n%s", s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond) // polling a starting process
	}
	tok, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		s.Kill()
		return nil, err
	}
	s.Token = strings.TrimSpace(string(tok))
	s.C = client.NewClient(s.Base, s.Token)
	return s, nil
}

// Kill sends SIGKILL and waits for the process to be gone.
func (s *Server) Kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// Stop sends SIGTERM and waits; an exit status other than 0 is an error.
func (s *Server) Stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(60 * time.Second):
		s.Kill()
		return errors.New("serve did not stop within 60s after SIGTERM")
	}
	if s.err != nil {
		return fmt.Errorf("serve: %v\n%s", s.err, s.stderr.String())
	}
	return nil
}

// Stderr is what the server logged.
func (s *Server) Stderr() string { return s.stderr.String() }

// Post sends body to path and decodes a 2xx answer into out (nil: ignored).
func (s *Server) Post(ctx context.Context, path string, body []byte, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s: %d %s", path, resp.StatusCode, bytes.TrimSpace(b))
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(b, out)
	}
	return resp.StatusCode, nil
}

// Records opens data's log.db (its server dead), checks its counters, and
// returns every record, oldest first.
func Records(data string) ([]oplog.Record, error) {
	db, err := store.Open(filepath.Join(data, "log.db"), nil)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		return nil, err
	}
	t, err := db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	return t.Lines, err
}

func (e *Env) logf(format string, args ...any) { fmt.Fprintf(e.Log, format+"\n", args...) }

// Header is the table's header, in Markdown.
const Header = "| scenario | kills/faults | acknowledged | lost | duplicated | took | notes |\n|---|---:|---:|---:|---:|---:|---|"

// Row is one scenario's row of the table.
func Row(r Result, took time.Duration) string {
	if r.Skipped != "" {
		return fmt.Sprintf("| %s | skipped | | | | | %s |", r.Scenario, r.Skipped)
	}
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %s | %s |", r.Scenario, r.Rounds, r.Acked, r.Lost, r.Dup, took.Round(time.Second), r.Note)
}
