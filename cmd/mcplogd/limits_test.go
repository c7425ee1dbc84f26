package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
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

// TestServe_PendingMaxAge_Config: config.json's pendingMaxAge sets the
// age when no flag does, and --pending-max-age wins over it.
func TestServe_PendingMaxAge_Config(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, stop := startServe(t, data, "--addr", "127.0.0.1:0", "--pending-max-age", "0")
	token := readToken(t, data)
	at := func(ago time.Duration) string {
		return `{"tool":"build","time":"` + time.Now().Add(-ago).UTC().Format(time.RFC3339) + `"}`
	}
	days, hours := startOp(t, base, token, at(48*time.Hour)), startOp(t, base, token, at(2*time.Hour))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(data, "config.json")
	if err := os.WriteFile(config, []byte(`{"pendingMaxAge": "1h"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	settled := func(base string, id uint64) {
		t.Helper()
		logtest.Eventually(t, 10*time.Second, "the operation settled as timeout at start", func() bool {
			return getStatus(t, base, token, id) == "timeout"
		})
	}
	// The flag (30h) wins: the two-day-old operation is settled, the
	// two-hour-old one (older than config.json's 1h) is not. Both are
	// settled by the same pass at start.
	base, _, stop = startServe(t, data, "--addr", "127.0.0.1:0", "--pending-max-age", "30h")
	settled(base, days)
	if st := getStatus(t, base, token, hours); st != "pending" {
		t.Fatalf("with --pending-max-age 30h over config.json's 1h: %s, want pending", st)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	// Without the flag config.json's 1h counts (the default, 24h, would
	// leave it pending).
	base, _, stop = startServe(t, data, "--addr", "127.0.0.1:0")
	settled(base, hours)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(`{"pendingMaxAge": "soon"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := newMain(io.Discard, io.Discard, data).Run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0"})
	if err == nil || !strings.Contains(err.Error(), "config.json") || !strings.Contains(err.Error(), "pendingMaxAge") {
		t.Fatalf("config.json's pendingMaxAge \"soon\": %v, want an error naming the file and the key", err)
	}
}
