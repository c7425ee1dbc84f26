package mcptools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
)

type summaryCount struct {
	Text  string `json:"text"`
	Level string `json:"level"`
	Count int    `json:"count"`
	ID    uint64 `json:"id"`
	New   bool   `json:"new"`
}

// callSummary calls a tool that answers within 4 KB and decodes its
// structuredContent into out, failing when the whole result is larger.
func callSummary(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s: %s", tool, text)
	}
	whole, _ := json.Marshal(res)
	if len(whole) > 4<<10 {
		t.Errorf("%s: %d bytes, want ≤ 4096", tool, len(whole))
	}
	t.Logf("%s: %d bytes", tool, len(whole))
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return text
}

func TestLogStats_TwoRuns(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	l.SetCrashes(crash.New(l, nil))
	want := logtest.AppendTwoRuns(t, l)
	cs := connect(t, l)

	var stats struct {
		Runs    []string       `json:"runs"`
		Records int            `json:"records"`
		Levels  map[string]int `json:"levels"`
		Top     []summaryCount `json:"top"`
		New     []summaryCount `json:"new"`
		Crashes []summaryCount `json:"crashes"`
	}
	text := callSummary(t, cs, "log_stats", nil, &stats)
	if len(stats.Runs) != 1 || stats.Runs[0] != "game#2 running" || stats.Records != 26 {
		t.Errorf("runs %v, %d records; want game#2's 26", stats.Runs, stats.Records)
	}
	if len(stats.Top) == 0 || stats.Top[0].Text != want.Noisy || stats.Top[0].Count != 20 || !strings.Contains(text, want.Noisy) {
		t.Errorf("top = %+v, want %q ×20\n%s", stats.Top, want.Noisy, text)
	}
	if len(stats.Crashes) != 1 || !stats.Crashes[0].New || !strings.HasPrefix(stats.Crashes[0].Text, "Texture missing for Tree_5") {
		t.Errorf("crash groups = %+v, want B's, new", stats.Crashes)
	}
	if len(stats.New) == 0 || stats.New[0].Text != want.B || stats.New[0].ID != want.BID {
		t.Errorf("new = %+v, want %q (#%d)", stats.New, want.B, want.BID)
	}

	var cmp struct {
		Sources []struct {
			Verdict string         `json:"verdict"`
			New     []summaryCount `json:"new"`
			Gone    []summaryCount `json:"gone"`
		} `json:"sources"`
	}
	text = callSummary(t, cs, "compare_runs", nil, &cmp)
	if len(cmp.Sources) != 1 {
		t.Fatalf("compare_runs: %s", text)
	}
	s := cmp.Sources[0]
	named := func(list []summaryCount, text string, id uint64) bool {
		return slices.ContainsFunc(list, func(c summaryCount) bool { return c.Text == text && c.ID == id })
	}
	if !named(s.Gone, want.A, want.AID) || !named(s.New, want.B, want.BID) || !strings.Contains(s.Verdict, "without crashing") {
		t.Errorf("compare_runs: want %q gone (#%d), %q new (#%d), got past the crash:\n%s", want.A, want.AID, want.B, want.BID, text)
	}
	if !slices.ContainsFunc(s.Gone, func(c summaryCount) bool { return c.Level == "crash" && c.ID == want.Crash }) {
		t.Errorf("compare_runs: run 1's crash (#%d) not gone:\n%s", want.Crash, text)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "compare_runs", Arguments: map[string]any{"against": "bogus"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "against:") {
		t.Errorf("against bogus: %q, want a tool error naming against", text)
	}
}

// TestLogStats_Studio: log_stats {scope: studio} counts every machine's
// rows within 4 KB, the noisiest template first, counted exactly (no note
// of a sample); run is refused by name.
func TestLogStats_Studio(t *testing.T) {
	forStudios(t, func(t *testing.T, impl studiotest.Impl) {
		cs := studioSession(t, impl, 40)
		var stats struct {
			Runs    []string       `json:"runs"`
			Records int            `json:"records"`
			Levels  map[string]int `json:"levels"`
			Top     []summaryCount `json:"top"`
			Crashes []summaryCount `json:"crashes"`
		}
		text := callSummary(t, cs, "log_stats", map[string]any{"scope": "studio"}, &stats)
		// 3 crashes, 40 lines, and the operation once.
		if stats.Records != 44 || stats.Levels["info"] != 40 || len(stats.Top) == 0 || stats.Top[0].Count != 40 ||
			!strings.HasPrefix(stats.Top[0].Text, "loading chunk <N> of the world") || len(stats.Crashes) != 1 || stats.Crashes[0].Count != 3 ||
			strings.Contains(text, "newest") { // every row carries its template: nothing sampled to say
			t.Errorf("log_stats studio: %+v\n%s", stats, text)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "log_stats", Arguments: map[string]any{"scope": "studio", "run": "previous"}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "run:") {
			t.Errorf("log_stats studio with run: %q, want a tool error naming run", text)
		}
	})
}

// TestCompareRuns_Studio: compare_runs {scope: studio} compares since-until
// of every machine with the window as long before it: the crash group and
// the error template only the earlier minute had are gone, each with its
// example's machine; run is refused by name.
func TestCompareRuns_Studio(t *testing.T) {
	forStudios(t, func(t *testing.T, impl studiotest.Impl) {
		cs := studioSession(t, impl, 40)
		var cmp struct {
			Sources []struct {
				Source  string         `json:"source"`
				Verdict string         `json:"verdict"`
				New     []summaryCount `json:"new"`
				Gone    []struct {
					summaryCount
					Machine string `json:"machine"`
				} `json:"gone"`
			} `json:"sources"`
		}
		args := map[string]any{"scope": "studio", "since": crashT0.Add(30 * time.Second).Format(time.RFC3339), "until": crashT0.Add(90 * time.Second).Format(time.RFC3339)}
		text := callSummary(t, cs, "compare_runs", args, &cmp)
		if len(cmp.Sources) != 1 || len(cmp.Sources[0].New) != 0 || len(cmp.Sources[0].Gone) != 2 {
			t.Fatalf("compare_runs studio: %+v\n%s", cmp, text)
		}
		g := cmp.Sources[0].Gone
		if g[0].Count != 3 || g[0].ID != 100 || g[0].Machine != "alice-pc" || g[1].Level != "error" || g[1].Count != 3 ||
			!strings.Contains(text, "#100 on alice-pc") || !strings.Contains(cmp.Sources[0].Verdict, "0 new, 2 gone") {
			t.Errorf("compare_runs studio: %+v\n%s", cmp, text)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "compare_runs", Arguments: map[string]any{"scope": "studio", "run": "previous"}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "run:") {
			t.Errorf("compare_runs studio with run: %q, want a tool error naming run", text)
		}
	})
}
