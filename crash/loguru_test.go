package crash_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
)

// loguru's stacks as emilk/loguru 4adaa18 printed them (g++ 12, -g
// -rdynamic): outermost first, numbered down to 0.
const (
	// A SIGSEGV its handler caught: glibc's signal trampoline is frame 0.
	loguruSegv = "Stack trace:\n" +
		"7       0x55dab6ce49d1 _start + 33\n" +
		"6       0x7fe358245305 __libc_start_main + 133\n" +
		"5       0x7fe35824524a /lib/x86_64-linux-gnu/libc.so.6(+0x2724a) [0x7fe35824524a]\n" +
		"4       0x55dab6ce4cd9 main + 486\n" +
		"3       0x55dab6ce4af0 tick(World&, int) + 87\n" +
		"2       0x55dab6ce5019 World::spawn(int) + 79\n" +
		"1       0x55dab6ce4fbd World::spawnEnemy(std::string const&) + 191\n" +
		"0       0x7fe35825a050 /lib/x86_64-linux-gnu/libc.so.6(+0x3c050) [0x7fe35825a050]\n" +
		"2026-12-07 03:38:31.167 (   0.001s) [main thread     ]                       :0     FATL| Signal: SIGSEGV"
	// A failed CHECK_F, under its place (as the follower writes it): no
	// trampoline; glibc's start after main looks like one.
	loguruCheck = "at game.cpp:30\nStack trace:\n" +
		"3       0x55ff28d589d1 _start + 33\n" +
		"2       0x7f03f2e45305 __libc_start_main + 133\n" +
		"1       0x7f03f2e4524a /lib/x86_64-linux-gnu/libc.so.6(+0x2724a) [0x7f03f2e4524a]\n" +
		"0       0x55ff28d58e3a main + 636"
	// A SIGSEGV in a static function, which has no symbol.
	loguruStatic = "Stack trace:\n" +
		"5       0x56419edb99d1 _start + 33\n" +
		"4       0x7f1502a45305 __libc_start_main + 133\n" +
		"3       0x7f1502a4524a /lib/x86_64-linux-gnu/libc.so.6(+0x2724a) [0x7f1502a4524a]\n" +
		"2       0x56419edb9e76 main + 696\n" +
		"1       0x56419edb9b7d ./game(+0x65b7d) [0x56419edb9b7d]\n" +
		"0       0x7f1502a5a050 /lib/x86_64-linux-gnu/libc.so.6(+0x3c050) [0x7f1502a5a050]\n"
)

// TestLoguru: loguru's frames are read innermost first, past the signal's
// trampoline: the game's frame names the crash, and another run (other
// addresses) is the same crash.
func TestLoguru(t *testing.T) {
	for _, tc := range []struct {
		name, stack, frame string
		frames             []string
	}{
		{"segv", loguruSegv, "World::spawnEnemy(std::string const&) + 191", []string{"World::spawnEnemy", "World::spawn", "tick", "main"}},
		{"check", loguruCheck, "at game.cpp:30", []string{"game.cpp", "main"}},
		{"static", loguruStatic, "./game(+0x65b7d)", []string{"game+0x65b7d", "main"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if f := crash.GameFrame(tc.stack); f != tc.frame {
				t.Errorf("game frame %q, want %q", f, tc.frame)
			}
			sig, _, frames := crash.Signature(tc.stack)
			if !slices.Equal(frames, tc.frames) {
				t.Errorf("frames %q, want %q", frames, tc.frames)
			}
			again := strings.NewReplacer("0x55dab6ce", "0x5612aa10", "0x7fe358", "0x7f9c41", "0x55ff28d5", "0x5599ab01",
				"0x7f03f2e", "0x7f44a0c", "0x56419edb", "0x55e01c2a", "0x7f1502a", "0x7fa9913").Replace(tc.stack)
			if again == tc.stack {
				t.Fatal("the addresses were not changed")
			}
			if s, _, f := crash.Signature(again); s != sig {
				t.Errorf("another run: %s %q, want %s", s, f, sig)
			}
		})
	}
	// Numbered frames counting up, innermost first, are read as they come;
	// a frame ending in a file and line is none of loguru's.
	up := "Stack trace:\n0       0x55dab6ce4fbd World::spawnEnemy(std::string const&) + 191\n1       0x55dab6ce4cd9 main + 486\n"
	if _, _, f := crash.Signature(up); !slices.Equal(f, []string{"World::spawnEnemy", "main"}) {
		t.Errorf("counting up: %q", f)
	}
	defold := "0 0x55D3A1E51A20 dmGameSystem::CompSpriteUpdate(dmGameObject::ComponentsUpdateParams const&) <unknown>:0\n1 0x55D3A1C11E5A engine_main <unknown>:0"
	if f := crash.GameFrame(defold); !strings.Contains(f, "dmGameSystem::CompSpriteUpdate") {
		t.Errorf("Defold's frame: %q", f)
	}
}
