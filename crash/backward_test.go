package crash_test

import (
	"slices"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
)

// TestBackward: backward-cpp's frames, outermost first as it prints them,
// are read innermost first; the source around them, glibc's frames and the
// objects' frames without a name are in no signature; the game's frame,
// its file and line, names the crash. Its addresses, another every run,
// are in neither.
func TestBackward(t *testing.T) {
	stack := func(addr string) string {
		return "Stack trace (most recent call last):\n#7    Object \"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\", at 0xffffffffffffffff, in\n" +
			"#6    Object \"/game/game\", at 0x" + addr + "990, in _start\n#5    Source \"../csu/libc-start.c\", line 360, in __libc_start_main_impl [0x7ffb89a45304]\n" +
			"#3    Source \"/game/main.cpp\", line 98, in main [0x" + addr + "dd2]\n        97: \tfor (int i = 0; i < 5; i++) {\n      >  98: \t\ttick(world, frame);\n" +
			"#1    Source \"/game/world.cpp\", line 70, in World::spawn(int) [0x" + addr + "e1c]\n" +
			"#0    Source \"/game/world.cpp\", line 58, in World::spawnEnemy(std::string const&) [0x" + addr + "c5d]\n      >  58: \t\t\tboss->hp += 10;\n" +
			"#0    Object \"/usr/lib/x86_64-linux-gnu/libc.so.6\", at 0x7f9768c45249, in\n"
	}
	a := crash.Parse(stack("560027791")).WithHead("Segmentation fault (Address not mapped to object [(nil)])")
	if want := []string{"World::spawnEnemy(std::stringconst&)", "World::spawn(int)", "main"}; !slices.Equal(a.Frames, want) {
		t.Errorf("frames %q, want %q", a.Frames, want)
	}
	if b := crash.Parse(stack("5640ad79d")).WithHead("Segmentation fault (Address not mapped to object [(nil)])"); a.Signature() != b.Signature() {
		t.Errorf("one crash, two runs: %s and %s", a.Signature(), b.Signature())
	}
	if f := crash.GameFrame(stack("560027791")); f != "World::spawnEnemy(std::string const&) (/game/world.cpp:58)" {
		t.Errorf("game frame %q", f)
	}
	title, _, last := crash.Describe("Segmentation fault (Address not mapped to object [(nil)])", stack("560027791"))
	if title != "Segmentation fault (Address not mapped to object [(nil)]) in World::spawnEnemy(std::string const&) (/game/world.cpp:58)" {
		t.Errorf("title %q", title)
	}
	if len(last) == 0 || last[0] != "World::spawnEnemy(std::string const&) (/game/world.cpp:58)" {
		t.Errorf("last frames %q", last)
	}
}
