package crash_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
)

// Real-looking traces, each as a template: %d is filled with line numbers,
// %x with addresses, so that one template is one crash seen many times.
const (
	unityAt = "NullReferenceException: Object reference not set to an instance of an object\n" +
		"Player.Update () (at Assets/Scripts/Player.cs:%d)\n" +
		"Game.AI.EnemyManager:Tick (float) (at Assets/Scripts/Game/AI/EnemyManager.cs:%d)\n" +
		"UnityEngine.Debug:LogException (System.Exception)\n"
	unityMono = "NullReferenceException: Object reference not set to an instance of an object\n" +
		"  at Player.Update () [0x%x] in <9f3c2a1b0d4e4f6a8b7c6d5e4f3a2b1c>:0\n" +
		"  at Player+<>c__DisplayClass%d_0.<Start>b__%d_0 () [0x%x] in <9f3c2a1b0d4e4f6a8b7c6d5e4f3a2b1c>:0\n" +
		"  at System.Collections.Generic.List`1[T].ForEach (System.Action`1[T] action) [0x%x] in <e1a80661d61443feb3dbdaac88eeb776>:0\n" +
		"  at (wrapper managed-to-native) UnityEngine.Object:Destroy (UnityEngine.Object)\n"
	dotnet = "System.InvalidOperationException: Collection was modified; enumeration operation may not execute.\n" +
		"   at System.Collections.Generic.List`1.Enumerator.MoveNext()\n" +
		"   at Game.Inventory.<>c__DisplayClass%d_0.<Sort>b__0(Item x) in C:\\build\\Game\\Inventory.cs:line %d\n" +
		"   at Game.Inventory.Sort[T](IComparer`1 cmp) in C:\\build\\Game\\Inventory.cs:line %d\n"
	lua = "game/systems/physics.lua:%d: attempt to index a nil value (field 'velocity')\n" +
		"stack traceback:\n" +
		"\t[C]: in function 'error'\n" +
		"\tgame/systems/physics.lua:%d: in function <game/systems/physics.lua:%d>\n" +
		"\t(...tail calls...)\n" +
		"\tgame/ecs/world.lua:%d: in method 'update'\n" +
		"\tmain.lua:%d: in function 'love.update'\n" +
		"\t[C]: in ?\n"
	luaOther = "game/systems/ai.lua:%d: attempt to call a nil value (method 'think')\n" +
		"stack traceback:\n" +
		"\tgame/systems/ai.lua:%d: in upvalue 'step'\n" +
		"\tgame/systems/ai.lua:%d: in function <game/systems/ai.lua:%d>\n" +
		"\tgame/ecs/world.lua:%d: in method 'update'\n"
	java = "java.lang.NullPointerException: Cannot invoke \"net.minecraft.entity.Entity.getPos()\" because \"entity\" is null\n" +
		"\tat net.minecraft.client.render.WorldRenderer.renderEntity(WorldRenderer.java:%d)\n" +
		"\tat net.minecraft.client.render.WorldRenderer.lambda$render$%d(WorldRenderer.java:%d)\n" +
		"\tat net.minecraft.client.MinecraftClient$%d.run(MinecraftClient.java:%d)\n" +
		"\tat net.minecraft.client.MinecraftClient.tick(MinecraftClient.java:%d)\n" +
		"\tat java.base/java.lang.Thread.run(Thread.java:%d)\n" +
		"Caused by: java.lang.IllegalStateException: Entity not loaded\n" +
		"\t... %d more\n"
	javaOther = "java.util.ConcurrentModificationException\n" +
		"\tat java.base/java.util.ArrayList$Itr.checkForComodification(ArrayList.java:%d)\n" +
		"\tat java.base/java.util.ArrayList$Itr.next(ArrayList.java:%d)\n" +
		"\tat net.minecraft.client.world.ClientWorld.tickEntities(ClientWorld.java:%d)\n"
	goPanic = "panic: runtime error: index out of range [%d] with length %d\n\n" +
		"goroutine %d [running]:\n" +
		"main.(*World).spawn(0x%x, {0x%x, 0x%x})\n" +
		"\t/home/dev/game/world.go:%d +0x%x\n" +
		"main.(*World).Tick.func%d(...)\n" +
		"\t/home/dev/game/world.go:%d +0x%x\n" +
		"main.main()\n" +
		"\t/home/dev/game/main.go:%d +0x%x\n" +
		"exit status 2\n"
	goNil = "panic: runtime error: invalid memory address or nil pointer dereference\n" +
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x%x pc=0x%x]\n\n" +
		"goroutine %d [running]:\n" +
		"main.(*World).spawn(0x%x, {0x%x, 0x%x})\n" +
		"\t/home/dev/game/world.go:%d +0x%x\n"
	gdb = "Thread 1 \"game-server\" received signal SIGSEGV, Segmentation fault.\n" +
		"#0  0x%x in Engine::PhysicsSystem::Step(float) at src/physics/physicssystem.cpp:%d\n" +
		"#1  0x%x in std::vector<Engine::Body*, std::allocator<Engine::Body*> >::at (this=0x%x, n=%d) at /usr/include/c++/12/bits/stl_vector.h:%d\n" +
		"#2  0x%x in Engine::World::Tick (this=0x%x, dt=0.016) at src/world.cpp:%d\n"
	python = "Traceback (most recent call last):\n" +
		"  File \"game/main.py\", line %d, in <module>\n" +
		"    run()\n" +
		"  File \"game/ai.py\", line %d, in think\n" +
		"    x = self.target.pos\n" +
		"AttributeError: 'NoneType' object has no attribute 'pos'\n"
)

