package studio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// ClientOptions configures NewClient.
type ClientOptions struct {
	// URL is VictoriaLogs' base URL (http://host:9428); required.
	URL string

	// Project is the project whose machines the client reads; required.
	Project string

	// HTTP is the client for VictoriaLogs; nil: one with a 30 s timeout.
	HTTP *http.Client
}

// Client reads a project's records from VictoriaLogs. It is safe for
// concurrent use.
type Client struct {
	base *url.URL
	opts ClientOptions
}

var _ oplog.Studio = (*Client)(nil)

// NewClient returns a Client over opts. EINVALID names a missing or bad
// field.
func NewClient(opts ClientOptions) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(opts.URL, "/"))
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, oplog.Errorf(oplog.EINVALID, "studio url: want http://HOST:PORT of VictoriaLogs, got %q", opts.URL)
	}
	if strings.TrimSpace(opts.Project) == "" {
		return nil, oplog.Errorf(oplog.EINVALID, "studio project: missing")
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{base: u, opts: opts}, nil
}

// Project names the project the client reads.
func (c *Client) Project() string { return c.opts.Project }

// row is one row of a VictoriaLogs answer: every value is a string.
type row map[string]string

// query runs a LogsQL query and calls fn with each row of the answer.
// VictoriaLogs unreachable or failing is EUNAVAILABLE; a query it refuses
// is EINTERNAL (the translation's bug), with its message.
func (c *Client) query(ctx context.Context, q string, fn func(row) error) error {
	form := url.Values{"query": {q}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+"/select/logsql/query", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.opts.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &oplog.Error{Code: oplog.EUNAVAILABLE, Message: fmt.Sprintf("studio: VictoriaLogs at %s: %v", c.base.Host, err), Err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		code := oplog.EUNAVAILABLE
		if resp.StatusCode == http.StatusBadRequest {
			code = oplog.EINTERNAL
		}
		return oplog.Errorf(code, "studio: VictoriaLogs answered %s: %s (query: %s)", resp.Status, bytes.TrimSpace(body), oplog.ClipBytes(q, 300))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		r := row{}
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("studio: decode a row of VictoriaLogs' answer: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &oplog.Error{Code: oplog.EUNAVAILABLE, Message: fmt.Sprintf("studio: reading VictoriaLogs' answer: %v", err), Err: err}
	}
	return nil
}

// num is a row's number field; 0 when absent or not a number.
func (r row) num(f string) uint64 {
	n, _ := strconv.ParseUint(r[f], 10, 64)
	return n
}

// time is a row's time field; zero when absent.
func (r row) time(f string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, r[f])
	return t.UTC()
}

// record decodes a row of the studio schema. data.* fields become Data,
// one level deep, their values as strings (VictoriaLogs keeps no types);
// an operation's start is its row's time, its end end_time (zero in rows
// forwarded before they carried it), its arguments those its summary
// holds whole (none when the summary was cut or the text is not one).
func (r row) record() oplog.StudioRecord {
	rec := oplog.StudioRecord{Machine: r["machine"], Revision: r.num("revision"), Record: oplog.Record{
		ID: r.num("id"), Time: r.time("_time"), Source: r["source"], Name: r["name"], Text: r["_msg"],
		Stack: r["stack"], Run: r.num("run"), Tool: r["tool"]}}
	rec.Kind, _ = oplog.ParseKind(r["kind"])
	if rec.Kind == 0 {
		rec.Kind = oplog.KindLine
	}
	rec.Level, _ = oplog.ParseLevel(r["level"])
	if rec.Level == 0 {
		rec.Level = oplog.LevelInfo
	}
	rec.Status, _ = oplog.ParseStatus(r["status"])
	if rec.Kind == oplog.KindOp {
		// An operation's row is at its start; its _msg is its summary,
		// "tool {arguments}", which holds them whole unless cut.
		rec.StartTime, rec.EndTime = rec.Time, r.time("end_time")
		if args, ok := strings.CutPrefix(rec.Text, rec.Tool+" "); ok && json.Valid([]byte(args)) && strings.HasPrefix(args, "{") {
			rec.Arguments = json.RawMessage(args)
		}
	}
	data := map[string]string{}
	for k, v := range r {
		if name, ok := strings.CutPrefix(k, "data."); ok {
			data[name] = v
		}
	}
	if len(data) > 0 {
		rec.Data, _ = json.Marshal(data)
	}
	return rec
}

// Get returns the newest row of record id of machine, of the newest
// revision that has it.
func (c *Client) Get(ctx context.Context, machine string, id uint64) (oplog.StudioRecord, error) {
	if machine == "" {
		return oplog.StudioRecord{}, oplog.Errorf(oplog.EINVALID, "machine: missing: studio scope needs the record's machine with its ID")
	}
	q := streamFilter(c.opts.Project, machine, "") + " id:=" + strconv.FormatUint(id, 10) +
		" | sort by (revision desc, seq desc) | limit 1"
	var out oplog.StudioRecord
	found := false
	err := c.query(ctx, q, func(r row) error {
		out, found = r.record(), true
		return nil
	})
	if err != nil {
		return oplog.StudioRecord{}, err
	}
	if !found {
		return oplog.StudioRecord{}, oplog.Errorf(oplog.ENOTFOUND, "machine %s has no record %d in the studio (project %s)", machine, id, c.opts.Project)
	}
	return out, nil
}
