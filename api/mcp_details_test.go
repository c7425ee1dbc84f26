package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// fieldCut is one entry of an answer's cut.
type fieldCut struct {
	Bytes      int `json:"bytes"`
	Offset     int `json:"offset"`
	Shown      int `json:"shown"`
	NextOffset int `json:"nextOffset"`
}

// crumb is a breadcrumb or an operation's line.
type crumb struct {
	ID   uint64 `json:"id"`
	Text string `json:"text"`
}

type opLines struct {
	Count   int64          `json:"count"`
	First   []crumb        `json:"first"`
	More    bool           `json:"more"`
	GetLogs map[string]any `json:"getLogs"`
}

// longDetails is get_log_details' answer with what budgets add.
type longDetails struct {
	ID      uint64              `json:"id"`
	Text    string              `json:"text"`
	Stack   string              `json:"stack"`
	Data    json.RawMessage     `json:"data"`
	Field   string              `json:"field"`
	Cut     map[string]fieldCut `json:"cut"`
	Before  []crumb             `json:"before"`
	After   []crumb             `json:"after"`
	LeftOut int                 `json:"leftOut"`
	Lines   *opLines            `json:"opLines"`
}

// callWithin calls a tool that must succeed with an answer (the whole
// result as the client got it, serialized) of at most budget bytes, and
// decodes it. It returns the text block too.
func callWithin[T any](t *testing.T, m *mcpHarness, budget int, name string, args map[string]any) (T, string) {
	t.Helper()
	res, b := m.callRaw(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, b)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > budget {
		t.Errorf("%s(%v): answer of %d bytes, over the budget of %d", name, args, len(raw), budget)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: decode %s: %v", name, b, err)
	}
	return v, res.Content[0].(*mcp.TextContent).Text
}

// bigText is n bytes of stack-like lines with quotes, tabs and characters
// of 2 and 3 bytes (escaped or split at a wrong boundary, they would show).
func bigText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "  at Économie.Étape%d (\"→\") \t[0x%05x] in <Assets/Scripts/Spawner.cs>:%d\n", i, i, i%997)
	}
	s := oplog.ClipBytes(b.String(), n)
	return s + strings.Repeat("x", n-len(s))
}

func TestMCP_GetLogDetails_LongStack(t *testing.T) {
	m := mustServeMCP(t)
	recs := logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelFatal, Name: "Crash", Text: "NullReferenceException",
		Stack: bigText(oplog.MaxStackBytes), Data: json.RawMessage(`{"big":"` + strings.Repeat("é", 100<<10) + `"}`)})
	stored, err := m.Log.Get(context.Background(), recs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	d, text := callWithin[longDetails](t, m, mcptools.DefaultDetailsBudget, "get_log_details", map[string]any{"log_id": recs[0].ID})
	c, ok := d.Cut["stack"]
	if !ok || c.Bytes != len(stored.Stack) || c.Offset != 0 || c.Shown != len(d.Stack) || c.NextOffset != len(d.Stack) || c.Shown < 10<<10 {
		t.Fatalf("cut = %+v with a stack of %d bytes shown, want the stack's full size %d and where to read on", d.Cut, len(d.Stack), len(stored.Stack))
	}
	if d.Text != "NullReferenceException" || d.Cut["data"].Bytes != len(stored.Data) {
		t.Errorf("text %q, data cut %+v: want the text whole and the data's size %d", d.Text, d.Cut["data"], len(stored.Data))
	}
	if !strings.Contains(text, fmt.Sprintf("cut: stack %d bytes", len(stored.Stack))) || !strings.Contains(text, "field=stack offset=") {
		t.Errorf("text block does not say the stack was cut and how to read on:\n%.500s", text)
	}

	for field, whole := range map[string]string{"stack": stored.Stack, "data": string(stored.Data)} {
		var got strings.Builder
		for offset, pages := 0, 0; ; pages++ {
			if pages > 200 {
				t.Fatalf("%s: no end after %d pages", field, pages)
			}
			p, _ := callWithin[longDetails](t, m, 16<<10, "get_log_details", map[string]any{"log_id": recs[0].ID, "field": field, "offset": offset, "maxBytes": 16 << 10})
			c := p.Cut[field]
			if p.Field != field || c.Offset != offset || c.Bytes != len(whole) {
				t.Fatalf("%s page at %d: field %q cut %+v", field, offset, p.Field, p.Cut)
			}
			part := p.Stack
			if field == "data" {
				if err := json.Unmarshal(p.Data, &part); err != nil {
					t.Fatalf("a cut data is a string of its JSON text: %s: %v", p.Data, err)
				}
			}
			if len(part) != c.Shown || len(part) == 0 {
				t.Fatalf("%s page at %d: %d bytes, cut says %d", field, offset, len(part), c.Shown)
			}
			got.WriteString(part)
			if c.NextOffset == 0 {
				break
			}
			offset = c.NextOffset
		}
		if got.String() != whole {
			t.Errorf("%s: the pages put together (%d bytes) are not the field (%d bytes)", field, got.Len(), len(whole))
		}
	}
	m.callError(t, "get_log_details", map[string]any{"log_id": recs[0].ID, "field": "stack", "offset": len(stored.Stack)}, "offset", "past the end")
	m.callError(t, "get_log_details", map[string]any{"log_id": recs[0].ID, "field": "nope"}, "field", "stack")
	m.callError(t, "get_log_details", map[string]any{"log_id": recs[0].ID, "offset": 5}, "offset", "field")

	res, err := m.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: fmt.Sprintf("mcplogd://records/%d", recs[0].ID)})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(res); len(raw) > mcptools.DefaultDetailsBudget || !strings.Contains(res.Contents[0].Text, `"cut":{`) {
		t.Errorf("records/{id}: %d bytes (budget %d), cut told: %v", len(raw), mcptools.DefaultDetailsBudget, strings.Contains(res.Contents[0].Text, `"cut":{`))
	}
}

