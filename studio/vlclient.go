package studio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// vlclient is the forwarder's side of VictoriaLogs' HTTP API: JSON-lines
// ingest, LogsQL queries for reconciliation, and the retention it runs
// with. base is a single node's or a cluster front's root URL.
type vlclient struct {
	base  string // no trailing slash; user:password@ in it authenticates (basic auth)
	shown string // base without the password, for status and logs
	hc    *http.Client
}

// redact returns base with its password, if any, replaced by xxxxx.
func redact(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return u.Redacted()
}

// ingestPath is the JSON-lines ingest with this package's schema: the
// stream fields, and _msg and _time under their own names.
const ingestPath = "/insert/jsonline?_stream_fields=project,machine,source&_msg_field=_msg&_time_field=_time"

// ParseURL checks a VictoriaLogs root URL as --studio takes it
// (http://host:9428, or http://user:password@host:9428 behind basic auth):
// http or https, a host, no query.
func ParseURL(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("studio URL %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.RawQuery != "" {
		return "", fmt.Errorf("studio URL %q: want VictoriaLogs' root, e.g. http://127.0.0.1:9428", s)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// errRefused marks an answer of VictoriaLogs that refuses rows for now: HTTP
// 429 (a full disk, or over its ingestion limits) or 503.
var errRefused = errors.New("VictoriaLogs refuses rows for now (full, or over its limits)")

// errNotSent marks a send that failed before VictoriaLogs could have read
// any of it (it could not be reached): the same rows may go again as they are.
var errNotSent = errors.New("not sent")

// insert posts body (JSON lines) and returns nil on a 2xx answer. An error
// wrapping errNotSent means nothing reached VictoriaLogs.
func (c *vlclient) insert(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+ingestPath, bytes.NewReader(body))
	if err != nil {
		return err
	}
	// A form content type gets 200 and nothing stored.
	req.Header.Set("Content-Type", "application/stream+json")
	resp, err := c.hc.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return fmt.Errorf("%w: %w", errNotSent, err)
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			return fmt.Errorf("%w: it answered %s: %s", errRefused, resp.Status, strings.TrimSpace(string(msg)))
		}
		return fmt.Errorf("VictoriaLogs answered %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

// ping asks VictoriaLogs' /health whether it answers.
func (c *vlclient) ping(ctx context.Context) error {
	return c.get(ctx, "/health")
}

// flush asks VictoriaLogs to make the rows it took searchable now
// (/internal/force_flush), so that counting them does not find rows it
// holds missing. A front of a cluster may not have it: its error says so.
func (c *vlclient) flush(ctx context.Context) error {
	return c.get(ctx, "/internal/force_flush")
}

func (c *vlclient) get(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("VictoriaLogs %s answered %s", path, resp.Status)
	}
	return nil
}

// query runs a LogsQL query over all time, refusing a partial answer (a
// storage node down), and calls each with every row the answer holds.
func (c *vlclient) query(ctx context.Context, q string, each func(map[string]string) error) error {
	form := url.Values{"query": {q}, "allow_partial_response": {"0"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/select/logsql/query", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("VictoriaLogs query answered %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		row := map[string]string{}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return fmt.Errorf("VictoriaLogs query answer: %w", err)
		}
		if err := each(row); err != nil {
			return err
		}
	}
	return sc.Err()
}

// retentionFlag finds -retentionPeriod in the /flags page.
var retentionFlag = regexp.MustCompile(`(?m)^-retentionPeriod="?([0-9.a-zA-Z]+)"?`)

// retention returns the -retentionPeriod VictoriaLogs reports on /flags;
// 0 when it reports none.
func (c *vlclient) retention(ctx context.Context) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/flags", nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0, err
	}
	m := retentionFlag.FindSubmatch(b)
	if m == nil {
		return 0, nil
	}
	return parseVMDuration(string(m[1]))
}

// parseVMDuration parses VictoriaMetrics' durations: "7d", "100y", "2w",
// "1h30m"; a bare number is months, as -retentionPeriod takes it.
func parseVMDuration(s string) (time.Duration, error) {
	units := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour,
		"d": 24 * time.Hour, "w": 7 * 24 * time.Hour, "y": 365 * 24 * time.Hour}
	if s == "" {
		return 0, errors.New("empty duration")
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * 31 * 24 * float64(time.Hour)), nil
	}
	var total float64
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return 0, fmt.Errorf("duration %q", s)
		}
		j := i
		for j < len(s) && (s[j] < '0' || s[j] > '9') {
			j++
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		u, ok := units[strings.ToLower(s[i:j])]
		if err != nil || !ok {
			return 0, fmt.Errorf("duration %q", s)
		}
		total += n * float64(u)
		s = s[j:]
	}
	return time.Duration(min(total, float64(1<<62))), nil
}
