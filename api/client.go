package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Client calls a running server's API. It is safe for concurrent use.
//
// An answer other than 2xx comes back as an *oplog.Error whose Code follows
// the HTTP status (400 EINVALID, 401 EUNAUTHORIZED, 404 ENOTFOUND, ...) and
// whose Message is the server's; a refused batch also wraps an
// *oplog.BatchError with the record's index. A server that cannot be
// reached gives an EUNAVAILABLE *oplog.Error wrapping the network error.
type Client struct {
	// HTTPClient sends the requests; http.DefaultClient when nil. It must
	// not time out before long polls do (oplog.MaxWait).
	HTTPClient *http.Client

	base  string
	mu    sync.Mutex
	token string
}

// NewClient returns a Client for the server at baseURL (like
// http://127.0.0.1:7170) that sends token.
func NewClient(baseURL, token string) *Client {
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token}
}

// Health returns nil when the server answers /healthz.
func (c *Client) Health(ctx context.Context) error {
	var a healthAnswer
	if err := c.do(ctx, http.MethodGet, "/healthz", nil, nil, &a); err != nil {
		return err
	}
	if a.Status != "ok" {
		return oplog.Errorf(oplog.EUNAVAILABLE, "server at %s reports status %q", c.base, a.Status)
	}
	return nil
}

