package crash_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

type runtimeCase struct {
	name        string
	level       oplog.Level
	text, stack string
}

var runtimeCases = []runtimeCase{
	{"python", oplog.LevelError, "ValueError: bad spawn count",
		"Traceback (most recent call last):\n  File \"/tmp/g/game.py\", line 40, in <module>\n    main()\n  File \"/usr/lib/python3.11/runpy.py\", line 88, in _run_code\n    exec(code)\n  File \"/tmp/g/game.py\", line 12, in spawn_enemy\n    raise ValueError(count)\n  File \"/usr/lib/python3.11/random.py\", line 300, in randint\n    raise ValueError\nValueError: bad spawn count\n"},
	{"faulthandler", oplog.LevelFatal, "Fatal Python error: Segmentation fault",
		"Current thread 0x00007f2d3c1f6740 (most recent call first):\n  File \"/usr/lib/python3.11/ctypes/__init__.py\", line 7 in string_at\n  File \"/tmp/g/game.py\", line 7 in crash_now\n  File \"/tmp/g/game.py\", line 20 in update\n  File \"/tmp/g/game.py\", line 30 in <module>\n\nExtension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests (total: 2)"},
	{"assert", oplog.LevelFatal, "game: game.c:27: spawn_enemy: Assertion `count < 100' failed.", "at spawn_enemy (game.c:27)"},
	{"sigsegv", oplog.LevelFatal, "Caught signal 11 (Segmentation fault), backtrace:",
		"./game(crash_handler+0x2e)[0x55d4c3a1b100]\n/lib/x86_64-linux-gnu/libc.so.6(+0x3bfd0)[0x7f2d3c05afd0]\n./game(update_player+0x14)[0x55d4c3a1b1e9]\n./game(+0x11a9)[0x55d4c3a1b1a9]\n./game(main+0x2a)[0x55d4c3a1b22a]\n/lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x85)[0x7f2d3c046d90]\n./game(_start+0x21)[0x55d4c3a1b0a1]"},
	{"gdb", oplog.LevelFatal, "Program received signal SIGSEGV, Segmentation fault.",
		"#0  0x00007ffff7e4a0f5 in __memmove_avx_unaligned_erms () from /lib/x86_64-linux-gnu/libc.so.6\n#1  0x0000555555555189 in update_player (p=0x0) at game.c:41\n#2  0x00005555555551b0 in main () at game.c:60"},
	{"lldb", oplog.LevelFatal, "Process 1234 stopped",
		"frame #0: 0x0000555555555189 game`update_player(p=0x0000000000000000) at game.c:41:5\nframe #1: 0x00005555555551b0 game`main at game.c:60:3\nframe #2: 0x00007ffff7c29d90 libc.so.6`__libc_start_call_main + 128"},
	{"asan", oplog.LevelFatal, "==12345==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x55d4c3a1b1e9 bp 0x7ffd5c9e1b30 sp 0x7ffd5c9e1b28",
		"READ of size 4 at 0x602000000010 thread T0\n    #0 0x55d4c3a1b1e9 in spawn_enemy /tmp/g/game.c:27\n    #1 0x55d4c3a1b2aa in main /tmp/g/game.c:40\n    #2 0x7f2d3c046d90 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58\n    #3 0x7f2d3c046e40 in __libc_start_main_impl ../csu/libc-start.c:360\n    #4 0x55d4c3a1b0a4 in _start (/tmp/g/game+0x1234)\n\n0x602000000010 is located 0 bytes inside of 40-byte region [0x602000000010,0x602000000038)\nfreed by thread T0 here:\n    #0 0x7f2d3c2b8537 in __interceptor_free ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:52\n    #1 0x55d4c3a1b29a in main /tmp/g/game.c:38\n\nSUMMARY: AddressSanitizer: heap-use-after-free /tmp/g/game.c:27 in spawn_enemy"},
	{"lsan", oplog.LevelFatal, "==123==ERROR: LeakSanitizer: detected memory leaks",
		"Direct leak of 40 byte(s) in 1 object(s) allocated from:\n    #0 0x7f2d3c2b8887 in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:145\n    #1 0x55d4c3a1b1e9 in load_level /tmp/g/level.c:12:5\n    #2 0x55d4c3a1b2aa in main /tmp/g/game.c:40\n    #3 0x7f2d3c046d90  (/lib/x86_64-linux-gnu/libc.so.6+0x29d90)\n\nSUMMARY: AddressSanitizer: 40 byte(s) leaked in 1 allocation(s)."},
	{"ubsan", oplog.LevelError, "game.c:12:5: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'", "at game.c:12:5"},
	{"terminate", oplog.LevelFatal, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  enemy pool exhausted",
		"./game(on_signal+0x2e)[0x55d4c3a1b100]\n/lib/x86_64-linux-gnu/libc.so.6(+0x3bfd0)[0x7f2d3c05afd0]\n/lib/x86_64-linux-gnu/libc.so.6(pthread_kill+0x11c)[0x7f]\n/lib/x86_64-linux-gnu/libc.so.6(raise+0x16)[0x7f]\n/lib/x86_64-linux-gnu/libc.so.6(abort+0xd7)[0x7f]\n/lib/x86_64-linux-gnu/libstdc++.so.6(+0xa5a3a)[0x7f]\n/lib/x86_64-linux-gnu/libstdc++.so.6(_ZSt9terminatev+0x1a)[0x7f]\n/lib/x86_64-linux-gnu/libstdc++.so.6(__cxa_throw+0x4f)[0x7f]\n./game(_ZN5World5spawnEi+0x5b)[0x55d4c3a1b200]\n./game(main+0x2a)[0x55d4c3a1b22a]"},
	{"mono", oplog.LevelFatal, "System.NullReferenceException: Object reference not set to an instance of an object",
		"  at System.Collections.Generic.List`1[T].get_Item (System.Int32 index) [0x00009] in <abc>:0 \n  at Game.World.Spawn (System.Int32 count) [0x00012] in /tmp/g/Game.cs:27 \n  at Game.Program.Main (System.String[] args) [0x0003a] in /tmp/g/Game.cs:60 "},
	{"dotnet", oplog.LevelFatal, "System.NullReferenceException: Object reference not set to an instance of an object",
		"   at Game.World.Spawn(Int32 count) in /src/Game.cs:line 27\n   at Game.Program.Main(String[] args) in /src/Game.cs:line 60"},
	{"java", oplog.LevelFatal, "java.lang.IllegalStateException: enemy pool exhausted",
		"\tat java.base/java.util.Objects.requireNonNull(Objects.java:233)\n\tat game.World.spawn(World.java:27)\n\tat game.Main.main(Main.java:40)\nCaused by: java.lang.RuntimeException: x\n\t... 3 more"},
	{"node", oplog.LevelFatal, "TypeError: Cannot read properties of undefined (reading 'hp')",
		"/tmp/g/game.js:12\n    enemy.hp -= 1;\n          ^\n\nTypeError: Cannot read properties of undefined (reading 'hp')\n    at World.spawn (/tmp/g/game.js:12:11)\n    at tick (/tmp/g/game.js:30:3)\n    at Timeout._onTimeout (/tmp/g/game.js:40:5)\n    at listOnTimeout (node:internal/timers:573:17)\n    at process.processTimers (node:internal/timers:514:7)\n\nNode.js v20.20.2"},
	{"nodemods", oplog.LevelFatal, "Error: boom",
		"Error: boom\n    at thrower (/tmp/g/node_modules/lib/index.js:3:9)\n    at World.spawn (/tmp/g/game.js:12:11)\n    at node:internal/main/run_main_module:28:49"},
	{"go", oplog.LevelFatal, "panic: runtime error: index out of range [5] with length 3",
		"\ngoroutine 1 [running]:\nmain.(*World).Spawn(...)\n\t/tmp/g/main.go:27\nmain.main()\n\t/tmp/g/main.go:40 +0x1d\nexit status 2"},
	// Its arguments' addresses, which differ every run, are not the title's.
	{"go-args", oplog.LevelFatal, "panic: assignment to entry in nil map",
		"goroutine 1 [running]:\nmain.(*World).addScore(0xc000012345, {0x4c5a2b, 0x6})\n\t/tmp/g/main.go:31 +0x2a\nmain.main()\n\t/tmp/g/main.go:40 +0x1d"},
	// A handler that numbers backtrace_symbols' frames (and logs each behind a prefix).
	{"sigsegv-numbered", oplog.LevelFatal, "Received signal SIGSEGV (11), stack trace:",
		"#0 ./game(+0x1253) [0x55cf6942e253]\n#1 /lib/x86_64-linux-gnu/libc.so.6(+0x3c050) [0x7fd3694b7050]\n#2 ./game(mix_audio+0x1a) [0x55cf6942e330]\n" +
			"#3 ./game(main+0x54) [0x55cf6942e38b]\n#4 /lib/x86_64-linux-gnu/libc.so.6(+0x2724a) [0x7fd3694a224a]\n#5 /lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x85) [0x7fd3694a2305]"},
	// A deferred recover printing runtime/debug's stack.
	{"go-recover", oplog.LevelFatal, "panic: runtime error: index out of range [3] with length 1",
		"goroutine 1 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\nruntime/debug.PrintStack()\n\t/usr/local/go/src/runtime/debug/stack.go:18 +0x13\n" +
			"main.main.func1()\n\t/tmp/g/main.go:19 +0x54\npanic({0x4bd840?, 0x5984eeac000?})\n\t/usr/local/go/src/runtime/panic.go:860 +0x13a\nmain.findPath(...)\n\t/tmp/g/main.go:10\nmain.main()\n\t/tmp/g/main.go:23 +0xa5"},
	{"go-mapwrite", oplog.LevelFatal, "fatal error: concurrent map writes",
		"goroutine 21 [running]:\ninternal/runtime/maps.fatal({0x4c8098?, 0x0?})\n\t/usr/local/go/src/runtime/panic.go:1181 +0x18\nmain.bumpScore(...)\n\t/tmp/g/main.go:12\n" +
			"main.main.func1(0x3)\n\t/tmp/g/main.go:22 +0x85\ncreated by main.main in goroutine 1\n\t/tmp/g/main.go:22 +0xac"},
	// Python: a message of three lines; notes after the exception; a
	// destructor's exception Python ignored as it exited; a recursion.
	{"py-multiline", oplog.LevelError, "ValueError: level validation failed:",
		"Traceback (most recent call last):\n  File \"/tmp/g/game.py\", line 6, in <module>\n    validate(\"arena\")\n  File \"/tmp/g/game.py\", line 5, in validate\n" +
			"    raise ValueError(\"level validation failed:\\n  missing spawn point\\n  missing exit door\")\nValueError: level validation failed:\n  missing spawn point\n  missing exit door"},
	{"py-notes", oplog.LevelError, "FileNotFoundError: level arena missing",
		"Traceback (most recent call last):\n  File \"/tmp/g/game.py\", line 9, in <module>\n    load_level(\"arena\")\n  File \"/tmp/g/game.py\", line 8, in load_level\n    raise e\n" +
			"FileNotFoundError: level arena missing\nhint: run tools/build_levels.py first\nsearched: levels/, mods/levels/"},
	{"py-ignored", oplog.LevelError, "KeyError: 'castle'",
		"Traceback (most recent call last):\n  File \"/tmp/g/game.py\", line 9, in <module>\n    load_level(\"castle\")\n  File \"/tmp/g/game.py\", line 8, in load_level\n" +
			"    return {\"arena\": 1}[n]\n           ~~~~~~~~~~~~^^^\nKeyError: 'castle'\nException ignored in: <function Sound.__del__ at 0x7fd7e58d84a0>\n" +
			"Traceback (most recent call last):\n  File \"/tmp/g/game.py\", line 5, in __del__\nAttributeError: 'Sound' object has no attribute 'channel'"},
	// logging's stack_info=True: the logging call's stack under the
	// traceback it logged, or alone; innermost last either way.
	{"py-stackinfo", oplog.LevelError, "game: spawn failed",
		"Traceback (most recent call last):\n  File \"/tmp/g/si.py\", line 7, in spawn\n    {}[\"orc\"]\n    ~~^^^^^^^\nKeyError: 'orc'\n" +
			"Stack (most recent call last):\n  File \"/tmp/g/si.py\", line 10, in <module>\n    spawn()\n  File \"/tmp/g/si.py\", line 9, in spawn\n" +
			"    log.error(\"spawn failed\", exc_info=True, stack_info=True)"},
	{"py-stackonly", oplog.LevelError, "game: no spawn point for orc",
		"Stack (most recent call last):\n  File \"/tmp/g/si.py\", line 20, in <module>\n    main()\n  File \"/tmp/g/si.py\", line 16, in spawn_wave\n" +
			"    log.error(\"no spawn point for orc\", stack_info=True)"},
	// logging's own error: titled by the logging call, not by logging's
	// frames nor by the game's formatter that ran it.
	{"py-logerror", oplog.LevelError, "--- Logging error ---",
		"Traceback (most recent call last):\n  File \"/usr/lib/python3.11/logging/__init__.py\", line 1110, in emit\n    msg = self.format(record)\n" +
			"  File \"/tmp/g/game.py\", line 73, in format\n    text = super().format(record)\n" +
			"  File \"/usr/lib/python3.11/logging/__init__.py\", line 377, in getMessage\n    msg = msg % self.args\n" +
			"TypeError: not enough arguments for format string\nCall stack:\n  File \"/tmp/g/game.py\", line 12, in <module>\n    spawn(\"orc\", 3)\n" +
			"  File \"/tmp/g/game.py\", line 8, in spawn\n    log.info(\"spawning %s with %d hp\", kind)\nMessage: 'spawning %s with %d hp'\nArguments: ('orc',)"},
	{"py-recursion", oplog.LevelError, "RecursionError: maximum recursion depth exceeded",
		"Traceback (most recent call last):\n  File \"/tmp/g/game.py\", line 8, in <module>\n    walk_tree(0)\n  File \"/tmp/g/game.py\", line 5, in walk_tree\n    return walk_tree(n + 1)\n" +
			"           ^^^^^^^^^^^^^^^^\n  [Previous line repeated 996 more times]\nRecursionError: maximum recursion depth exceeded"},
	// Godot's errors as a parser that is not Godot's keeps them: the
	// place on the line after, each error its own.
	{"godot-generic", oplog.LevelError, "get_language_code: Invalid locale 'C'.", "   At: core/translation.cpp:945."},
	{"godot-generic-2", oplog.LevelError, "set_locale: Unsupported locale 'C', falling back to 'en'.", "   At: core/translation.cpp:969."},
	{"godot4-generic", oplog.LevelError, "Invalid access to property or key 'orc' on a base object of type 'Dictionary'.",
		"   at: spawn_enemy (res://main.gd:5)"},
	{"asan-double-free", oplog.LevelFatal, "==24565==ERROR: AddressSanitizer: attempting double-free on 0x603000000040 in thread T0:",
		"    #0 0x7f920bab76a8 in __interceptor_free ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:52\n" +
			"    #1 0x55a42563c1d0 in destroy_sprite /tmp/g/game.c:6\n    #2 0x55a42563c1f3 in main /tmp/g/game.c:12"},
	// ThreadSanitizer's report as the follow layer keeps it: its pid, which
	// differs every run, is not the title's.
	{"tsan", oplog.LevelError, "ThreadSanitizer: data race (pid=4487)",
		"  Read of size 4 at 0x55c57bf8306c by main thread:\n    #0 main /tmp/g/game.c:13 (game+0x12b3)\n\n" +
			"  Previous write of size 4 at 0x55c57bf8306c by thread T1:\n    #0 audio_thread /tmp/g/game.c:6 (game+0x1211)\n\n" +
			"  Location is global 'score' of size 4 at 0x55c57bf8306c (game+0x406c)\n\n" +
			"SUMMARY: ThreadSanitizer: data race /tmp/g/game.c:13 in main"},
	// A message that holds another process's traceback: the exception
	// raised titles it, not the one in its message.
	{"py-nested", oplog.LevelError, "RuntimeError: dedicated server exited with status 1:",
		"Traceback (most recent call last):\n  File \"/tmp/g/main.py\", line 18, in <module>\n    start_server()\n" +
			"  File \"/tmp/g/main.py\", line 14, in start_server\n    raise RuntimeError(\"dedicated server exited\")\n" +
			"RuntimeError: dedicated server exited with status 1:\nTraceback (most recent call last):\n  File \"<string>\", line 6, in <module>\n" +
			"  File \"<string>\", line 4, in bind\nOSError: [Errno 98] Address already in use"},
	// Node's util.inspect of an error with properties, in brackets.
	{"node-inspected", oplog.LevelFatal, "[AggregateError: All promises were rejected] {",
		"  [errors]: [\n    Error: mirror https://cdn1.example.com unreachable\n        at fetchMirror (/tmp/g/main.js:3:9)\n        at async Promise.any (index 0)\n  ]\n}"},
	// Go's race detector: its accesses and the goroutine's creation are
	// no frames.
	{"go-race", oplog.LevelError, "DATA RACE",
		"==================\nRead at 0x00c00009e028 by goroutine 8:\n  main.main.func1()\n      /tmp/g/main.go:19 +0x9b\n\n" +
			"Previous write at 0x00c00009e028 by main goroutine:\n  main.main()\n      /tmp/g/main.go:24 +0x19b\n\n" +
			"Goroutine 8 (running) created at:\n  main.main()\n      /tmp/g/main.go:16 +0x185\n=================="},
	// glog's failure signal handler, and a failed CHECK (LOG(FATAL)), as
	// the follow layer keeps them.
	{"glog-segv", oplog.LevelFatal, "*** SIGSEGV (@0x0) received by PID 22421 (TID 0x7f18fe835e40) from PID 0; stack trace: ***",
		"*** Aborted at 1796536186 (unix time) try \"date -d @1796536186\" if you are using GNU date ***\nPC: @                0x0 (unknown)\n" +
			"@     0x7f18fe9a5cfe (unknown)\n@     0x7f18fe45a050 (unknown)\n@     0x5652ad03b709 phys::World::totalMass()\n@     0x5652ad03b4a2 main\n" +
			"@     0x7f18fe44524a (unknown)\n@     0x7f18fe445305 __libc_start_main\n@     0x5652ad03b1e1 _start"},
	{"glog-check", oplog.LevelFatal, "Check failed: bodies.size() < 4u (4 vs. 4) body pool full",
		"at game.cpp:12\n*** Check failure stack trace: ***\n@     0x7f7d7f8011ed  google::LogMessage::Fail()\n" +
			"@     0x7f7d7f8022e9  google::LogMessageFatal::~LogMessageFatal()\n@     0x55ca732886a7  phys::World::addBody()\n@     0x55ca7328840c  main"},
	// gdb -batch -ex run -ex bt: where it stopped, the source line, the frames.
	{"gdb-batch", oplog.LevelFatal, "Program received signal SIGSEGV, Segmentation fault.",
		"__strcpy_evex () at ../sysdeps/x86_64/multiarch/strcpy-evex.S:599\n599\t../sysdeps/x86_64/multiarch/strcpy-evex.S: No such file or directory.\n" +
			"#0  __strcpy_evex () at ../sysdeps/x86_64/multiarch/strcpy-evex.S:599\n#1  0x000055555555517c in apply_save (s=0x0, name=0x55555555603c \"Rowan\") at game.c:4\n" +
			"#2  0x0000555555555242 in main () at game.c:11"},
	// V8's built-in frame first.
	{"node-builtin", oplog.LevelFatal, "SyntaxError: Expected property name or '}' in JSON at position 1",
		"<anonymous_script>:1\n{bad json\n ^\n\nSyntaxError: Expected property name or '}' in JSON at position 1\n    at JSON.parse (<anonymous>)\n    at loadSave (/tmp/g/game.js:4:15)\n    at Object.<anonymous> (/tmp/g/game.js:6:1)"},
	// Haxe: HashLink's frames innermost first (an engine's below the
	// game's); hxcpp's and Neko's outermost first, the message last.
	{"hashlink", oplog.LevelFatal, "Null access .hp",
		"Called from world.Enemy.takeDamage (world/Enemy.hx line 37)\nCalled from world.Level.update (world/Level.hx line 102)\n" +
			"Called from hxd.App.mainLoop (hxd/App.hx line 177)\nCalled from hxd.$System.mainLoop (hxd/System.hl.hx line 62)\nCalled from fun$1702 (?:1)"},
	{"hashlink-std", oplog.LevelFatal, "Null access",
		"Called from @0x40622200\nCalled from haxe.$MainLoop.sortEvents(C:\\HaxeToolkit\\haxe\\std/haxe/MainLoop.hx:136)\n" +
			"Called from haxe.$EntryPoint.run(C:\\HaxeToolkit\\haxe\\std/haxe/EntryPoint.hx:125)\nCalled from fun$1495(?:1)"},
	{"heaps", oplog.LevelFatal, "Null access",
		"Called from h2d.Object.addChild (h2d/Object.hx line 300)\nCalled from Main.init (Main.hx line 20)\nCalled from hxd.App.setup (hxd/App.hx line 120)"},
	{"hxcpp", oplog.LevelFatal, "Null Object Reference",
		"Called from hxcpp::__hxcpp_main\nCalled from ApplicationMain::main ApplicationMain.hx line 25\nCalled from Main::update Main.hx line 33\n" +
			"Called from world.Enemy::takeDamage world/Enemy.hx line 37\nCritical Error: Null Object Reference"},
	// Defold's call stack, behind the handler's and the C runtime's frames.
	{"defold", oplog.LevelFatal, "Successfully wrote Crashdump to file: C:\\Users\\Mike\\AppData\\Roaming\\Defold/_crash",
		"0 0x7FF7018E4030 dmCrash::GenerateCallstack D:\\a\\defold\\defold\\engine\\crash\\src\\backtrace_win32.cpp:144\n" +
			"1 0x7FF7019DBC4C raise minkernel\\crts\\ucrt\\src\\appcrt\\misc\\signal.cpp:547\n" +
			"2 0x7FF70196FC70 _wassert minkernel\\crts\\ucrt\\src\\appcrt\\startup\\assert.cpp:443\n" +
			"3 0x7FF701611AF0 dmGameSystem::RenderBatch D:\\a\\defold\\engine\\gamesys\\comp_sprite.cpp:1319"},
	{"defold-linux", oplog.LevelFatal, "CALL STACK:",
		"0 0x55D3A1F0C3B2 dmCrash::OnCrash(int) <unknown>:0\n1 0x7F2C1A04250F __sigaction <unknown>:0\n" +
			"2 0x55D3A1E51A20 dmGameSystem::CompSpriteUpdate(dmGameObject::ComponentsUpdateParams const&) <unknown>:0\n3 0x55D3A1C11E5A engine_main <unknown>:0"},
	// Unreal's critical error: the frame's function and source, past its address and module.
	{"unreal", oplog.LevelFatal, "Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x00000000000003a8",
		"Fatal error!\nUnhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x00000000000003a8\n" +
			"[Callstack] 0x00007ff6a1b2c3d4 MyGame.exe!AEnemySpawner::SpawnWave() [D:\\Projects\\MyGame\\Source\\MyGame\\EnemySpawner.cpp:88]\n" +
			"[Callstack] 0x00007ffb4c3a7344 KERNEL32.DLL!UnknownFunction []"},
	// Zig's panic, Nim's traceback (outermost first), Dart's stack: the
	// game's frame, past the language's standard library.
	{"zig", oplog.LevelFatal, "panic: index out of bounds: index 52304, len 15580",
		"thread 6731 panic: index out of bounds: index 52304, len 15580\n" +
			"/home/dev/fire/src/main.zig:609:39: 0x233fb7 in showDoomFire (fire)\n                spread_px = screen_buf[doFire_idx];\n                                      ^\n" +
			"/home/dev/fire/src/main.zig:681:17: 0x231be9 in main (fire)\n    showDoomFire();\n                ^\n" +
			"/usr/lib/zig/std/start.zig:574:37: 0x23164e in main (fire)\n???:?:?: 0x7fa90224cccf in ??? (libc.so.6)"},
	{"zig-std", oplog.LevelFatal, "panic: integer overflow",
		"thread 12 panic: integer overflow\n/usr/lib/zig/std/fmt.zig:88:20: 0x2311ab in parseInt (game)\n" +
			"/home/dev/game/src/level.zig:14:9: 0x231be9 in loadLevel (game)"},
	{"nim", oplog.LevelFatal, "unhandled exception: index 5 not in 0 .. 2 [IndexDefect]",
		"/home/dev/game/game.nim(11)   game\n/home/dev/game/game.nim(9)    tick\n/home/dev/game/game.nim(5)    spawnEnemy\n" +
			"/usr/lib/nim/lib/system/fatal.nim(54) sysFatal\nError: unhandled exception: index 5 not in 0 .. 2 [IndexDefect]"},
	{"dart", oplog.LevelFatal, "Bad state: No element",
		"#0      List.first (dart:core-patch/growable_array.dart:343:5)\n#1      World.spawnEnemy (file:///home/dev/game/bin/game.dart:12:20)\n" +
			"#2      main (file:///home/dev/game/bin/game.dart:30:9)\n#3      _RawReceivePort._handleMessage (dart:isolate-patch/isolate_patch.dart:184:12)"},
	{"odin", oplog.LevelFatal, "Index 5 is out of range 0..<3", "at /home/dev/game/main.odin(12:13)"},
	{"neko", oplog.LevelFatal, "Invalid field access : width",
		"Called from ? line 1\nCalled from Game.hx line 69\nCalled from Game.hx line 42\nCalled from Game.hx line 30\nUncaught exception - Invalid field access : width"},
}

