package api_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/agentload"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// tsCall is one call interop/lib/call-tools.mjs makes and what it printed.
type tsCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

type tsResult struct {
	Result struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool                       `json:"isError"`
		Tools   []json.RawMessage          `json:"tools"`
		Struct  map[string]json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Bytes int `json:"bytes"`
}

func (r tsResult) text() string {
	var b strings.Builder
	for _, c := range r.Result.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// tsCalls makes calls through the TypeScript SDK client against h.
func tsCalls(t *testing.T, h *harness, calls ...tsCall) []tsResult {
	t.Helper()
	node, script := typescriptClient(t)
	script = filepath.Join(filepath.Dir(script), "call-tools.mjs")
	in, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), node, script, mcpURL(h), string(in)).Output()
	var res []tsResult
	if err != nil || json.Unmarshal(out, &res) != nil || len(res) != len(calls) {
		t.Fatalf("the TypeScript client: %v\n%.2000s", err, out)
	}
	for i, r := range res {
		if r.Result.IsError {
			t.Fatalf("%s %v: tool error %s", calls[i].Name, calls[i].Arguments, r.text())
		}
	}
	return res
}

// TestAgentStore_TypeScriptSummaries: on the agent store, through the
// TypeScript SDK client, the answers an agent reads first: tools/list and
// the default console_tail within 16 KiB, the flood as one ×N line covering
// at least the records the uncollapsed answer covers, log_stats within 4 KiB
// naming the most frequent template and the newest crash group; then, with
// two runs of an editor appended (an error fixed, another new), numbered
// repeats and a crash: compare_runs names both errors, console_tail shows the
// repeats as one line and search_logs for "crash" finds "crashed".
func TestAgentStore_TypeScriptSummaries(t *testing.T) {
	s := mustServeAgentStore(t)
	f := s.facts
	res := tsCalls(t, s.harness,
		tsCall{Name: "tools/list"},
		tsCall{Name: "console_tail"},
		tsCall{Name: "console_tail", Arguments: map[string]any{"collapse": false}},
		tsCall{Name: "console_tail", Arguments: map[string]any{"sinceId": f.FloodFirst - 1}},
		tsCall{Name: "console_tail", Arguments: map[string]any{"sinceId": f.FloodFirst - 1, "collapse": false}},
		tsCall{Name: "log_stats"},
	)
	if n := res[0].Bytes; n > 16<<10 || len(res[0].Result.Tools) < 10 {
		t.Errorf("tools/list: %d bytes, %d tools; want at most 16 KiB", n, len(res[0].Result.Tools))
	}
	tail, whole := res[1], res[2]
	if tail.Bytes > 16<<10 {
		t.Errorf("console_tail {}: %d bytes; want at most 16 KiB", tail.Bytes)
	}
	if first, last := tsSpan(t, tail.text()); last != f.LastID || first > tsFirst(t, whole.text()) {
		t.Errorf("console_tail {} covers #%d..#%d; want up to #%d and from #%d or before (what collapse=false covers)",
			first, last, f.LastID, tsFirst(t, whole.text()))
	}
	flood, floodWhole := res[3].text(), res[4].text()
	m := regexp.MustCompile(`(?m)^#` + strconv.FormatUint(f.FloodFirst, 10) + `\.\.#(\d+) ×(\d+) .*` + regexp.QuoteMeta(agentload.ShaderWarning) + `$`).FindStringSubmatch(flood)
	if m == nil {
		t.Fatalf("console_tail from the flood: no ×N line from #%d:\n%.1500s", f.FloodFirst, flood)
	}
	if last, _ := strconv.ParseUint(m[1], 10, 64); last < tsLastID(t, floodWhole) || m[2] == "1" {
		t.Errorf("the flood's line ends at #%s (×%s); collapse=false reaches #%d", m[1], m[2], tsLastID(t, floodWhole))
	}
	stats := res[5].text()
	if res[5].Bytes > 4<<10 {
		t.Errorf("log_stats: %d bytes; want at most 4 KiB", res[5].Bytes)
	}
	top, n := noisiestTemplate(t, s.harness)
	if first := regexp.MustCompile(`(?m)^top: .*$`).FindString(stats); !strings.Contains(first, fmt.Sprintf("×%d %s #", n, top)) {
		t.Errorf("log_stats' first template is %q; want %s ×%d\n%s", first, top, n, stats)
	}
	if !regexp.MustCompile(`(?m)^crash group: .*` + regexp.QuoteMeta(agentload.NewestCrash[:40]) + `.* #` + strconv.FormatUint(f.LastID, 10)).MatchString(stats) {
		t.Errorf("log_stats does not name the newest crash group (#%d):\n%s", f.LastID, stats)
	}

	fixed, appeared := "NullReferenceException: player is null in PlayerController.Update", "IndexOutOfRangeException: slot 9 in Inventory.AddItem"
	run := func(errText string) []oplog.Record {
		rs := []oplog.Record{{Kind: oplog.KindMarker, Level: oplog.LevelInfo, Name: "run", Source: "editor", Text: "run started"}}
		for i := range 30 {
			rs = append(rs, oplog.Record{Level: oplog.LevelInfo, Source: "editor", Name: "Loader", Text: fmt.Sprintf("Loaded scene %d", i%3)})
		}
		return append(rs, oplog.Record{Level: oplog.LevelError, Source: "editor", Name: "Game", Text: errText})
	}
	before := s.Log.Stats().LastID
	logtest.MustAppend(t, s.Log, run(fixed)...)
	logtest.MustAppend(t, s.Log, run(appeared)...)
	repeats := []oplog.Record{}
	for i := range 50 {
		repeats = append(repeats, oplog.Record{Level: oplog.LevelInfo, Source: "editor", Name: "Net", Text: fmt.Sprintf("Snapshot %d sent to peer 10.0.0.%d", 700+i, i%7)})
	}
	logtest.MustAppend(t, s.Log, repeats...)
	logtest.MustAppend(t, s.Log, oplog.Record{Level: oplog.LevelFatal, Source: "editor", Name: "Game", Text: "Program crashed with signal 11 (SIGSEGV)"})
	crashedID := s.Log.Stats().LastID
	res = tsCalls(t, s.harness,
		tsCall{Name: "compare_runs"},
		tsCall{Name: "console_tail", Arguments: map[string]any{"sinceId": before}},
		tsCall{Name: "search_logs", Arguments: map[string]any{"query": "crash"}},
	)
	cmp := res[0].text()
	if res[0].Bytes > 4<<10 || !regexp.MustCompile(`(?m)^ *gone: .*`+regexp.QuoteMeta(oplog.Template(fixed))).MatchString(cmp) ||
		!regexp.MustCompile(`(?m)^ *new: .*`+regexp.QuoteMeta(oplog.Template(appeared))).MatchString(cmp) {
		t.Errorf("compare_runs (%d bytes) does not name %q gone and %q new:\n%s", res[0].Bytes, fixed, appeared, cmp)
	}
	if !strings.Contains(res[1].text(), "×50 ") || !strings.Contains(res[1].text(), "Snapshot <N> sent to peer <IP>") {
		t.Errorf("console_tail does not collapse the numbered repeats into one ×50 line:\n%s", res[1].text())
	}
	if !regexp.MustCompile(`(?m)^#` + strconv.FormatUint(crashedID, 10) + ` .*\*\*crashed\*\* with signal 11`).MatchString(res[2].text()) {
		t.Errorf("search_logs crash does not find #%d (crashed):\n%.1500s", crashedID, res[2].text())
	}
}

