package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestServe_Metrics checks the wiring: the store's commits reach GET /metrics.
func TestServe_Metrics(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0")
	token := readToken(t, data)
	if code, body := post(t, base+"/api/v1/logs", token, `{"level":"warn","source":"unity","text":"hot"}`); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`mcplogd_records_appended_total{kind="line",level="warn"} 1`,
		`mcplogd_source_records_appended_total{source="unity"} 1`,
		`mcplogd_store_commit_duration_seconds_count 1`,
		`mcplogd_index_lag_records`,
		`mcplogd_store_file_bytes`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, b)
		}
	}
}