// runtimeTitles are the titles of runtimeCases, by name: the message and
// the game's own frame, past the runtime's.
var runtimeTitles = map[string]string{
	"python":           `ValueError: bad spawn count in File "/tmp/g/game.py", line 12, in spawn_enemy`,
	"faulthandler":     `Fatal Python error: Segmentation fault in File "/tmp/g/game.py", line 7 in crash_now`,
	"assert":           "Assertion `count < 100' failed in spawn_enemy (game.c:27)",
	"sigsegv":          "Caught signal 11 (Segmentation fault), backtrace: in ./game(update_player+0x14)",
	"gdb":              "Program received signal SIGSEGV, Segmentation fault. in update_player (p=0x0) at game.c:41",
	"lldb":             "Process 1234 stopped in game`update_player(p=0x0000000000000000) at game.c:41:5",
	"asan":             "AddressSanitizer: heap-use-after-free in spawn_enemy /tmp/g/game.c:27",
	"lsan":             "LeakSanitizer: detected memory leaks in load_level /tmp/g/level.c:12:5",
	"ubsan":            "runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int' in game.c:12:5",
	"terminate":        "terminate called after throwing 'std::runtime_error': enemy pool exhausted in ./game(World::spawn+0x5b)",
	"mono":             "System.NullReferenceException: Object reference not set to an instance of an object in Game.World.Spawn (System.Int32 count) in /tmp/g/Game.cs:27",
	"dotnet":           "System.NullReferenceException: Object reference not set to an instance of an object in Game.World.Spawn(Int32 count) in /src/Game.cs:line 27",
	"java":             "java.lang.IllegalStateException: enemy pool exhausted in game.World.spawn(World.java:27)",
	"node":             "TypeError: Cannot read properties of undefined (reading 'hp') in World.spawn (/tmp/g/game.js:12:11)",
	"nodemods":         "Error: boom in World.spawn (/tmp/g/game.js:12:11)",
	"go":               "panic: runtime error: index out of range [5] with length 3 in main.(*World).Spawn(...) at /tmp/g/main.go:27",
	"sigsegv-numbered": "Received signal SIGSEGV (11), stack trace: in ./game(mix_audio+0x1a)",
	"go-args":          "panic: assignment to entry in nil map in main.(*World).addScore(...) at /tmp/g/main.go:31",
	"go-recover":       "panic: runtime error: index out of range [3] with length 1 in main.findPath(...) at /tmp/g/main.go:10",
	"go-mapwrite":      "fatal error: concurrent map writes in main.bumpScore(...) at /tmp/g/main.go:12",
	"node-builtin":     "SyntaxError: Expected property name or '}' in JSON at position 1 in loadSave (/tmp/g/game.js:4:15)",
	"godot-generic":    "get_language_code: Invalid locale 'C'. in core/translation.cpp:945",
	"godot-generic-2":  "set_locale: Unsupported locale 'C', falling back to 'en'. in core/translation.cpp:969",
	"godot4-generic":   "Invalid access to property or key 'orc' on a base object of type 'Dictionary'. in spawn_enemy (res://main.gd:5)",
	"tsan":             "ThreadSanitizer: data race in main /tmp/g/game.c:13 (game+0x12b3)",
	"node-inspected":   "AggregateError: All promises were rejected in fetchMirror (/tmp/g/main.js:3:9)",
	"go-race":          "DATA RACE in main.main.func1() at /tmp/g/main.go:19",
	"py-nested":        `RuntimeError: dedicated server exited with status 1: in File "/tmp/g/main.py", line 14, in start_server`,
	"glog-segv":        "SIGSEGV received in phys::World::totalMass()",
	"glog-check":       "Check failed: bodies.size() < 4u (4 vs. 4) body pool full in game.cpp:12",
	"gdb-batch":        `Program received signal SIGSEGV, Segmentation fault. in apply_save (s=0x0, name=0x55555555603c "Rowan") at game.c:4`,
	"asan-double-free": "AddressSanitizer: attempting double-free in destroy_sprite /tmp/g/game.c:6",
	"py-multiline":     `ValueError: level validation failed: in File "/tmp/g/game.py", line 5, in validate`,
	"py-notes":         `FileNotFoundError: level arena missing in File "/tmp/g/game.py", line 8, in load_level`,
	"py-ignored":       `KeyError: 'castle' in File "/tmp/g/game.py", line 8, in load_level`,
	"py-stackinfo":     `KeyError: 'orc' in File "/tmp/g/si.py", line 7, in spawn`,
	"py-stackonly":     `game: no spawn point for orc in File "/tmp/g/si.py", line 16, in spawn_wave`,
	"py-logerror":      `TypeError: not enough arguments for format string in File "/tmp/g/game.py", line 8, in spawn`,
	"py-recursion":     `RecursionError: maximum recursion depth exceeded in File "/tmp/g/game.py", line 5, in walk_tree`,
	"hashlink":         "Null access .hp in world.Enemy.takeDamage (world/Enemy.hx line 37)",
	"hashlink-std":     `Null access in haxe.$MainLoop.sortEvents(C:\HaxeToolkit\haxe\std/haxe/MainLoop.hx:136)`,
	"heaps":            "Null access in Main.init (Main.hx line 20)",
	"hxcpp":            "Null Object Reference in world.Enemy::takeDamage world/Enemy.hx line 37",
	"defold":           `Successfully wrote Crashdump to file: C:\Users\Mike\AppData\Roaming\Defold/_crash in dmGameSystem::RenderBatch D:\a\defold\engine\gamesys\comp_sprite.cpp:1319`,
	"defold-linux":     "CALL STACK: in dmGameSystem::CompSpriteUpdate(dmGameObject::ComponentsUpdateParams const&)",
	"unreal":           `Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x00000000000003a8 in AEnemySpawner::SpawnWave() [D:\Projects\MyGame\Source\MyGame\EnemySpawner.cpp:88]`,
	"zig":              "panic: index out of bounds: index 52304, len 15580 in showDoomFire (/home/dev/fire/src/main.zig:609:39)",
	"zig-std":          "panic: integer overflow in loadLevel (/home/dev/game/src/level.zig:14:9)",
	"nim":              "unhandled exception: index 5 not in 0 .. 2 [IndexDefect] in spawnEnemy (/home/dev/game/game.nim(5))",
	"dart":             "Bad state: No element in World.spawnEnemy (file:///home/dev/game/bin/game.dart:12:20)",
	"odin":             "Index 5 is out of range 0..<3 in /home/dev/game/main.odin(12:13)",
	"neko":             "Invalid field access : width in Game.hx line 30",
}

