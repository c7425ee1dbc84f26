package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// HTTP ingest configurations: one client sending batches of 1,000, and many
// clients sending one line per request, as engines that log as they go.
var httpConfigs = []struct{ clients, batch int }{{1, 1000}, {8, 1}, {64, 1}}

// benchToken is the bearer token of the benchmark's server.
var benchToken = strings.Repeat("be0c", 16)

// wireLine is a line as engines send it to POST /api/v1/logs.
type wireLine struct {
	Time   string          `json:"time"`
	Level  string          `json:"level"`
	Name   string          `json:"name,omitempty"`
	Source string          `json:"source,omitempty"`
	Text   string          `json:"text"`
	Stack  string          `json:"stack,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// bodies encodes each client's pool of lines (operations have their own
// route and are left out) as request bodies of batch lines, before the clock
// starts.
func (r *runner) bodies(clients, batch int) ([][][]byte, error) {
	pools := r.pools(clients, 1)
	out := make([][][]byte, clients)
	for c, pool := range pools {
		lines := make([]wireLine, 0, len(pool))
		for i := range pool {
			rec := &pool[i]
			if rec.Kind != oplog.KindLine {
				continue
			}
			lines = append(lines, wireLine{Time: rec.Time.Format(time.RFC3339Nano), Level: rec.Level.String(),
				Name: rec.Name, Source: rec.Source, Text: rec.Text, Stack: rec.Stack, Data: rec.Data})
		}
		for i := 0; i+batch <= len(lines); i += batch {
			b, err := json.Marshal(lines[i : i+batch])
			if err != nil {
				return nil, err
			}
			out[c] = append(out[c], b)
		}
		if len(out[c]) == 0 {
			return nil, errors.New("BUG: pool smaller than one batch")
		}
	}
	return out, nil
}

func (r *runner) measureHTTP(ctx context.Context) error {
	r.http = make([]ingestRow, len(httpConfigs))
	rows, fns := make([]*ingestRow, len(httpConfigs)), make([]ingestFunc, len(httpConfigs))
	for i, hc := range httpConfigs {
		r.http[i] = ingestRow{name: fmt.Sprintf("HTTP: %d client(s) × %d line(s) per request", hc.clients, hc.batch),
			writers: hc.clients, batch: hc.batch}
		rows[i] = &r.http[i]
		fns[i] = func(ctx context.Context, dir string) (ingestRun, error) {
			return r.ingestHTTP(ctx, dir, hc.clients, hc.batch)
		}
	}
	return r.measureRounds(ctx, rows, fns)
}

// ingestHTTP serves a new store with the api package on 127.0.0.1 and has
// clients POST /api/v1/logs with batch lines each, checking every answer.
func (r *runner) ingestHTTP(ctx context.Context, dir string, clients, batch int) (ingestRun, error) {
	bodies, err := r.bodies(clients, batch)
	if err != nil {
		return ingestRun{}, err
	}
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		return ingestRun{}, err
	}
	l := oplog.New(db, nil)
	defer l.Close()
	srv, err := api.New(l, &api.Options{Token: benchToken})
	if err != nil {
		return ingestRun{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return ingestRun{}, err
	}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	url := "http://" + ln.Addr().String() + "/api/v1/logs"
	client := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: clients, DisableCompression: true},
		Timeout:   time.Minute,
	}
	defer client.CloseIdleConnections()
	next := make([]int, clients)
	return r.writeLoop(ctx, clients, batch, func(c int) error {
		body := bodies[c][next[c]]
		next[c] = (next[c] + 1) % len(bodies[c])
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+benchToken)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("POST /api/v1/logs: %s: %s", resp.Status, bytes.TrimSpace(b))
		}
		var a struct {
			Count int `json:"count"`
		}
		if err := json.Unmarshal(b, &a); err != nil || a.Count != batch {
			return fmt.Errorf("POST /api/v1/logs: answered %q, want a count of %d", b, batch)
		}
		return nil
	})
}
