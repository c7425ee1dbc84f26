package crash_test

import (
	"slices"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
)

// TestCpptrace: cpptrace's trace under its heading, as its terminate
// handler prints it after the exception's line: titled by the exception
// and the game's innermost frame; a frame inlined into the next is a frame
// of its own; glibc's start names nothing.
func TestCpptrace(t *testing.T) {
	text := "Terminate called after throwing an instance of std::runtime_error: no spawn point for orc"
	stack := "Stack trace (most recent call first):\n#0 0x00005613c6d8d5a7 in World::spawnEnemy(std::string const&) at /game/world.cpp:22:30\n" +
		"#1 (inlined)          in World::spawn(int) at /game/world.cpp:30:10\n#2 0x00005613c6d8d5e4 in tick(World&, int) at /game/main.cpp:40:3\n" +
		"#3 0x00005613c6d8d61a in main at /game/main.cpp:45:5\n#4 0x00007f2d3c046d90 in __libc_start_call_main at ./csu/../sysdeps/nptl/libc_start_call_main.h:58:16\n" +
		"#5 0x000055 in _start"
	tr := crash.Parse(stack).WithHead(text)
	if want := []string{"World::spawnEnemy", "World::spawn", "tick", "main"}; !slices.Equal(tr.Frames, want) {
		t.Errorf("frames %q, want %q", tr.Frames, want)
	}
	title, _, _ := crash.Describe(text, stack)
	if want := "terminate called after throwing 'std::runtime_error': no spawn point for orc in World::spawnEnemy(std::string const&) at /game/world.cpp:22:30"; title != want {
		t.Errorf("title %q\nwant  %q", title, want)
	}
}

// TestBoostStacktrace: boost::stacktrace's frames, innermost first, as a
// signal handler prints them: the handler's own frame, above the signal's
// trampoline (an address in libc), names nothing; the game's frame does.
func TestBoostStacktrace(t *testing.T) {
	text := "Caught signal 11 (Segmentation fault), backtrace:"
	stack := " 0# on_signal(int) at /game/main.cpp:12\n 1# 0x00007F2D3C05AFD0 in /lib/x86_64-linux-gnu/libc.so.6\n" +
		" 2# World::spawnEnemy(std::string const&) at /game/world.cpp:58\n 3# main in ./game\n" +
		" 4# __libc_start_main in /lib/x86_64-linux-gnu/libc.so.6\n 5# _start in ./game"
	if f := crash.Parse(stack).Frames; !slices.Equal(f, []string{"World::spawnEnemy(std::stringconst&)", "main"}) {
		t.Errorf("frames %q", f)
	}
	if title, _, _ := crash.Describe(text, stack); title != text+" in World::spawnEnemy(std::string const&) at /game/world.cpp:58" {
		t.Errorf("title %q", title)
	}
}