// wireLine is a line as DecodeLine reads it.
type wireLine struct {
	Time   time.Time       `json:"time,omitzero"`
	Level  string          `json:"level"`
	Name   string          `json:"name,omitempty"`
	Source string          `json:"source,omitempty"`
	Text   string          `json:"text"`
	Stack  string          `json:"stack,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// Append sends recs, which must be lines, as one batch and sets recs[i].ID
// once the server has them on disk. Other fields are not updated; the
// server fills in the defaults (time, source) as oplog.Log.Append does.
func (c *Client) Append(ctx context.Context, recs []oplog.Record) error {
	lines := make([]wireLine, len(recs))
	for i, r := range recs {
		if r.Kind == oplog.KindOp || r.Tool != "" {
			be := &oplog.BatchError{Index: i, Err: oplog.Errorf(oplog.EINVALID, "kind: Append sends lines; record %d is an operation", i)}
			return &oplog.Error{Code: oplog.EINVALID, Message: be.Error(), Err: be}
		}
		lines[i] = wireLine{Time: r.Time, Level: r.Level.String(), Name: r.Name, Source: r.Source, Text: r.Text, Stack: r.Stack, Data: r.Data}
	}
	var a appendAnswer
	if err := c.do(ctx, http.MethodPost, "/api/v1/logs", nil, lines, &a); err != nil {
		return err
	}
	if len(a.IDs) != len(recs) {
		return oplog.Errorf(oplog.EINTERNAL, "server acknowledged %d records of %d", len(a.IDs), len(recs))
	}
	for i, id := range a.IDs {
		recs[i].ID = id
	}
	return nil
}

// Get returns one record; ENOTFOUND when there is none.
func (c *Client) Get(ctx context.Context, id uint64) (oplog.Record, error) {
	var r oplog.Record
	err := c.do(ctx, http.MethodGet, "/api/v1/records/"+strconv.FormatUint(id, 10), nil, nil, &r)
	return r, err
}

// List returns records newest first.
func (c *Client) List(ctx context.Context, q oplog.Query) (oplog.Page, error) {
	v := filterValues(&q.Filter)
	setNum(v, "count", q.Count)
	setNum(v, "offset", q.Offset)
	setNum(v, "before", q.Before)
	var a pageAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/records", v, nil, &a); err != nil {
		return oplog.Page{}, err
	}
	return oplog.Page{Records: a.Records, Total: a.Total, More: a.More}, nil
}

// Tail returns records after q.SinceID oldest first (see oplog.TailQuery); a
// zero q.Kind means any kind, as in oplog. q.Wait long-polls (in whole
// milliseconds, at most oplog.MaxWait).
func (c *Client) Tail(ctx context.Context, q oplog.TailQuery) (oplog.Tail, error) {
	v := filterValues(&q.Filter)
	if q.HasSince {
		v.Set("sinceId", strconv.FormatUint(q.SinceID, 10))
	}
	setNum(v, "revision", q.Revision)
	setNum(v, "limit", q.Limit)
	if q.Wait > 0 {
		v.Set("waitMs", strconv.FormatInt(max(q.Wait.Milliseconds(), 1), 10))
	}
	var a tailAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/tail", v, nil, &a); err != nil {
		return oplog.Tail{}, err
	}
	return oplog.Tail{Lines: a.Lines, LastID: a.LastID, Revision: a.Revision, Dropped: a.Dropped, Reset: a.Reset, More: a.More}, nil
}

// Stats returns the server's store counters.
func (c *Client) Stats(ctx context.Context) (oplog.Stats, error) {
	var a infoAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/info", nil, nil, &a); err != nil {
		return oplog.Stats{}, err
	}
	return a.stats(), nil
}

func (a *infoAnswer) stats() oplog.Stats {
	return oplog.Stats{Revision: a.Revision, GenStart: a.GenStart, FirstID: a.FirstID, LastID: a.LastID,
		Records: a.Records, Bytes: a.Bytes, Trimmed: a.Trimmed, TrimmedThrough: a.TrimmedThrough, Counts: countsArray(a.Counts)}
}

// RotateToken asks the server for a new token and returns it; the Client
// sends it from then on, and the old one stops working at once.
func (c *Client) RotateToken(ctx context.Context) (string, error) {
	var a tokenAnswer
	if err := c.do(ctx, http.MethodPost, "/api/v1/token/rotate", nil, nil, &a); err != nil {
		return "", err
	}
	c.mu.Lock()
	c.token = a.Token
	c.mu.Unlock()
	return a.Token, nil
}

// filterValues encodes f as query parameters. Kind is always sent, "any"
// for zero, because the server's default differs between routes.
func filterValues(f *oplog.Filter) url.Values {
	v := url.Values{}
	set := func(name, s string) {
		if s != "" {
			v.Set(name, s)
		}
	}
	set("level", f.MinLevel.String())
	set("name", f.Name)
	set("source", f.Source)
	v.Set("kind", "any")
	set("kind", f.Kind.String())
	for name, t := range map[string]time.Time{"since": f.Since, "until": f.Until} {
		if !t.IsZero() {
			v.Set(name, t.UTC().Format(time.RFC3339Nano))
		}
	}
	return v
}

func setNum[N int | uint64](v url.Values, name string, n N) {
	if n != 0 {
		v.Set(name, fmt.Sprint(n))
	}
}

// do sends a request with in (when not nil) as its JSON body and decodes a
// 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.mu.Lock()
	req.Header.Set("Authorization", "Bearer "+c.token)
	c.mu.Unlock()
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &oplog.Error{Code: oplog.EUNAVAILABLE, Message: fmt.Sprintf("cannot reach mcplogd at %s: %v", c.base, err), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return answerError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return &oplog.Error{Code: oplog.EINTERNAL, Message: fmt.Sprintf("%s %s: unreadable answer: %v", method, path, err), Err: err}
	}
	return nil
}

// answerError turns an error answer into an *oplog.Error with the server's message.
func answerError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var eb errorBody
	if json.Unmarshal(b, &eb) != nil || eb.Message == "" {
		eb.Message = strings.TrimSpace(string(b))
		if eb.Message == "" {
			eb.Message = resp.Status
		}
	}
	e := &oplog.Error{Code: errorCode(resp.StatusCode), Message: eb.Message}
	if eb.Index != nil {
		e.Err = &oplog.BatchError{Index: *eb.Index, Err: &oplog.Error{Code: e.Code, Message: eb.Message}}
	}
	return e
}
