package crash_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestValgrind: Valgrind's frames, as the follower keeps a report (past
// the pid), are read innermost first by their function; the C library's,
// the allocator Valgrind put in, its tools' wrappers and frames it could
// not name are in no signature and name no crash: the game's frame does,
// with its file and line, without the address.
func TestValgrind(t *testing.T) {
	cases := []struct {
		name, text, stack string
		frames            []string
		title, game       string
	}{
		{"segv", "Process terminating with default action of signal 11 (SIGSEGV)",
			" Access not within mapped region at address 0x10\n   at 0x109774: spawn_enemy (game.c:112)\n   by 0x10995D: world_spawn (game.c:135)\n" +
				"   by 0x1099B8: tick (game.c:144)\n   by 0x109AF2: main (game.c:161)\n If you believe this happened as a result of a stack",
			[]string{"spawn_enemy", "world_spawn", "tick", "main"},
			"Process terminating with default action of signal 11 (SIGSEGV) in spawn_enemy (game.c:112)", "spawn_enemy (game.c:112)"},
		{"leak", "4 bytes in 1 blocks are definitely lost in loss record 1 of 2",
			"   at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n   by 0x48FA9A9: strdup (strdup.c:42)\n" +
				"   by 0x1098E8: spawn_enemy (game.c:127)\n   by 0x109AF2: main (game.c:161)",
			[]string{"spawn_enemy", "main"}, "", "spawn_enemy (game.c:127)"},
		// Valgrind 3.13's report of the stack protector's abort, a program
		// of one file, as posted with CERT C examples.
		{"stack-protector", "*** stack smashing detected ***: <unknown> terminated",
			"Process terminating with default action of signal 6 (SIGABRT)\n   at 0x4E7CFB7: raise (raise.c:51)\n   by 0x4E7E920: abort (abort.c:79)\n" +
				"   by 0x4EC7966: __libc_message (libc_fatal.c:181)\n   by 0x4F72B60: __fortify_fail_abort (fortify_fail.c:33)\n" +
				"   by 0x4F72B21: __stack_chk_fail (stack_chk_fail.c:29)\n   by 0x10872E: GetServerPath (Dereferencing_Past-the-End_Pointer.c:43)\n" +
				"   by 0x1087AD: _RemoteActivation (Dereferencing_Past-the-End_Pointer.c:47)\n   by 0x108827: main (Dereferencing_Past-the-End_Pointer.c:58)",
			[]string{"GetServerPath", "_RemoteActivation", "main"}, "", "GetServerPath (Dereferencing_Past-the-End_Pointer.c:43)"},
		// Helgrind's race in a program without debug information: frames
		// name the module; Helgrind's wrapper names nothing.
		{"race", "Possible data race during write of size 4 at 0x404058 by thread #3",
			"Locks held: none\n   at 0x40124C: thread_set_bit (in /home/dev/test_flags)\n   by 0x4C30EDE: mythread_wrapper (hg_intercepts.c:389)\n" +
				"   by 0x4E43EA4: start_thread (pthread_create.c:307)\n   by 0x5156B0C: clone (clone.S:111)\n" +
				"This conflicts with a previous write of size 4 by thread #2\nLocks held: none\n   at 0x40124C: thread_set_bit (in /home/dev/test_flags)\n" +
				" Address 0x404058 is 0 bytes inside data symbol \"g_flags\"",
			[]string{"thread_set_bit", "thread_set_bit"}, "", "thread_set_bit (in /home/dev/test_flags)"},
		// C++: the exception's what() its message, thrown in World::spawn.
		{"terminate", "terminate called after throwing an instance of 'std::runtime_error'\n  what():  enemy pool exhausted",
			"Process terminating with default action of signal 6 (SIGABRT)\n   at 0x4B20EEC: __pthread_kill_implementation (pthread_kill.c:44)\n" +
				"   by 0x4AD1FB1: raise (raise.c:26)\n   by 0x4ABC471: abort (abort.c:79)\n   by 0x48F9918: ??? (in /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)\n" +
				"   by 0x4904E84: std::terminate() (in /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)\n" +
				"   by 0x49050D7: __cxa_throw (in /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)\n   by 0x1093D0: World::spawn(int) (game3.cpp:5)\n" +
				"   by 0x10932E: main (game3.cpp:12)",
			[]string{"World::spawn(int)", "main"}, "terminate called after throwing 'std::runtime_error': enemy pool exhausted in World::spawn(int) (game3.cpp:5)", "World::spawn(int) (game3.cpp:5)"},
	}
	for _, c := range cases {
		tr := crash.Parse(c.stack).WithHead(c.text)
		if c.frames != nil && !slices.Equal(tr.Frames, c.frames) {
			t.Errorf("%s: frames %q, want %q", c.name, tr.Frames, c.frames)
		}
		title, _, _ := crash.Describe(c.text, c.stack)
		if c.title != "" && title != c.title {
			t.Errorf("%s: title %q, want %q", c.name, title, c.title)
		}
		if f := crash.GameFrame(c.stack); f != c.game {
			t.Errorf("%s: game frame %q, want %q", c.name, f, c.game)
		}
	}
	if f := crash.GameFrame("   at 0x492B503: clock_nanosleep@@GLIBC_2.17 (clock_nanosleep.c:71)\n   by 0x492FE52: nanosleep (nanosleep.c:25)\n" +
		"   by 0x495B294: usleep (usleep.c:31)\n   by 0x109199: main (loop.c:3)"); f != "main (loop.c:3)" {
		t.Errorf("stopped in its sleep: game frame %q", f)
	}
	// One crash at two addresses (two builds): one signature.
	a := crash.Parse("   at 0x109774: spawn_enemy (game.c:112)\n   by 0x109AF2: main (game.c:161)").WithHead("Invalid read of size 4")
	b := crash.Parse("   at 0x40A1F4: spawn_enemy (game.c:113)\n   by 0x40B0F2: main (game.c:162)").WithHead("Invalid read of size 4")
	if a.Signature() != b.Signature() {
		t.Errorf("one invalid read, two builds: %s and %s", a.Signature(), b.Signature())
	}
}

