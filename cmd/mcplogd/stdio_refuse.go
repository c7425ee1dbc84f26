package main

import (
	"bufio"
	"encoding/json"
	"os"
	"time"

	"github.com/mattn/go-isatty"
)

// stdioRefuseWait is how long a stdio that cannot start waits for its
// client's first request, to answer it with the reason.
const stdioRefuseWait = 5 * time.Second

// refuseSession answers the first request of an MCP client whose stdio
// server cannot start with a JSON-RPC error saying why, so that the client
// can show the reason where it would only say it failed to connect; err,
// returned, goes to standard error as before. A terminal on standard
// input is not waited for.
func (m *Main) refuseSession(err error) error {
	if f, ok := m.Stdin.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return err
	}
	lines := make(chan []byte, 1)
	go func() {
		defer close(lines)
		br := bufio.NewReader(m.Stdin)
		for {
			line, rerr := br.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if rerr != nil {
				return
			}
		}
	}()
	timer := time.NewTimer(stdioRefuseWait)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				return err
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &req) != nil || len(req.ID) == 0 || string(req.ID) == "null" || req.Method == "" {
				continue // a notification, or not a request
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32603, "message": "mcplogd stdio cannot start: " + err.Error()}})
			_, _ = m.Stdout.Write(append(b, '\n'))
			return err
		case <-timer.C:
			return err
		}
	}
}