var entryID = regexp.MustCompile(`(?m)^#(\d+)(?:\.\.#(\d+))?`)

// tsSpan is the first and last record IDs of a console_tail text block.
func tsSpan(t *testing.T, text string) (first, last uint64) {
	t.Helper()
	ms := entryID.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		t.Fatalf("no entries in:\n%.1000s", text)
	}
	first, _ = strconv.ParseUint(ms[0][1], 10, 64)
	l := ms[len(ms)-1]
	if l[2] == "" {
		l[2] = l[1]
	}
	last, _ = strconv.ParseUint(l[2], 10, 64)
	return first, last
}

func tsFirst(t *testing.T, text string) uint64 { first, _ := tsSpan(t, text); return first }

func tsLastID(t *testing.T, text string) uint64 { _, last := tsSpan(t, text); return last }

// noisiestTemplate counts the templates of every record of h's log and
// returns the most frequent one and its count.
func noisiestTemplate(t *testing.T, h *harness) (string, int) {
	t.Helper()
	counts := map[string]int{}
	for id := uint64(1); id <= h.Log.Stats().LastID; id++ {
		r, err := h.Log.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		counts[oplog.Template(r.Text)]++
	}
	best := ""
	for tmpl, n := range counts {
		if n > counts[best] || n == counts[best] && tmpl < best {
			best = tmpl
		}
	}
	return best, counts[best]
}