// fill replaces each verb of tmpl with a number drawn from seed.
func fill(tmpl string, seed int) string {
	n := strings.Count(tmpl, "%d") + strings.Count(tmpl, "%x")
	args := make([]any, 0, n)
	x := uint64(seed)*0x9e3779b97f4a7c15 + 12345
	for i := 0; i < len(tmpl)-1; i++ {
		if tmpl[i] == '%' && (tmpl[i+1] == 'd' || tmpl[i+1] == 'x') {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if tmpl[i+1] == 'x' {
				args = append(args, 0x7f0000000000|x&0xffffffffff)
			} else {
				args = append(args, 1+x%5000)
			}
		}
	}
	return fmt.Sprintf(tmpl, args...)
}

func TestSignature(t *testing.T) {
	for _, tc := range []struct {
		name, stack, title string
		frames             []string
	}{
		{"UnityAt", unityAt, "NullReferenceException in Player.Update",
			[]string{"Player.Update", "Game.AI.EnemyManager:Tick", "UnityEngine.Debug:LogException"}},
		{"UnityMono", unityMono, "NullReferenceException in Player.Update",
			[]string{"Player.Update", "Player+<>c__DisplayClass.<Start>b__", "System.Collections.Generic.List.ForEach", "UnityEngine.Object:Destroy"}},
		{"DotNet", dotnet, "InvalidOperationException in Enumerator.MoveNext",
			[]string{"System.Collections.Generic.List.Enumerator.MoveNext", "Game.Inventory.<>c__DisplayClass.<Sort>b__", "Game.Inventory.Sort"}},
		{"Lua", lua, "attempt to index a nil value (field '*') in physics.lua",
			[]string{"[C]: in function 'error'", "game/systems/physics.lua: in function <game/systems/physics.lua>",
				"game/ecs/world.lua: in method 'update'", "main.lua: in function 'love.update'"}},
		{"Java", java, "NullPointerException in WorldRenderer.renderEntity",
			[]string{"net.minecraft.client.render.WorldRenderer.renderEntity", "net.minecraft.client.render.WorldRenderer.lambda$render$",
				"net.minecraft.client.MinecraftClient$.run", "net.minecraft.client.MinecraftClient.tick", "java.lang.Thread.run"}},
		{"GoPanic", goPanic, "runtime error: index out of range [N] with length N in (*World).spawn",
			[]string{"main.(*World).spawn", "main.(*World).Tick.func", "main.main"}},
		{"GDB", gdb, "SIGSEGV in PhysicsSystem.Step",
			[]string{"Engine::PhysicsSystem::Step", "std::vector::at", "Engine::World::Tick"}},
		{"Python", python, "AttributeError in think", []string{"game/ai.py in think", "game/main.py in <module>"}},
		{"FramesOnly", "Player.Update () (at Assets/Scripts/Player.cs:42)\n", "crash in Player.Update", []string{"Player.Update"}},
		// Mono frames without "at ", as Unity players and bridges print them.
		{"MonoBare", "NullReferenceException: Object reference not set to an instance of an object\n" +
			"WaveSpawner.SpawnNext () [0x%x] in /Users/dev/Game/Assets/Scripts/WaveSpawner.cs:%d\n" +
			"WaveSpawner.Update () [0x%x] in <9f3c2a1b0d4e4f6a8b7c6d5e4f3a2b1c>:0\n",
			"NullReferenceException in WaveSpawner.SpawnNext", []string{"WaveSpawner.SpawnNext", "WaveSpawner.Update"}},
		{"Empty", "", "crash", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig, title, frames := crash.Signature(fill(tc.stack, 1))
			if len(sig) != 16 || strings.Trim(sig, "0123456789abcdef") != "" {
				t.Errorf("signature %q, want 16 hex digits", sig)
			}
			if title != tc.title {
				t.Errorf("title %q, want %q", title, tc.title)
			}
			if !slices.Equal(frames, tc.frames) {
				t.Errorf("frames\n%q, want\n%q", frames, tc.frames)
			}
			// The same crash from other lines, addresses, goroutines and lambda numbers.
			for seed := 2; seed < 50; seed++ {
				if s, _, f := crash.Signature(fill(tc.stack, seed)); s != sig {
					t.Fatalf("seed %d: signature %s (frames %q), want %s:\n%s", seed, s, f, sig, fill(tc.stack, seed))
				}
			}
		})
	}
}

