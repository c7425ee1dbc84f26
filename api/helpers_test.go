package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/client"
)

// testToken is a valid token: 64 hex characters.
var testToken = apitest.Token

// harness is a Server over a real store, behind a real HTTP server on
// 127.0.0.1 (apitest.Harness).
type harness = apitest.Harness

type harnessOptions = apitest.Options

func mustServe(t *testing.T, o *harnessOptions) *harness {
	t.Helper()
	return apitest.MustServe(t, o)
}

// mustCall sends a request with the test token and decodes a wantStatus answer into T.
func mustCall[T any](h *harness, method, path, body string, wantStatus int) T {
	h.T.Helper()
	return apitest.MustCall[T](h, method, path, body, wantStatus)
}

func mustDecode[T any](t *testing.T, b []byte) T {
	t.Helper()
	return apitest.MustDecode[T](t, b)
}

type errorBody = client.ErrorBody

// checkError checks an error answer's status, code and that its message holds each of msgs.
func checkError(t *testing.T, status int, b []byte, wantStatus int, wantCode string, msgs ...string) errorBody {
	t.Helper()
	return apitest.CheckError(t, status, b, wantStatus, wantCode, msgs...)
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
	Template   string          `json:"template"`
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

var (
	observe = apitest.Observe
	within  = apitest.Within
)