func TestMCP_GetLogDetails_Around(t *testing.T) {
	m := mustServeMCP(t)
	var recs []oplog.Record
	for i := range 12 {
		recs = append(recs, oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: fmt.Sprintf("game %d", i)},
			oplog.Record{Source: "editor", Level: oplog.LevelInfo, Text: fmt.Sprintf("editor %d", i)})
	}
	recs[12].Level, recs[12].Text, recs[12].Stack = oplog.LevelError, "crash", "at Game.Update ()" // game 6
	recs = logtest.MustAppend(t, m.Log, recs...)
	crash := recs[12]
	d, text := callWithin[longDetails](t, m, mcptools.DefaultDetailsBudget, "get_log_details", map[string]any{"log_id": crash.ID, "around": 3})
	var want, got []string
	for _, r := range append(append([]oplog.Record{}, recs[6], recs[8], recs[10]), recs[14], recs[16], recs[18]) {
		want = append(want, r.Text)
	}
	for _, c := range append(append([]crumb{}, d.Before...), d.After...) {
		got = append(got, c.Text)
		if !strings.Contains(text, fmt.Sprintf("\n#%d ", c.ID)) {
			t.Errorf("text block has no line for #%d:\n%s", c.ID, text)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(d.Before) != 3 {
		t.Errorf("around 3 = %v before, then %v; want %v", d.Before, d.After, want)
	}
	if d, _ = callWithin[longDetails](t, m, mcptools.DefaultDetailsBudget, "get_log_details", map[string]any{"log_id": crash.ID}); d.Before != nil || d.After != nil {
		t.Errorf("without around: before %v after %v", d.Before, d.After)
	}
	d, _ = callWithin[longDetails](t, m, mcptools.DefaultDetailsBudget, "get_log_details", map[string]any{"log_id": recs[0].ID, "around": 50})
	if len(d.Before) != 0 || len(d.After) != 11 {
		t.Errorf("around 50 of the first: %d before, %d after; want 0 and 11", len(d.Before), len(d.After))
	}
}

func TestMCP_GetLogDetails_AroundWithinBudget(t *testing.T) {
	m := mustServeMCP(t)
	var recs []oplog.Record
	for i := range 101 {
		recs = append(recs, oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: fmt.Sprintf("%d %s", i, strings.Repeat("\"é\" ", 300))})
	}
	recs = logtest.MustAppend(t, m.Log, recs...)
	d, _ := callWithin[longDetails](t, m, 8<<10, "get_log_details", map[string]any{"log_id": recs[50].ID, "around": 50, "maxBytes": 8 << 10})
	if d.LeftOut == 0 || len(d.Before)+len(d.After)+d.LeftOut != 100 || len(d.Before) == 0 || d.Before[len(d.Before)-1].ID != recs[49].ID {
		t.Errorf("around 50 in 8 KB: %d before, %d after, leftOut %d; want the nearest kept and the rest counted", len(d.Before), len(d.After), d.LeftOut)
	}
}