// TestSignature_GoMapWrite: Go reports one racing map write as "concurrent
// map writes" from internal/runtime/maps.fatal, or, when it sees a full
// small map first, as "small map with no empty slot (concurrent map
// writes?)" from one more of the runtime's frames (both printed by Go 1.26
// from the same line): one crash, named by the game's frame; a write to
// another map from another function is another crash.
func TestSignature_GoMapWrite(t *testing.T) {
	flag := "fatal error: concurrent map writes\n\ngoroutine 22 [running]:\ninternal/runtime/maps.fatal({0x510d3d?, 0x0?})\n" +
		"\t/usr/local/go/src/runtime/panic.go:1181 +0x18\nmain.(*world).spawnEnemy.func1(0x1)\n\t/tmp/gm/main.go:74 +0x7e\n" +
		"created by main.(*world).spawnEnemy in goroutine 1\n\t/tmp/gm/main.go:71 +0x5a\n"
	slot := "fatal error: small map with no empty slot (concurrent map writes?)\n\ngoroutine 19 [running]:\n" +
		"internal/runtime/maps.fatal({0x51722e?, 0x2ef8d236cef0?})\n\t/usr/local/go/src/runtime/panic.go:1181 +0x18\n" +
		"internal/runtime/maps.(*Map).putSlotSmallFast64(0x2ef8d2414d20, 0x4f2300, 0x0?, 0x0)\n" +
		"\t/usr/local/go/src/internal/runtime/maps/runtime_fast64.go:179 +0xb1\nmain.(*world).spawnEnemy.func1(0x1)\n" +
		"\t/tmp/gm/main.go:74 +0x7e\ncreated by main.(*world).spawnEnemy in goroutine 1\n\t/tmp/gm/main.go:71 +0x5a\n"
	sig, title, frames := crash.Signature(flag)
	if title != "fatal error: concurrent map writes in spawnEnemy.func" || !slices.Equal(frames, []string{"main.(*world).spawnEnemy.func"}) {
		t.Errorf("title %q, frames %q", title, frames)
	}
	if s, tt, f := crash.Signature(slot); s != sig || tt != title {
		t.Errorf("the full small map: %s %q %q, want %s %q", s, tt, f, sig, title)
	}
	other := strings.ReplaceAll(flag, "spawnEnemy", "bumpScore")
	if s, _, _ := crash.Signature(other); s == sig {
		t.Errorf("a racing write in another function shares signature %s", sig)
	}
}

