package client

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

// MCPEndpoint returns the URL of the server's MCP endpoint
// (baseURL/mcp/{token}, with the token RotateToken last set), for an MCP
// client of the same server; this package itself speaks only the REST API.
func (c *Client) MCPEndpoint() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base + "/mcp/" + c.token
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
	if f.Kind == oplog.KindLine {
		v.Set("markers", strconv.FormatBool(f.WithMarkers))
	}
	if f.Runs != nil {
		for src, run := range f.Runs {
			v.Add("runs", src+":"+strconv.FormatUint(run, 10))
		}
		if len(f.Runs) == 0 {
			v.Set("runs", "")
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
	var eb ErrorBody
	if json.Unmarshal(b, &eb) != nil || eb.Message == "" {
		eb.Message = strings.TrimSpace(string(b))
		if eb.Message == "" {
			eb.Message = resp.Status
		}
	}
	e := &oplog.Error{Code: oplog.CodeForHTTPStatus(resp.StatusCode), Message: eb.Message}
	if eb.Index != nil {
		e.Err = &oplog.BatchError{Index: *eb.Index, Err: &oplog.Error{Code: e.Code, Message: eb.Message}}
	}
	return e
}

// ErrorBody is the JSON of every error answer of the API:
//
//	{"code":"invalid","message":"record 3: level: unknown level \"loud\"","index":3}
//
// Code is an oplog error code; Index is set only when one record of a
// batch was refused.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Index   *int   `json:"index,omitempty"`
}
