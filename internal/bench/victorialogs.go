package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/vlnode"
	"github.com/mcplogd/mcplogd/oplog"
)

// VictoriaLogs beside mcplogd: in each round of the burst, a single node of
// the pinned release (vlnode.Version) as a child process takes the same
// lines in the same requests of burstBatch, as JSON lines, from
// burstClients clients; then the time until the newest line is found, the
// same newest-50 reads once it has settled (flushed, no merge running),
// the bytes of its data folder and its RSS.
const (
	// vlIngestPath takes JSON lines with the fields under their own names
	// and one stream per source.
	vlIngestPath = "/insert/jsonline?_stream_fields=source&_msg_field=_msg&_time_field=_time"
	// vlSettleLimit is how long a flush and its merges may take.
	vlSettleLimit = 2 * time.Minute
	// vlMissing is the column's text when the binary is not installed.
	vlMissing = "not installed (scripts/need-victoria-logs)"
)

// vlFlags are the node's flags: the workload's times are of 2026-01-01 on,
// which the default retention (7 days) would refuse. The rest is default.
var vlFlags = []string{"-retentionPeriod=100y"}

// vlLine is a burst line as VictoriaLogs is sent it: the text as _msg,
// the other fields as fields (data's keys become data.<key> on ingest).
type vlLine struct {
	Msg    string          `json:"_msg"`
	Time   string          `json:"_time"`
	Level  string          `json:"level"`
	Name   string          `json:"name,omitempty"`
	Source string          `json:"source,omitempty"`
	Kind   string          `json:"kind"`
	Stack  string          `json:"stack,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// encodeVL encodes lines as the requests VictoriaLogs is sent, burstBatch
// lines each, in the order of d.bodies.
func (d *burstData) encodeVL(lines []wireLine) error {
	for i := 0; i < len(lines); i += burstBatch {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, l := range lines[i:min(i+burstBatch, len(lines))] {
			if err := enc.Encode(vlLine{Msg: l.Text, Time: l.Time, Level: l.Level, Name: l.Name, Source: l.Source,
				Kind: oplog.KindLine.String(), Stack: l.Stack, Data: l.Data}); err != nil {
				return err
			}
		}
		d.vlBodies = append(d.vlBodies, b.Bytes())
		d.vlBytes += int64(b.Len())
	}
	return nil
}

// vlRun is one burst into a new VictoriaLogs.
type vlRun struct {
	ingest  time.Duration // from the first request to the last answer
	catchUp time.Duration // from the last answer until the newest line was found
	newest  []latency     // of newestShapes, settled
	samples int           // the fewest reads of a shape
	bytes   int64         // the data folder, settled
	rss     int64         // the process's, settled; -1 when unknown
}

func (v vlRun) rate(lines int) float64 { return float64(lines) / v.ingest.Seconds() }

// vlServer is the running node and the client every request goes through.
type vlServer struct {
	node   *vlnode.Node
	client *http.Client
}

// measureVL runs the burst once into a new VictoriaLogs, unless the binary
// is not installed (the column then says so).
func (r *runner) measureVL(ctx context.Context) error {
	bin := r.findVL()
	if bin == "" {
		r.burst.vlSkipped = vlMissing
		r.progress("VictoriaLogs skipped: %s", vlMissing)
		return nil
	}
	dir, remove, err := r.runDir("victorialogs")
	if err != nil {
		return err
	}
	defer remove()
	node, err := vlnode.Start(ctx, bin, filepath.Join(dir, "data"), vlFlags...)
	if err != nil {
		return err
	}
	defer node.Stop()
	v := &vlServer{node: node, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: burstClients + 1, DisableCompression: true}}}
	defer v.client.CloseIdleConnections()
	run, err := r.vlOnce(ctx, v)
	if err != nil {
		return err
	}
	r.burst.vl = append(r.burst.vl, run)
	d := r.burst.data
	r.progress("VictoriaLogs %s: %d lines in %.2fs, %.0f lines/s; the newest found %.2fs after; newest 50 of a word p50 %s "+
		"(%d reads or more); %s on disk, RSS %s", vlnode.Version, d.lines, run.ingest.Seconds(), run.rate(d.lines), run.catchUp.Seconds(),
		dur(run.newest[newestWord].p50), run.samples, mib(run.bytes), mib(run.rss))
	return nil
}

// findVL is vlnode.Binary, unless a test put another in runner.vlBinary.
func (r *runner) findVL() string {
	if r.vlBinary != nil {
		return r.vlBinary()
	}
	return vlnode.Binary()
}

// vlOnce sends the burst, waits for its newest line, settles, and measures.
func (r *runner) vlOnce(ctx context.Context, v *vlServer) (vlRun, error) {
	d := r.burst.data
	post := func(body []byte) error { return v.post(ctx, body) }
	start := time.Now()
	if err := sendConcurrently(d.vlBodies[:len(d.vlBodies)-1], post); err != nil {
		return vlRun{}, err
	}
	if err := post(d.vlBodies[len(d.vlBodies)-1]); err != nil {
		return vlRun{}, err
	}
	end := time.Now()
	run := vlRun{ingest: end.Sub(start)}
	if err := v.waitFound(ctx, burstWord); err != nil {
		return vlRun{}, err
	}
	run.catchUp = time.Since(end)
	if err := v.settle(ctx); err != nil {
		return vlRun{}, err
	}
	var err error
	run.newest, run.samples, err = timeNewest(r.burst.newestShapes, min(r.cfg.Samples, 500), func(sh *newestShape) (time.Duration, int, error) {
		body, took, err := timedGet(ctx, v.client, v.node.URL+"/select/logsql/query?"+vlQuery(sh.logsql).Encode(), "")
		return took, bytes.Count(body, []byte("\n")), err
	})
	if err != nil {
		return vlRun{}, err
	}
	run.bytes = fileBytes(v.node.DataPath)
	run.rss = readProcStatusFile(fmt.Sprintf("/proc/%d/status", v.node.PID())).rss
	return run, nil
}

// vlQuery is the query arguments of the newest 50 rows of a LogsQL
// filter, newest first, over all time.
func vlQuery(filter string) url.Values {
	return url.Values{"query": {filter + " | sort by (_time desc) | limit 50"}}
}

// post sends one request of JSON lines.
func (v *vlServer) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.node.URL+vlIngestPath, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/stream+json")
	resp, err := v.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %.300s", vlIngestPath, resp.Status, bytes.TrimSpace(b))
	}
	return nil
}

// waitFound asks for word until a row has it, or burstCatchUpLimit passes.
func (v *vlServer) waitFound(ctx context.Context, word string) error {
	ctx, cancel := context.WithTimeout(ctx, burstCatchUpLimit)
	defer cancel()
	u := v.node.URL + "/select/logsql/query?" + vlQuery(word).Encode()
	for {
		body, _, err := timedGet(ctx, v.client, u, "")
		if err != nil {
			return fmt.Errorf("waiting for the newest line: %w", err)
		}
		if len(bytes.TrimSpace(body)) > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the newest line was not found within %s: %w", burstCatchUpLimit, ctx.Err())
		case <-time.After(burstPoll):
		}
	}
}

// settle flushes what the node holds in memory to disk
// (/internal/force_flush) and waits until its metrics show no pending
// rows, no in-memory part and no merge running.
func (v *vlServer) settle(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, vlSettleLimit)
	defer cancel()
	if _, _, err := timedGet(ctx, v.client, v.node.URL+"/internal/force_flush", ""); err != nil {
		return err
	}
	for {
		body, _, err := timedGet(ctx, v.client, v.node.URL+"/metrics", "")
		if err != nil {
			return err
		}
		busy := vlBusy(body)
		if busy == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("VictoriaLogs did not settle within %s (%s): %w", vlSettleLimit, busy, ctx.Err())
		case <-time.After(burstPoll):
		}
	}
}

// vlBusy returns the first metric of a Prometheus text that says the node
// has work left (rows pending, an in-memory part, a merge), "" if none.
func vlBusy(metrics []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(metrics))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || !(strings.HasPrefix(name, "vl_pending_rows{") || strings.HasPrefix(name, "vl_active_merges{") ||
			strings.HasPrefix(name, "vl_active_force_merges") || name == `vl_storage_parts{type="storage/inmemory"}`) {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil && f != 0 {
			return sc.Text()
		}
	}
	return ""
}