// TestIndex_FindCrashes_ValgrindAbort: a failed assertion under Valgrind
// is one crash: Valgrind's report of the SIGABRT right after it, with
// frames of its own, says only how the process ended. A SIGSEGV's report,
// the first fatal line of its run, is the crash.
func TestIndex_FindCrashes_ValgrindAbort(t *testing.T) {
	l, _ := mustOpen(t, nil)
	fatal := func(text, stack string, at time.Duration) oplog.Record {
		return oplog.Record{Level: oplog.LevelFatal, Source: "game", Time: t0.Add(at), Text: text, Stack: stack}
	}
	run := func(at time.Duration) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Time: t0.Add(at), Text: "run started"}
	}
	logtest.MustAppend(t, l,
		run(0),
		fatal("game: game.c:109: spawn_enemy: Assertion `e->hp > 0' failed.", "at spawn_enemy (game.c:109)", time.Second),
		fatal("Process terminating with default action of signal 6 (SIGABRT)", "   at 0x48E6EEC: __pthread_kill_implementation (pthread_kill.c:44)\n"+
			"   by 0x4897FB1: raise (raise.c:26)\n   by 0x4882471: abort (abort.c:79)\n   by 0x4890EC1: __assert_fail (assert.c:103)\n"+
			"   by 0x109334: spawn_enemy (game.c:109)\n   by 0x109AF2: main (game.c:161)", time.Second+5*time.Millisecond),
		run(time.Minute),
		fatal("Process terminating with default action of signal 11 (SIGSEGV)", " Access not within mapped region at address 0x10\n"+
			"   at 0x109774: spawn_enemy (game.c:112)\n   by 0x109AF2: main (game.c:161)", time.Minute+time.Second),
	)
	want := fmt.Sprint([]string{
		"1 Process terminating with default action of signal 11 (SIGSEGV) in spawn_enemy (game.c:112)",
		"1 Assertion `e->hp > 0' failed in spawn_enemy (game.c:109)",
	})
	if got := fmt.Sprint(groupsOf(t, l)); got != want {
		t.Errorf("groups\n%s\nwant\n%s", got, want)
	}
}

// TestGdbStops: gdb's place of its stop, before `bt`'s frames, is neither
// a frame twice nor the head: a SIGSEGV and a SIGFPE in one function are
// two crashes. Without `bt`, the place is the one frame.
func TestGdbStops(t *testing.T) {
	stack := func(line, src string) string {
		stop := "0x0000555555555774 in spawn_enemy (w=0x555555558100 <w>, kind=0x555555556129 \"orc\") at game.c:" + line
		return stop + "\n" + line + "\t\t\t" + src + "\n\nThread 1 (Thread 0x7ffff7dd1740 (LWP 12244) \"game\"):\n#0  " + stop +
			"\n#1  0x000055555555595e in world_spawn (w=0x555555558100 <w>, frame=3) at game.c:135\n"
	}
	segv := crash.Parse(stack("112", "boss->hp += 10;")).WithHead("Program received signal SIGSEGV, Segmentation fault.")
	fpe := crash.Parse(stack("114", "e->hp = w->score / zero;")).WithHead("Program received signal SIGFPE, Arithmetic exception.")
	if segv.Signature() == fpe.Signature() {
		t.Errorf("a SIGSEGV and a SIGFPE in spawn_enemy are one crash: heads %q and %q", segv.Head, fpe.Head)
	}
	if !slices.Equal(segv.Frames, []string{"spawn_enemy", "world_spawn"}) {
		t.Errorf("frames %q", segv.Frames)
	}
	if lines := crash.TopLines(stack("112", "x"), 3); len(lines) != 2 || !strings.Contains(lines[0], "in spawn_enemy") {
		t.Errorf("top lines %q", lines)
	}
	alone := "__strcpy_evex () at ../sysdeps/x86_64/multiarch/strcpy-evex.S:599\n599\t../sysdeps/x86_64/multiarch/strcpy-evex.S: No such file or directory."
	if tr := crash.Parse(alone); tr.Head != "" || !slices.Equal(tr.Frames, []string{"__strcpy_evex"}) {
		t.Errorf("the stop alone: head %q frames %q", tr.Head, tr.Frames)
	}
}
