package follow

import (
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// FuzzParsers feeds arbitrary file contents to every parser, inside the
// marker detection the follower adds: none may panic, every entry ends
// within what was read and after the entry before it (the follower stores
// End as the file's read position), and every record is a valid line or
// marker (the Log would refuse anything else and the follower would stall).
func FuzzParsers(f *testing.F) {
	for _, name := range []string{"generic.log", "godot.log", "minecraft_latest.log", "unity_editor.log",
		"godot/crash_runs.log", "unreal/ue5_hlod_assert.log", "minecraft/crash-2023-12-28_13.21.22-client.txt",
		"unity/editor-5.5-import-crash.log", "generic/renpy_traceback_bom.txt", "logcat/dungeon_threadtime.txt",
		"logcat/kivy-sdl2-pause-sigsegv-brief.txt", "logcat/libgdx-gltf-glthread-asold.txt", "logcat/anr_threadtime.txt", "logcat/lmkd_threadtime.txt",
		"runtimes/mono_native.txt", "runtimes/cpp_loguru_segv.txt", "runtimes/cpp_loguru_check.txt",
		"games/yquake2-log-then-crash.txt", "games/cataclysm-stderr-sigabrt.txt", "games/widelands-crash-report.txt", "games/openmw-crash-gdb.txt",
		"minecraft/codex/pocketmine-plugin-runtime-problem.log", "minecraft/codex/forge-polymc-1-19-2.log"} {
		data := readSample(f, name)
		f.Add(data[:min(len(data), 4096)])
	}
	f.Add([]byte("\xef\xbb\xbf[2019.05.03-19.02.32:939][  0]LogWindows: Error: === Critical error: ===\n\n"))
	f.Add([]byte("#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n#  SIGSEGV (0xb) at pc=0x1, pid=2, tid=3\n" +
		"# Problematic frame:\n# C  [libx.so+0x12]  f+0x4\n#\nruntime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow\n\n" +
		"runtime stack:\nruntime.throw({0x1?})\n\t/go/src/runtime/panic.go:1 +0x4 fp=0x1 sp=0x2 pc=0x3\n" +
		"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n 1: 0xb7 node::Abort() [node]\n" +
		"thread 'main' (1) has overflowed its stack\nfatal runtime error: stack overflow\n"))
	f.Add([]byte("==7== Memcheck\n==7== \nterminate called after throwing an instance of 'E'\n  what():  x\n==7== \n" +
		"==7== Process terminating with default action of signal 6 (SIGABRT)\n==7==    at 0x1: raise (raise.c:26)\n==7==\n" +
		"==8== Possible data race during read of size 4 at 0x1 by thread #1\n==8==    at 0x2: f (g.c:1)\n==8== \n==8== This conflicts with a\n" +
		"==8==    by 0x3: main (g.c:2)\n==9== Invalid read of size 4\nout\n"))
	f.Add([]byte("terminate called after throwing an instance of 'E'\nStack trace (most recent call last) in thread 7:\n#1    Object \"./g\", at 0x1, in main\n" +
		"#0  | Source \"g.cpp\", line 3, in f\n    | >   3: x\n      Source \"g.cpp\", line 9, in g [0x2]\n       8: y\nAborted (Signal sent by tkill() 1 0)\n" +
		"Terminate called after throwing an instance of E: x\nStack trace (most recent call first):\n#0 (inlined) in f at g.cpp:1:2\n#1 (filtered)\n" +
		"ERROR: x\nStack trace (most recent call first):\n#0 0x1 in\n<empty trace>\n"))
	f.Add([]byte("Task exception was never retrieved\nfuture: <Future finished exception=E()>\nsource_traceback: Object created at (most recent call last):\n" +
		"  File \"g.py\", line 1, in f\n    x()\nE\nException in callback f()\nhandle: <Handle f()>\nALSA lib a.c:1:(f) x\nTraceback (most recent call last):\n" +
		"pygame.error: x\n[PYI-1:ERROR] Failed to execute script 'm'\n[2] Failed to execute script m\n[3] x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"unity", "log4j", "mccrash", "godot", "unreal", "generic", "logcat", "auto"} {
			p, err := newParser(name, func() time.Time { return fileDate }, func() time.Time { return testNow })
			if err != nil {
				t.Fatal(err)
			}
			entries, off := feedComplete(withMarkers(p), data)
			var last int64
			for k, e := range entries {
				if e.End < last || e.End > off {
					t.Fatalf("%s: entry %d ends at %d; the one before at %d, %d bytes read", name, k, e.End, last, off)
				}
				last = e.End
				r := &e.Record
				if (r.Kind != oplog.KindLine && r.Kind != oplog.KindMarker) || !r.Level.Valid() {
					t.Fatalf("%s: entry %d: kind %d level %d", name, k, r.Kind, r.Level)
				}
			}
		}
	})
}
