package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// Crashes as engines write them, with file:line; %d is the line.
const (
	unityCrash = "NullReferenceException: Object reference not set to an instance of an object\n" +
		"  at Spawner.Update () [0x00012] in Assets/Scripts/Spawner.cs:%d\n" +
		"  at Game.Loop.Tick (System.Single dt) [0x0003a] in Assets/Scripts/Game/Loop.cs:88\n" +
		"  at UnityEngine.Internal.$MethodUtility.Invoke ()\n"
	dotnetCrash = "System.InvalidOperationException: Collection was modified; enumeration operation may not execute.\n" +
		"   at System.Collections.Generic.List`1.Enumerator.MoveNext()\n" +
		"   at Game.Inventory.Sort() in C:\\build\\Game\\Inventory.cs:line %d\n"
	javaCrash = "java.lang.NullPointerException: Cannot invoke \"Entity.getPos()\" because \"entity\" is null\n" +
		"\tat net.minecraft.client.render.WorldRenderer.renderEntity(WorldRenderer.java:%d)\n" +
		"\tat net.minecraft.client.MinecraftClient.tick(MinecraftClient.java:1182)\n" +
		"\tat java.base/java.lang.Thread.run(Thread.java:833)\n"
)

var crashT0 = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// crashRecord is an error line with stack (its %d filled with line) at
// second s.
func crashRecord(stack string, line, s int, source string) oplog.Record {
	head, _, _ := strings.Cut(stack, "\n")
	return oplog.Record{Time: crashT0.Add(time.Duration(s) * time.Second), Level: oplog.LevelError, Name: "Game",
		Source: source, Text: head, Stack: fmt.Sprintf(stack, line)}
}

// crashSession serves the MCP tools over a real store with a crash index
// holding recs, and returns a connected client session.
func crashSession(t *testing.T, recs ...oplog.Record) (*mcp.ClientSession, []oplog.Record) {
	t.Helper()
	l, _ := logtest.MustOpenLog(t, nil)
	cr := crash.New(l, &crash.Options{Lazy: true})
	l.SetCrashes(cr)
	if len(recs) > 0 {
		recs = logtest.MustAppend(t, l, recs...)
	}
	return connect(t, l), recs
}

// connect runs the MCP server on l over in-memory transports.
func connect(t *testing.T, l *oplog.Log) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcptools.New(l, &mcptools.Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type crashGroup struct {
	Title          string   `json:"title"`
	Count          int      `json:"count"`
	LastID         uint64   `json:"lastId"`
	ExampleID      uint64   `json:"exampleId"`
	LastFrames     []string `json:"lastFrames"`
	Text           string   `json:"text"`
	Stack          string   `json:"stack"`
	StackBytes     int      `json:"stackBytes"`
	StackTruncated bool     `json:"stackTruncated"`
}

type crashesAnswer struct {
	Groups []crashGroup `json:"groups"`
	Total  int          `json:"total"`
	More   bool         `json:"more"`

	text string // the text block
	size int    // the whole result, serialized
}

// callTool calls name with args, fails on a tool error, and returns the
// text block, the structuredContent and the whole result's size.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (text string, structured json.RawMessage, size int) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", name, len(res.Content))
	}
	text = res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s %v: tool error %s", name, args, text)
	}
	structured, _ = json.Marshal(res.StructuredContent)
	return text, structured, len(b)
}

func findCrashes(t *testing.T, cs *mcp.ClientSession, args map[string]any) crashesAnswer {
	t.Helper()
	text, sc, size := callTool(t, cs, "find_crashes", args)
	var a crashesAnswer
	if err := json.Unmarshal(sc, &a); err != nil {
		t.Fatal(err)
	}
	a.text, a.size = text, size
	return a
}

// repeatedCrashes: a Unity crash 3 times (lines 40..42), a .NET one once,
// a Java one twice; the Java crash is the newest.
func repeatedCrashes() []oplog.Record {
	return []oplog.Record{
		crashRecord(unityCrash, 40, 0, "unity"),
		crashRecord(dotnetCrash, 7, 1, "editor"),
		crashRecord(unityCrash, 41, 2, "unity"),
		{Time: crashT0.Add(3 * time.Second), Level: oplog.LevelInfo, Name: "Game", Source: "unity", Text: "tick"},
		crashRecord(javaCrash, 300, 4, "minecraft"),
		crashRecord(unityCrash, 42, 5, "unity"),
		crashRecord(javaCrash, 301, 6, "minecraft"),
	}
}