// TestSignature_GoStackOverflow: Go's stack overflow is named by the
// game's frame, not by the runtime's remarks before it nor its own stack
// after it, and the same overflow from another depth is the same crash.
func TestSignature_GoStackOverflow(t *testing.T) {
	stack := func(sp string) string {
		return "runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=" + sp + " stack=[0x3994b3480000, 0x3994d3480000]\n" +
			"runtime stack:\nruntime.throw({0x4cef00?, 0x41a905?})\n\t/usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x39949344be98 sp=0x39949344be68 pc=0x479928\n" +
			"runtime.newstack()\n\t/usr/local/go/src/runtime/stack.go:1207 +0x5fd fp=0x39949344bfc8 sp=0x39949344be98 pc=0x46137d\n" +
			"goroutine 1 gp=0x3994933f61e0 m=2 mp=0x399493430808 [running]:\nmain.spawnEnemy(0xfa231?)\n\t/tmp/rt/so.go:5 +0xa5 fp=" + sp + "\n" +
			"main.main()\n\t/tmp/rt/so.go:6 +0x70\n"
	}
	tr := crash.Parse(stack("0x3994b3480498")).WithHead("fatal error: stack overflow")
	if tr.Title() != "fatal error: stack overflow in main.spawnEnemy" || !slices.Equal(tr.Frames, []string{"main.spawnEnemy", "main.main"}) {
		t.Errorf("title %q, frames %q", tr.Title(), tr.Frames)
	}
	if again := crash.Parse(stack("0x1234b3480000")).WithHead("fatal error: stack overflow"); again.Signature() != tr.Signature() {
		t.Errorf("another depth: %q, want %q", again.Frames, tr.Frames)
	}
	if f := crash.GameFrame(stack("0x3994b3480498")); !strings.HasPrefix(f, "main.spawnEnemy(") {
		t.Errorf("game frame %q", f)
	}
}

// TestSignature_Different: different crashes never share a signature, even
// in the same language and file.
func TestSignature_Different(t *testing.T) {
	stacks := map[string]string{
		"unityAt": unityAt, "unityMono": unityMono, "dotnet": dotnet, "lua": lua, "luaOther": luaOther, "java": java,
		"javaOther": javaOther, "goPanic": goPanic, "goNil": goNil, "gdb": gdb, "python": python,
		// Same frames, another exception.
		"unityIndex": strings.Replace(unityAt, "NullReferenceException: Object reference not set to an instance of an object",
			"IndexOutOfRangeException: Index was outside the bounds of the array.", 1),
		// Same exception, another top frame.
		"unityOtherFrame": strings.Replace(unityAt, "Player.Update ()", "Player.LateUpdate ()", 1),
		// Same exception and frames, another message.
		"javaOtherMessage": strings.Replace(java, `is null`, `is not loaded`, 1),
		// Minecraft's obfuscated names keep their numbers: these are other methods.
		"mcObf1": "java.lang.NullPointerException\n\tat net.minecraft.class_310.method_1574(class_310.java:%d)\n",
		"mcObf2": "java.lang.NullPointerException\n\tat net.minecraft.class_310.method_1523(class_310.java:%d)\n",
	}
	seen := map[string]string{}
	for name, s := range stacks {
		sig, _, _ := crash.Signature(fill(s, 7))
		if other, dup := seen[sig]; dup {
			t.Errorf("%s and %s share signature %s", name, other, sig)
		}
		seen[sig] = name
	}
}

