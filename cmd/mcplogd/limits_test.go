package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func getStatus(t *testing.T, base, token string, id uint64) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/operations/"+jsonNum(id), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r.Status
}

func jsonNum(id uint64) string { b, _ := json.Marshal(id); return string(b) }

func startOp(t *testing.T, base, token, body string) uint64 {
	t.Helper()
	code, out := post(t, base+"/api/v1/operations", token, body)
	if code != http.StatusCreated {
		t.Fatalf("start operation: %d %s", code, out)
	}
	var r struct{ ID uint64 }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// TestServe_PendingMaxAge: an operation started through the API two days
// ago and never completed is settled as timeout when a server with the
// default --pending-max-age (24h) starts; one started now stays pending.
func TestServe_PendingMaxAge(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, stop := startServe(t, data, "--addr", "127.0.0.1:0", "--pending-max-age", "0")
	token := readToken(t, data)
	old := startOp(t, base, token, `{"tool":"build","time":"`+time.Now().Add(-48*time.Hour).UTC().Format(time.RFC3339)+`"}`)
	fresh := startOp(t, base, token, `{"tool":"build"}`)
	if st := getStatus(t, base, token, old); st != "pending" {
		t.Fatalf("with --pending-max-age 0: %s, want pending", st)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	base, _, _ = startServe(t, data, "--addr", "127.0.0.1:0")
	deadline := time.Now().Add(10 * time.Second)
	for getStatus(t, base, token, old) != "timeout" {
		if time.Now().After(deadline) {
			t.Fatal("the two-day-old operation was not settled as timeout at start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := getStatus(t, base, token, fresh); st != "pending" {
		t.Fatalf("an operation started now: %s, want pending", st)
	}
}

// TestToken_New_EndsStream: `token --new` beside a running server ends an
// event stream opened with the old token.
func TestToken_New_EndsStream(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/stream", nil)
	req.Header.Set("Authorization", "Bearer "+readToken(t, data))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	ended := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(resp.Body)
		ended <- string(b)
	}()
	if _, err := run(t, data, "token", "--new"); err != nil {
		t.Fatal(err)
	}
	if code, _ := post(t, base+"/api/v1/logs", readToken(t, data), `{"level":"info","text":"after rotation"}`); code != http.StatusOK {
		t.Fatalf("append with the new token: %d", code)
	}
	select {
	case got := <-ended:
		if strings.Contains(got, "after rotation") {
			t.Fatal("the old token's stream received a line appended after the rotation")
		}
	case <-ctx.Done():
		t.Fatal("the old token's stream did not end")
	}
}
