package apitest

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
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// Token is a valid token: 64 hex characters.
var Token = strings.Repeat("0123456789abcdef", 4)

// Harness is a Server over a real store, behind a real HTTP server on 127.0.0.1.
type Harness struct {
	T   testing.TB
	Log *oplog.Log
	DB  *store.DB
	Srv *api.Server
	URL string
}

// Options configures MustServe; the zero Options serves with defaults.
type Options struct {
	// API configures the server; Token defaults to Token.
	API api.Options
	// Store configures the store; nil: defaults.
	Store *store.Options
	// Wrap, when set, wraps the server's handler (to observe requests).
	Wrap func(http.Handler) http.Handler
	// Setup, when set, runs after the log opens and before the server is
	// made: it may add routes and hooks to API that need the log.
	Setup func(l *oplog.Log, db *store.DB, o *api.Options)
}

// MustServe serves a fresh store; everything closes at the test's end.
func MustServe(t testing.TB, o *Options) *Harness {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	l, db := logtest.MustOpenLog(t, o.Store)
	if o.API.Token == "" {
		o.API.Token = Token
	}
	if o.Setup != nil {
		o.Setup(l, db, &o.API)
	}
	s, err := api.New(l, &o.API)
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	h := s.Handler()
	if o.Wrap != nil {
		h = o.Wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close) // before the log closes: cleanups run last first
	return &Harness{T: t, Log: l, DB: db, Srv: s, URL: ts.URL}
}

// Send sends a request with the given Authorization header (none when
// empty) and returns the status and body. It does not stop the test, so it
// works from other goroutines.
func (h *Harness) Send(ctx context.Context, method, path, auth string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, h.URL+path, body)
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

// Call sends a request with the test token.
func (h *Harness) Call(method, path, body string) (int, []byte) {
	h.T.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	status, b, err := h.Send(context.Background(), method, path, "Bearer "+Token, r)
	if err != nil {
		h.T.Fatalf("%s %s: %v", method, path, err)
	}
	return status, b
}

// MustCall sends a request with the test token and decodes a wantStatus answer into T.
func MustCall[T any](h *Harness, method, path, body string, wantStatus int) T {
	h.T.Helper()
	status, b := h.Call(method, path, body)
	if status != wantStatus {
		h.T.Fatalf("%s %s: status %d, want %d; body %s", method, path, status, wantStatus, b)
	}
	return MustDecode[T](h.T, b)
}

// MustDecode decodes JSON b into a T.
func MustDecode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// CheckError checks an error answer's status, code and that its message holds each of msgs.
func CheckError(t testing.TB, status int, b []byte, wantStatus int, wantCode string, msgs ...string) client.ErrorBody {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status %d, want %d; body %s", status, wantStatus, b)
	}
	e := MustDecode[client.ErrorBody](t, b)
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

// Observe returns a wrap function that reports on arrived when a request
// for path reaches the server and on done when its handler returned.
func Observe(path string, arrived, done chan<- struct{}) func(http.Handler) http.Handler {
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

// Within waits for ch until the deadline, which only a broken feature reaches.
func Within(t testing.TB, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: nothing after %s", what, d)
	}
}
