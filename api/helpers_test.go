package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// testToken is a valid token: 64 hex characters.
var testToken = strings.Repeat("0123456789abcdef", 4)

// harness is a Server over a real store, behind a real HTTP server on 127.0.0.1.
type harness struct {
	t   *testing.T
	log *oplog.Log
	srv *api.Server
	url string
}

type harnessOptions struct {
	api   api.Options
	store *store.Options
	// wrap, when set, wraps the server's handler (to observe requests).
	wrap func(http.Handler) http.Handler
}

func mustServe(t *testing.T, o *harnessOptions) *harness {
	t.Helper()
	if o == nil {
		o = &harnessOptions{}
	}
	l, _ := logtest.MustOpenLog(t, o.store)
	if o.api.Token == "" {
		o.api.Token = testToken
	}
	s, err := api.New(l, &o.api)
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	h := s.Handler()
	if o.wrap != nil {
		h = o.wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close) // before the log closes: cleanups run last first
	return &harness{t: t, log: l, srv: s, url: ts.URL}
}

// send sends a request with the given Authorization header (none when
// empty) and returns the status and body. It does not stop the test, so it
// works from other goroutines.
func (h *harness) send(ctx context.Context, method, path, auth string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, h.url+path, body)
	if err != nil {
		return 0, nil, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// call sends a request with the test token.
func (h *harness) call(method, path, body string) (int, []byte) {
	h.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	status, b, err := h.send(context.Background(), method, path, "Bearer "+testToken, r)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	return status, b
}

// mustCall sends a request with the test token and decodes a wantStatus answer into T.
func mustCall[T any](h *harness, method, path, body string, wantStatus int) T {
	h.t.Helper()
	status, b := h.call(method, path, body)
	if status != wantStatus {
		h.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, status, wantStatus, b)
	}
	return mustDecode[T](h.t, b)
}

func mustDecode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// errorBody is the JSON shape of every error answer.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Index   *int   `json:"index"`
}

// checkError checks an error answer's status, code and that its message holds each of msgs.
func checkError(t *testing.T, status int, b []byte, wantStatus int, wantCode string, msgs ...string) errorBody {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status %d, want %d; body %s", status, wantStatus, b)
	}
	e := mustDecode[errorBody](t, b)
	if e.Code != wantCode {
		t.Errorf("code %q, want %q; body %s", e.Code, wantCode, b)
	}
	for _, m := range msgs {
		if !strings.Contains(e.Message, m) {
			t.Errorf("message %q does not contain %q", e.Message, m)
		}
	}
	return e
}

// record is a record as the API returns it.
type record struct {
	ID         uint64          `json:"id"`
	Kind       string          `json:"kind"`
	Time       time.Time       `json:"time"`
	Source     string          `json:"source"`
	Name       string          `json:"name"`
	Level      string          `json:"level"`
	Text       string          `json:"text"`
	Stack      string          `json:"stack"`
	Data       json.RawMessage `json:"data"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	Status     string          `json:"status"`
	IsComplete *bool           `json:"isComplete"`
	Result     json.RawMessage `json:"result"`
	Error      string          `json:"error"`
	StartTime  time.Time       `json:"startTime"`
	EndTime    time.Time       `json:"endTime"`
}

type appendAnswer struct {
	Count   int      `json:"count"`
	FirstID uint64   `json:"firstId"`
	LastID  uint64   `json:"lastId"`
	IDs     []uint64 `json:"ids"`
}

type pageAnswer struct {
	Records []record `json:"records"`
	Total   int64    `json:"total"`
	More    bool     `json:"more"`
}

type tailAnswer struct {
	Lines    []record `json:"lines"`
	LastID   uint64   `json:"lastId"`
	Revision uint64   `json:"revision"`
	Dropped  uint64   `json:"dropped"`
	Reset    bool     `json:"reset"`
	More     bool     `json:"more"`
}

func texts(recs []record) string {
	s := make([]string, len(recs))
	for i, r := range recs {
		s[i] = r.Text
	}
	return strings.Join(s, ",")
}

// observe returns a wrap function that reports on arrived when a request
// for path reaches the server and on done when its handler returned.
func observe(path string, arrived, done chan<- struct{}) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path {
				next.ServeHTTP(w, r)
				return
			}
			if arrived != nil {
				arrived <- struct{}{}
			}
			next.ServeHTTP(w, r)
			if done != nil {
				done <- struct{}{}
			}
		})
	}
}

// within waits for ch until the deadline, which only a broken feature reaches.
func within(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: nothing after %s", what, d)
	}
}