// TestFindCrashes_NewestFrames: groups come newest first, each with its
// newest occurrence's ID and that record's top frames with their own line
// numbers; more says when groups were left out.
func TestFindCrashes_NewestFrames(t *testing.T) {
	cs, recs := crashSession(t, repeatedCrashes()...)
	a := findCrashes(t, cs, map[string]any{})
	var got []string
	for _, g := range a.Groups {
		got = append(got, fmt.Sprintf("%d %s #%d", g.Count, g.Title, g.LastID))
	}
	want := []string{
		// Each titled by its newest message and the game's own frame: Minecraft's
		// when the JDK's come first, the game's own before .NET's.
		fmt.Sprintf("2 java.lang.NullPointerException: Cannot invoke \"Entity.getPos()\" because \"entity\" is null in net.minecraft.client.render.WorldRenderer.renderEntity(WorldRenderer.java:301) #%d", recs[6].ID),
		fmt.Sprintf("3 NullReferenceException: Object reference not set to an instance of an object in Spawner.Update () in Assets/Scripts/Spawner.cs:42 #%d", recs[5].ID),
		fmt.Sprintf("1 System.InvalidOperationException: Collection was modified; enumeration operation may not execute. in Game.Inventory.Sort() in C:\\build\\Game\\Inventory.cs:line 7 #%d", recs[1].ID),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || a.Total != 3 || a.More {
		t.Fatalf("groups (total %d, more %v):\n%q, want\n%q", a.Total, a.More, got, want)
	}
	frames := map[string]string{ // the top frame of each group's newest occurrence
		want[0]: "at net.minecraft.client.render.WorldRenderer.renderEntity(WorldRenderer.java:301)",
		want[1]: "at Spawner.Update () in Assets/Scripts/Spawner.cs:42",
		want[2]: "at System.Collections.Generic.List`1.Enumerator.MoveNext()",
	}
	for i, g := range a.Groups {
		if len(g.LastFrames) == 0 || g.LastFrames[0] != frames[want[i]] {
			t.Errorf("%s: lastFrames %q, want first %q", g.Title, g.LastFrames, frames[want[i]])
		}
		// The text block: one line per group, then its frames indented.
		if !strings.Contains(a.text, fmt.Sprintf("newest #%d", g.LastID)) || !strings.Contains(a.text, "\n  "+frames[want[i]]) {
			t.Errorf("text lacks group %s or its frame:\n%s", g.Title, a.text)
		}
	}
	if g := a.Groups[2]; !strings.Contains(strings.Join(g.LastFrames, "\n"), `Inventory.cs:line 7`) {
		t.Errorf(".NET frames lost their line: %q", g.LastFrames)
	}
	if strings.HasPrefix(a.text, "{") {
		t.Errorf("text block is JSON:\n%s", a.text)
	}

	b := findCrashes(t, cs, map[string]any{"limit": 2})
	if len(b.Groups) != 2 || b.Total != 3 || !b.More || !strings.Contains(b.text, "more=true") {
		t.Errorf("limit 2: %d groups, total %d, more %v\n%s", len(b.Groups), b.Total, b.More, b.text)
	}
}

// TestFindCrashes_Limit1: the newest crash with its whole stack in one
// call of at most 4 KB.
func TestFindCrashes_Limit1(t *testing.T) {
	cs, recs := crashSession(t, repeatedCrashes()...)
	a := findCrashes(t, cs, map[string]any{"limit": 1})
	newest := recs[6]
	if len(a.Groups) != 1 || !a.More || a.Total != 3 {
		t.Fatalf("limit 1: %d groups, more %v, total %d", len(a.Groups), a.More, a.Total)
	}
	g := a.Groups[0]
	// Its message is the title's (or, when the title says another, its own).
	if g.LastID != newest.ID || g.Stack != newest.Stack || g.StackBytes != len(newest.Stack) || g.StackTruncated ||
		g.Text != newest.Text && !(g.Text == "" && strings.HasPrefix(g.Title, newest.Text)) {
		t.Errorf("group %+v, want the whole stack of #%d", g, newest.ID)
	}
	if !strings.Contains(a.text, "WorldRenderer.java:301)") || !strings.Contains(a.text, "Thread.java:833)") {
		t.Errorf("text lacks the stack:\n%s", a.text)
	}
	if a.size > 4<<10 {
		t.Errorf("find_crashes {limit: 1} is %d bytes, want ≤ 4096", a.size)
	}
	t.Logf("find_crashes {limit: 1}: %d bytes, stack %d bytes", a.size, g.StackBytes)
}

// TestFindCrashes_Limit1_LongStack: a stack over 4 KB is cut to 4 KB with
// its whole size, and the text says where the rest is.
func TestFindCrashes_Limit1_LongStack(t *testing.T) {
	var b strings.Builder
	b.WriteString("StackOverflowException: The requested operation caused a stack overflow.\n")
	for i := 0; b.Len() < 20000; i++ {
		fmt.Fprintf(&b, "  at Game.Recurse.Step%d () [0x00001] in Assets/Scripts/Recurse.cs:%d\n", i%3, 10+i%3)
	}
	r := oplog.Record{Time: crashT0, Level: oplog.LevelFatal, Source: "unity", Text: "StackOverflowException", Stack: b.String()}
	cs, recs := crashSession(t, r)
	a := findCrashes(t, cs, map[string]any{"limit": 1})
	if len(a.Groups) != 1 || a.More {
		t.Fatalf("%d groups, more %v", len(a.Groups), a.More)
	}
	g := a.Groups[0]
	// The answer stays within 4 KB: the stack gets what the rest leaves.
	if !g.StackTruncated || g.StackBytes != len(recs[0].Stack) || len(g.Stack) < 512 || a.size > 4<<10 ||
		!strings.HasPrefix(recs[0].Stack, g.Stack) {
		t.Errorf("stack of %d bytes (truncated %v, stackBytes %d) in %d bytes, want the first part of %d within 4 KB",
			len(g.Stack), g.StackTruncated, g.StackBytes, a.size, len(recs[0].Stack))
	}
	if want := fmt.Sprintf("get_log_details {log_id: %d}", g.LastID); !strings.Contains(a.text, want) {
		t.Errorf("text does not say %q:\n%.300s", want, a.text)
	}
	// A larger budget shows more of it, up to 4 KB; the answer stays within it.
	c := findCrashes(t, cs, map[string]any{"limit": 1, "maxBytes": 12000})
	if c.size > 12000 || !c.Groups[0].StackTruncated || len(c.Groups[0].Stack) <= len(g.Stack) || len(c.Groups[0].Stack) > 4<<10 {
		t.Errorf("maxBytes 12000: %d bytes, stack %d bytes, truncated %v", c.size, len(c.Groups[0].Stack), c.Groups[0].StackTruncated)
	}
}

// TestFindCrashes_Budget: many distinct crashes stop at the budget with
// more, and a larger limit still fits it.
func TestFindCrashes_Budget(t *testing.T) {
	var recs []oplog.Record
	for i := range 600 {
		stack := fmt.Sprintf("KeyNotFoundException: key %d\n  at Game.System%d.Update () in Assets/Scripts/System%d.cs:%d\n  at Game.Loop.Tick () in Assets/Scripts/Loop.cs:88\n", i, i, i, i)
		recs = append(recs, oplog.Record{Time: crashT0.Add(time.Duration(i) * time.Millisecond), Level: oplog.LevelError,
			Source: "unity", Text: "KeyNotFoundException", Stack: stack})
	}
	cs, _ := crashSession(t, recs...)
	for _, args := range []map[string]any{{"limit": 1000}, {"limit": 1000, "maxBytes": 8192}} {
		a := findCrashes(t, cs, args)
		budget := 32 << 10
		if mb, ok := args["maxBytes"].(int); ok {
			budget = mb
		}
		if a.size > budget || !a.More || a.Total != 600 || len(a.Groups) == 0 || len(a.Groups) == 600 {
			t.Errorf("%v: %d bytes, %d groups of %d, more %v", args, a.size, len(a.Groups), a.Total, a.More)
		}
		if !strings.HasPrefix(a.Groups[0].Title, "KeyNotFoundException in Game.System599.Update () in Assets/Scripts/System599.cs:599") {
			t.Errorf("%v: first group %q, want the newest", args, a.Groups[0].Title)
		}
	}
	if a := findCrashes(t, cs, map[string]any{}); a.size > 32<<10 || len(a.Groups) != 20 || !a.More {
		t.Errorf("defaults: %d bytes, %d groups, more %v", a.size, len(a.Groups), a.More)
	}
}