// elsewhere is c's crash as another run prints it: other addresses, pid
// and line numbers.
func elsewhere(s string) string {
	s = regexp.MustCompile(`0x[0-9a-fA-F]+`).ReplaceAllString(s, "0x7ffee0001234")
	s = regexp.MustCompile(`==[0-9]+==`).ReplaceAllString(s, "==777==")
	return regexp.MustCompile(`(\.[a-z]+:|line )([0-9]+)`).ReplaceAllString(s, "${1}9${2}")
}

// TestRuntimes_Title: each runtime's crash report, as the follow layer
// records it, is titled by its message and the game's own frame, file
// and line kept.
func TestRuntimes_Title(t *testing.T) {
	for _, c := range runtimeCases {
		r := &oplog.Record{Level: c.level, Text: c.text, Stack: c.stack}
		if got := crash.Title(crash.Message(r), crash.GameFrame(c.stack)); got != runtimeTitles[c.name] {
			t.Errorf("%s: title %q, want %q", c.name, got, runtimeTitles[c.name])
		}
	}
}

// TestRuntimes_Signature: one crash from another run (pid, addresses, line
// numbers) has one signature; different crashes have different ones.
func TestRuntimes_Signature(t *testing.T) {
	seen := map[string]string{}
	for _, c := range runtimeCases {
		sig := crash.Parse(c.stack).WithHead(c.text).Signature()
		if again := crash.Parse(elsewhere(c.stack)).WithHead(elsewhere(c.text)).Signature(); again != sig {
			t.Errorf("%s: %s, from another run %s:\n%+v\n%+v", c.name, sig, again, crash.Parse(c.stack).WithHead(c.text),
				crash.Parse(elsewhere(c.stack)).WithHead(elsewhere(c.text)))
		}
		if other, ok := seen[sig]; ok {
			t.Errorf("%s and %s: one signature", other, c.name)
		}
		seen[sig] = c.name
	}
}