// TestTrace_WithHead: a stack of frames only takes the message as its head
// (Unity's logMessageReceived gives the exception as the message).
func TestTrace_WithHead(t *testing.T) {
	frames := "Player.Update () (at Assets/Scripts/Player.cs:42)\n"
	a := crash.Parse(frames).WithHead("NullReferenceException: Object reference not set to an instance of an object")
	b := crash.Parse(strings.Replace(frames, "42", "57", 1)).WithHead("NullReferenceException: Object reference not set to an instance of an object\nmore")
	c := crash.Parse(frames).WithHead("MissingReferenceException: The object of type 'GameObject' has been destroyed")
	if a.Signature() != b.Signature() || a.Signature() == c.Signature() {
		t.Errorf("signatures %s %s %s: want the first two equal and the third different", a.Signature(), b.Signature(), c.Signature())
	}
	if got := a.Title(); got != "NullReferenceException in Player.Update" {
		t.Errorf("title %q", got)
	}
	mono := crash.Parse("WaveSpawner.SpawnNext () [0x00012] in /Users/dev/Game/Assets/WaveSpawner.cs:42\n").
		WithHead("NullReferenceException: Object reference not set to an instance of an object")
	if got := mono.Title(); got != "NullReferenceException in WaveSpawner.SpawnNext" {
		t.Errorf("title of a bare Mono frame with the message as head: %q", got)
	}
	// A stack with its own head keeps it.
	d := crash.Parse(fill(unityAt, 1))
	if e := d.WithHead("something else entirely"); e.Head != d.Head || e.Head != a.Head {
		t.Errorf("head %q, want the stack's own %q", e.Head, a.Head)
	}
}

func FuzzSignature(f *testing.F) {
	for _, s := range []string{unityAt, unityMono, dotnet, lua, luaOther, java, javaOther, goPanic, goNil, gdb, python} {
		f.Add(fill(s, 3))
	}
	f.Add("at \n#\n#1 0x\nFile \"\n<<<[[[`1$1.func1.2(")
	f.Add(loguruSegv)
	f.Add(loguruCheck)
	f.Add("A fatal error has been detected by the Java Runtime Environment:\nJRE version: x\nProblematic frame:\nC  [libx.so+0x12]  f+0x4\n")
	f.Add("Native stacktrace:\n\t0x1 - /game/libfmod.so : FMOD_Update\nManaged Stacktrace:\n\t  at <unknown> <0xffffffff>\n\t  at W:S <0x1>\n")
	f.Add(" Access not within mapped region at address 0x0\n   at 0x1: f (g.c:1)\n   by 0x2: ??? (in /g)\n   by 0x3: (below main) (x.h:5)\n" +
		"   by 0x4: __libc_start_main@@GLIBC_2.34 (l.c:3)\n   by 0x5: X::y(int) (\n   at 0x: (\n")
	f.Add("Stack trace (most recent call last):\n#2    Object \"\", at 0x, in\n#1    Source \"g.cpp\", line , in f [0x1]\n#0  | Source \"g.cpp\", line 3, in\n" +
		"      >   3: x\nSegmentation fault (Address not mapped to object [(nil)])\n")
	f.Add("(1) Lua upvalue 'o' at file 'main.lua:6'\n(3) LÖVE method at file 'boot.lua:352'\n(4) Lua global 'g' at file 'f.lua:6' (from mod with id M)\n" +
		"(6) main chunk of file 'src/i.lua' at line 5\n(7) field C function 'max'\n(8) '\n(9) file '")
	f.Add("ERROR : (error message will follow backtrace)\n  #0\n    (dbghelp: @0x56f81e[cataclysm-tiles.exe+0x16f81e]), \n  #1\n") // a frame's number alone
	f.Fuzz(func(t *testing.T, stack string) {
		if title, _, _ := crash.Describe(stack, stack); strings.Contains(title, "\n") {
			t.Fatalf("title %q", title)
		}
		sig, title, frames := crash.Signature(stack)
		if len(sig) != 16 {
			t.Fatalf("signature %q", sig)
		}
		if title == "" || strings.Contains(title, "\n") {
			t.Fatalf("title %q", title)
		}
		if len(frames) > crash.TopFrames {
			t.Fatalf("%d frames", len(frames))
		}
		// Deterministic.
		if s2, _, _ := crash.Signature(stack); s2 != sig {
			t.Fatalf("signature changed: %s then %s", sig, s2)
		}
	})
}
