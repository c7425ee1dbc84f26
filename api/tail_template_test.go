package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestServer_Tail_Template: the tail and the stream give each console line
// the template of its text's first line (what the page collapses runs by),
// and none to an operation or to a line whose first line is past
// oplog.MaxTemplateInput, whose JSON then has no template at all.
func TestServer_Tail_Template(t *testing.T) {
	h := mustServe(t, nil)
	long := strings.Repeat("x", oplog.MaxTemplateInput+1) + " 1"
	body, _ := json.Marshal([]map[string]string{
		{"level": "info", "text": "Snapshot 1234 sent to peer 10.0.0.7:7777"},
		{"level": "info", "text": "Snapshot 9 sent to peer 10.0.0.9:7777\nretry 3"},
		{"level": "info", "text": long},
	})
	mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", string(body), http.StatusOK)
	mustCall[record](h, http.MethodPost, "/api/v1/operations", `{"tool":"T","text":"op 5"}`, http.StatusCreated)
	const tmpl = "Snapshot <N> sent to peer <IP>"
	want := []string{tmpl, tmpl, "", ""}

	status, b := h.Call(http.MethodGet, "/api/v1/tail?sinceId=0&kind=any", "")
	if status != http.StatusOK {
		t.Fatalf("tail: %d %s", status, b)
	}
	a := mustDecode[tailAnswer](t, b)
	if len(a.Lines) != len(want) {
		t.Fatalf("tail: %d records, want %d: %s", len(a.Lines), len(want), b)
	}
	for i, r := range a.Lines {
		if r.Template != want[i] {
			t.Errorf("tail record %d (%.40q): template %q, want %q", i, r.Text, r.Template, want[i])
		}
	}
	if n := bytes.Count(b, []byte(`"template":`)); n != 2 {
		t.Errorf("tail: %d template fields, want 2 (omitted when empty): %.600s", n, b)
	}
	if op := a.Lines[3]; op.Kind != "op" || op.Tool != "T" || !bytes.Contains(b, []byte(`"isComplete"`)) {
		t.Errorf("the operation lost fields of its JSON: %+v", op)
	}

	_, s := nextLines(t, openStream(t, h, "/api/v1/stream?sinceId=0", ""))
	if len(s.Lines) != 3 {
		t.Fatalf("stream: %d lines, want 3: %+v", len(s.Lines), s)
	}
	for i, l := range s.Lines {
		if l.Template != want[i] {
			t.Errorf("stream line %d: template %q, want %q", i, l.Template, want[i])
		}
	}
}