// TestRuntimes_GameFrame: the game's frame past a signal handler's own
// frames, in a chain of Python exceptions, and in the current thread of
// a faulthandler dump of every thread.
func TestRuntimes_GameFrame(t *testing.T) {
	for _, c := range []struct{ name, stack, want string }{
		{"PythonChain", "Traceback (most recent call last):\n  File \"/tmp/g/game.py\", line 5, in load\n    open(p)\n" +
			"FileNotFoundError: x\n\nDuring handling of the above exception, another exception occurred:\n\n" +
			"Traceback (most recent call last):\n  File \"<frozen runpy>\", line 198, in _run_module_as_main\n" +
			"  File \"/tmp/g/game.py\", line 9, in start\n    load()\n" +
			"  File \"/usr/local/lib/python3.12/json/__init__.py\", line 293, in load\n    return loads(fp.read())\nValueError: y",
			`File "/tmp/g/game.py", line 9, in start`},
		{"FaulthandlerThreads", "Thread 0x00007f0000000001 (most recent call first):\n  File \"/tmp/g/net.py\", line 3 in poll\n\n" +
			"Current thread 0x00007f2d3c1f6740 (most recent call first):\n  File \"/tmp/g/game.py\", line 7 in crash_now\n",
			`File "/tmp/g/game.py", line 7 in crash_now`},
		{"GdbHandler", "#0  0x0000555555555100 in on_signal (sig=11) at game.c:5\n#1  <signal handler called>\n" +
			"#2  0x0000555555555189 in update_player (p=0x0) at game.c:41", "#2  0x0000555555555189 in update_player (p=0x0) at game.c:41"},
		{"UBSanFrames", "    #0 0x55d4c3a1b1e9 in add /tmp/g/game.c:12:5\n    #1 0x55d4c3a1b2aa in main /tmp/g/game.c:40:3\n" +
			"    #2 0x7f2d3c046d90  (/lib/x86_64-linux-gnu/libc.so.6+0x29d90)", "#0 0x55d4c3a1b1e9 in add /tmp/g/game.c:12:5"},
		{"RubyCMethod", "err.rb:2:in `fetch'\n\tfrom err.rb:2:in `parse'\n\tfrom err.rb:3:in `<main>'", "from err.rb:2:in `parse'"},
		{"RubyCMethod34", "err.rb:2:in 'Hash#fetch'\n\tfrom err.rb:2:in 'Object#parse'\n\tfrom err.rb:3:in '<main>'", "from err.rb:2:in 'Object#parse'"},
		{"OnlyRuntime", "/lib/x86_64-linux-gnu/libc.so.6(abort+0xd7)[0x7f]\n./game(_start+0x21)[0x55]", ""},
	} {
		if got := crash.GameFrame(c.stack); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// A Ruby caller's title has no "from ".
	if got := crash.Title("key not found: :tiles (KeyError)", crash.GameFrame("err.rb:2:in `fetch'\n\tfrom err.rb:2:in `parse'")); got != "key not found: :tiles (KeyError) in err.rb:2:in `parse'" {
		t.Errorf("Ruby's title: %q", got)
	}
	// The handler's frame is no frame of the crash's signature either.
	a := crash.Parse("./game(crash_handler+0x2e)[0x1]\n/lib/x86_64-linux-gnu/libc.so.6(+0x3bfd0)[0x2]\n./game(update+0x14)[0x3]")
	if len(a.Frames) != 1 || a.Frames[0] != "update" {
		t.Errorf("frames past a handler: %q", a.Frames)
	}
}

// TestRuntimes_Stripped: a crash handler's backtrace_symbols of a program
// without symbols (gcc -O0, strip) names places in the program only: they
// title the crash and tell two sites apart, while the handler's frame,
// the addresses and the pid of each run do not.
func TestRuntimes_Stripped(t *testing.T) {
	report := func(site, caller, base string) string {
		return "./game(+0x11ee)[0x" + base + "1ee]\n/lib/x86_64-linux-gnu/libc.so.6(+0x3c050)[0x7fce8ac4a050]\n" +
			"./game(+0x" + site + ")[0x" + base + site[1:] + "]\n./game(+0x" + caller + ")[0x" + base + caller[1:] + "]\n" +
			"/lib/x86_64-linux-gnu/libc.so.6(+0x2724a)[0x7fce8ac3524a]\n/lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x85)[0x7fce8ac35305]\n" +
			"./game(+0x1101)[0x" + base + "101]"
	}
	const text = "*** SIGSEGV received, backtrace:"
	a, again, b := report("1243", "1360", "55ffd34b6"), report("1243", "1360", "55af3745a"), report("1257", "136e", "55ffd34b6")
	sig := func(stack string) string { return crash.Parse(stack).WithHead(text).Signature() }
	if sig(a) != sig(again) || sig(a) == sig(b) {
		t.Errorf("signatures: one site in two runs %s %s, another site %s", sig(a), sig(again), sig(b))
	}
	for stack, want := range map[string]string{a: text + " in ./game(+0x1243)", b: text + " in ./game(+0x1257)"} {
		r := &oplog.Record{Level: oplog.LevelFatal, Text: text, Stack: stack}
		if got := crash.Title(crash.Message(r), crash.GameFrame(stack)); got != want {
			t.Errorf("title %q, want %q", got, want)
		}
	}
}

// TestRuntimes_Loguru: loguru's extended traceback (blank lines between
// frames, the frame that caught the exception marked "> ", each line's
// values under it) has the frames of Python's own, the marked one among
// them, and one signature whatever the values and addresses.
func TestRuntimes_Loguru(t *testing.T) {
	stack := func(dt, addr string) string {
		return "Traceback (most recent call last):\n\n  File \"/g/game.py\", line 21, in <module>\n    main()\n    └ <function main at " + addr + ">\n\n" +
			"> File \"/g/game.py\", line 16, in main\n    update(w)\n    │      └ " + dt + "\n    └ <function update at " + addr + ">\n\n" +
			"  File \"/g/game.py\", line 5, in step\n    return 1 / dt\n               └ " + dt + "\n\nZeroDivisionError: division by zero"
	}
	a := crash.Parse(stack("0", "0x7f06ab9a2700")).WithHead("physics step failed")
	plain := crash.Parse(strings.ReplaceAll(stack("0", "0x7f06ab9a2700"), "> File", "  File")).WithHead("physics step failed")
	if len(a.Frames) != 3 || a.Signature() != plain.Signature() {
		t.Errorf("frames %q (signature %s); without the mark %q (%s)", a.Frames, a.Signature(), plain.Frames, plain.Signature())
	}
	if b := crash.Parse(stack("{'dt': 0.0}", "0x55d0c0de0000")).WithHead("physics step failed"); b.Signature() != a.Signature() {
		t.Errorf("other values: %s, want %s", b.Signature(), a.Signature())
	}
	if got := crash.GameFrame(stack("0", "0x1")); got != `File "/g/game.py", line 5, in step` {
		t.Errorf("game frame %q", got)
	}
}
