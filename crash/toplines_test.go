package crash_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestTopLines: the top frames come as the stack writes them, file and
// line kept, without Mono's IL offsets, innermost first.
func TestTopLines(t *testing.T) {
	tests := []struct {
		name, stack string
		n           int
		want        []string
	}{
		{"UnityAt", unityAt, 2, []string{"Player.Update () (at Assets/Scripts/Player.cs:1)", "Game.AI.EnemyManager:Tick (float) (at Assets/Scripts/Game/AI/EnemyManager.cs:2)"}},
		{"Mono", "NullReferenceException: x\n  at Spawner.Update () [0x00012] in Assets/Scripts/Spawner.cs:42\n  at Game.Loop () [0x0001f] in Assets/Scripts/Game.cs:7\n", 5,
			[]string{"at Spawner.Update () in Assets/Scripts/Spawner.cs:42", "at Game.Loop () in Assets/Scripts/Game.cs:7"}},
		{"DotNet", dotnet, 2, []string{"at System.Collections.Generic.List`1.Enumerator.MoveNext()", `at Game.Inventory.<>c__DisplayClass1_0.<Sort>b__0(Item x) in C:\build\Game\Inventory.cs:line 2`}},
		{"Java", java, 1, []string{"at net.minecraft.client.render.WorldRenderer.renderEntity(WorldRenderer.java:1)"}},
		{"Lua", lua, 2, []string{"[C]: in function 'error'", "game/systems/physics.lua:2: in function <game/systems/physics.lua:3>"}},
		{"Python", python, 5, []string{`File "game/ai.py", line 2, in think`, `File "game/main.py", line 1, in <module>`}},
		{"None", "just a message\nover two lines", 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Line numbers 1, 2, 3... in the order the verbs come.
			stack := tc.stack
			for i := 1; strings.ContainsAny(stack, "%"); i++ {
				j := strings.IndexByte(stack, '%')
				stack = stack[:j] + fmt.Sprint(i) + stack[j+2:]
			}
			if got := crash.TopLines(stack, tc.n); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("TopLines = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestIndex_FindCrashes_LastFrames: each group carries the top frames of
// its newest occurrence as written, with that occurrence's line numbers
// (the signature's frames have none), also for a failed operation.
func TestIndex_FindCrashes_LastFrames(t *testing.T) {
	l, _ := mustOpen(t, nil)
	mono := "NullReferenceException: x\n  at Spawner.Update () [0x00012] in Assets/Scripts/Spawner.cs:%d\n"
	logtest.MustAppend(t, l,
		oplog.Record{Level: oplog.LevelError, Text: "NullReferenceException: x", Stack: fmt.Sprintf(mono, 41), Time: t0},
		oplog.Record{Level: oplog.LevelError, Text: "NullReferenceException: x", Stack: fmt.Sprintf(mono, 42), Time: t0.Add(time.Second)},
		oplog.Record{Tool: "run", Status: oplog.StatusError, Time: t0.Add(2 * time.Second),
			Error: "java.lang.IllegalStateException: no world\n\tat net.mc.World.tick(World.java:88)\n\tat net.mc.Main.run(Main.java:9)"},
	)
	p := find(t, l, oplog.CrashQuery{})
	if len(p.Groups) != 2 {
		t.Fatalf("%d groups, want 2: %+v", len(p.Groups), p.Groups)
	}
	want := [][]string{
		{"at net.mc.World.tick(World.java:88)", "at net.mc.Main.run(Main.java:9)"},
		{"at Spawner.Update () in Assets/Scripts/Spawner.cs:42"},
	}
	for i, g := range p.Groups {
		if fmt.Sprintf("%q", g.LastFrames) != fmt.Sprintf("%q", want[i]) {
			t.Errorf("group %d (%s): lastFrames %q, want %q", i, g.Title, g.LastFrames, want[i])
		}
	}
}