// opResult is get_result's answer.
type opResult struct {
	ID     uint64              `json:"id"`
	Status string              `json:"status"`
	Result json.RawMessage     `json:"result"`
	Cut    map[string]fieldCut `json:"cut"`
	Lines  *opLines            `json:"opLines"`
}

func TestMCP_GetResult_OpLines(t *testing.T) {
	m := mustServeMCP(t)
	start := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	line := func(source string, ms int, text string) oplog.Record {
		return oplog.Record{Source: source, Level: oplog.LevelInfo, Time: at(ms), Text: text}
	}
	recs := []oplog.Record{line("unity", -1, "before the start")}
	for i := range 25 {
		recs = append(recs, line("unity", i*10, fmt.Sprintf("during %d", i)), line("lua", i*10+1, "another source"))
	}
	recs = append(recs, line("unity", 241, "after the end"))
	logtest.MustAppend(t, m.Log, recs...)
	ops := logtest.MustAppend(t, m.Log,
		oplog.Record{Source: "unity", Tool: "run_code", Time: start, StartTime: start, EndTime: at(240), Status: oplog.StatusSuccess,
			Result: json.RawMessage(`"` + strings.Repeat("r", 100<<10) + `"`)},
		oplog.Record{Source: "unity", Tool: "wait", Time: at(100), StartTime: at(100)})

	r, text := callWithin[opResult](t, m, mcptools.DefaultBudget, "get_result", map[string]any{"log_id": ops[0].ID})
	if r.Lines == nil || r.Lines.Count != 25 || len(r.Lines.First) != 20 || !r.Lines.More {
		t.Fatalf("lines = %+v, want 25 counted, the first 20 shown", r.Lines)
	}
	for i, c := range r.Lines.First {
		if c.Text != fmt.Sprintf("during %d", i) {
			t.Errorf("line %d = %q, want during %d", i, c.Text, i)
		}
		if !strings.Contains(text, fmt.Sprintf("\n#%d ", c.ID)) {
			t.Errorf("text block has no line for #%d", c.ID)
		}
	}
	if c := r.Cut["result"]; c.Bytes != len(`"`)*2+100<<10 || c.NextOffset == 0 {
		t.Errorf("result cut = %+v, want its size and where to read on", r.Cut)
	}
	args := r.Lines.GetLogs
	args["count"], args["collapse"] = 1000, false // "during N": one template
	all := call[struct {
		Logs []struct {
			Text string `json:"text"`
		} `json:"logs"`
	}](t, m, "get_logs", args)
	if len(all.Logs) != 25 || all.Logs[0].Text != "during 24" || all.Logs[24].Text != "during 0" {
		t.Errorf("get_logs %v lists %d lines, want the 25 it ran through", args, len(all.Logs))
	}

	// Pending: the lines so far; get_log_details of an operation says the same.
	r, _ = callWithin[opResult](t, m, mcptools.DefaultBudget, "get_result", map[string]any{"log_id": ops[1].ID})
	if r.Status != "pending" || r.Lines.Count != 16 || r.Lines.First[0].Text != "during 10" {
		t.Errorf("pending: %s with lines %+v, want 16 from during 10 (with the line after the first one ended)", r.Status, r.Lines)
	}
	d, _ := callWithin[longDetails](t, m, mcptools.DefaultDetailsBudget, "get_log_details", map[string]any{"log_id": ops[0].ID})
	if d.Lines == nil || d.Lines.Count != 25 || len(d.Lines.First) != 20 {
		t.Errorf("get_log_details of the operation: lines %+v", d.Lines)
	}
}
