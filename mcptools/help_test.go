package mcptools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// TestHelp_SmallByDefault: help lists every tool in one line each (name,
// summary, required arguments), within 4 KB for 15 tools; help {tool}
// gives that tool whole.
func TestHelp_SmallByDefault(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	cs := connect(t, l)
	text, sc, size := callTool(t, cs, "help", map[string]any{})
	var all struct {
		Tools []struct {
			Name      string          `json:"name"`
			Summary   string          `json:"summary"`
			Required  []string        `json:"required"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(sc, &all); err != nil {
		t.Fatal(err)
	}
	if size > 4<<10 || len(all.Tools) < 15 {
		t.Errorf("help {}: %d bytes for %d tools, want ≤ 4096", size, len(all.Tools))
	}
	t.Logf("help {}: %d bytes for %d tools", size, len(all.Tools))
	for _, h := range all.Tools {
		if h.Summary == "" || h.Arguments != nil || len([]rune(h.Summary)) > 81 {
			t.Errorf("help {}: %s: summary %q, arguments %s", h.Name, h.Summary, h.Arguments)
		}
		if !strings.Contains(text, "\n"+h.Name) {
			t.Errorf("help {}: text has no line for %s:\n%s", h.Name, text)
		}
		if h.Name == "append_log" && (len(h.Required) != 1 || h.Required[0] != "text" || !strings.Contains(text, "\nappend_log (text): ")) {
			t.Errorf("help {}: append_log required %q\n%s", h.Required, text)
		}
	}

	text, sc, _ = callTool(t, cs, "help", map[string]any{"tool": "find_crashes"})
	var one struct {
		Tools []struct {
			Description string         `json:"description"`
			Example     map[string]any `json:"example"`
			Arguments   []struct {
				Name    string          `json:"name"`
				Default json.RawMessage `json:"default"`
			} `json:"arguments"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(sc, &one); err != nil {
		t.Fatal(err)
	}
	if len(one.Tools) != 1 || one.Tools[0].Description == "" || one.Tools[0].Example == nil || len(one.Tools[0].Arguments) < 5 {
		t.Fatalf("help find_crashes: %s", sc)
	}
	for _, want := range []string{"help: find_crashes\n", "\n  limit integer = 20: ", "\n  maxBytes integer: ", "\nexample: find_crashes {"} {
		if !strings.Contains(text, want) {
			t.Errorf("help find_crashes: text lacks %q:\n%s", want, text)
		}
	}
}

// TestInstructions_CrashFirst: the server's instructions lead with
// find_crashes, then get_log_details, search_logs and console_tail.
func TestInstructions_CrashFirst(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	ins := connect(t, l).InitializeResult().Instructions
	last := -1
	for _, tool := range []string{"find_crashes", "get_log_details", "search_logs", "console_tail"} {
		i := strings.Index(ins, tool)
		if i <= last {
			t.Errorf("instructions: %s at %d, not after the tool before it (%d):\n%s", tool, i, last, ins)
		}
		last = i
	}
	if len(ins) > 1024 {
		t.Errorf("instructions are %d bytes, want ≤ 1024", len(ins))
	}
}
