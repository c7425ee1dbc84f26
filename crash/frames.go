package crash

// The frame shapes of each language family: Java, .NET, Mono and
// JavaScript ("at ..."), gdb ("#3 0x... in ..."), Python (File "...") and Lua
// tracebacks. Unity's Debug.Log frames and Go's are read in parseFrame.

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// atFrame reads the part after "at " of a Java, .NET, Mono or JavaScript frame.
func atFrame(s string) string {
	s = strings.TrimSpace(s)
	// Mono: "(wrapper managed-to-native) UnityEngine.Object:Destroy (...)".
	if strings.HasPrefix(s, "(wrapper ") {
		if i := strings.IndexByte(s, ')'); i > 0 {
			s = strings.TrimSpace(s[i+1:])
		}
	}
	var name string
	if i := strings.Index(s, " ("); i > 0 {
		name = s[:i] // Mono "Player.Update () [0x00012] in <abc>:0", JS "foo (file.js:1:2)"
	} else if i := strings.IndexByte(s, '('); i > 0 {
		name = s[:i] // Java "pkg.C.m(C.java:12)", .NET "N.C.M() in f.cs:line 4"
	} else {
		name, _, _ = strings.Cut(s, " ") // JS "file.js:12:34", anonymous
		name = dropLineNumbers(name)
	}
	// Java modules and class loaders: "java.base/java.lang.Thread.run",
	// "app//net.minecraft.Foo.bar"; but not "Foo$$Lambda/0x...".
	if i := strings.LastIndexByte(name, '/'); i >= 0 && !strings.Contains(name[:i], "$") {
		name = name[i+1:]
	}
	return normalizeName(name)
}

// gdbFrame reads "#3  0x00007f3a in Engine::World::Tick (this=0x5, dt=0.1) at src/world.cpp:88".
func gdbFrame(s string) string {
	if sym, module, ok := coredumpParts(s); ok {
		if name, _, _ := strings.Cut(module, "+0x"); sym == "n/a" && (module == "" || systemLibrary(name)) {
			return "" // a system library's frame without a symbol, as backtrace_symbols' (offsetFrame)
		} else if sym == "n/a" {
			return oplog.ClipBytes(module, maxFrameBytes)
		}
		if nativeStartup(sym) {
			return ""
		}
		return normalizeName(demangled(sym))
	}
	i := 1
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	s = strings.TrimSpace(s[i:])
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "(inlined) ") { // cpptrace's frame inlined into the next
		if _, rest, ok := strings.Cut(s, " in "); ok {
			s = asanFunction(rest)
		}
	} else if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") && strings.Contains(s[i:], "+0x") {
		// ThreadSanitizer's: "#0 main /tmp/g/game.c:13 (game+0x12b3)".
		s = asanFunction(s[:i])
	}
	if strings.HasPrefix(s, "<signal handler called>") {
		return ""
	}
	if i := strings.Index(s, " at "); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, " from "); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '('); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	if nativeStartup(s) {
		return ""
	}
	return normalizeName(s)
}

// pythonFrame reads `File "game/ai.py", line 12, in think` and
// faulthandler's `File "game/ai.py", line 12 in think`.
func pythonFrame(s string) string {
	rest := s[len(`File "`):]
	path, rest, _ := strings.Cut(rest, `"`)
	_, fn, ok := strings.Cut(rest, ", in ")
	if !ok {
		_, fn, _ = strings.Cut(rest, " in ")
	}
	return oplog.ClipBytes(pythonPath(path)+" in "+normalizeName(fn), maxFrameBytes)
}

// luaLocation reports whether loc is where a Lua traceback line says it
// is: "[C]", `[string "chunk"]:1` or a file path with a line number.
func luaLocation(loc string) bool {
	if strings.HasPrefix(loc, "[C]") || strings.HasPrefix(loc, "[string ") {
		return true
	}
	i := strings.LastIndexByte(loc, ':')
	return i > 0 && i < len(loc)-1 && allDigits(loc[i+1:]) && !strings.ContainsAny(loc, " \t")
}

// rubyFrame reads Ruby's frames: the place an exception was raised,
// "main.rb:16:in `equip'" (Ruby 3.4: "in 'Game#equip'"), and the ones
// under it, "from main.rb:10:in `starting_kit'"; line numbers dropped, as
// Lua's are.
func rubyFrame(s string) (string, bool) {
	loc, what, ok := strings.Cut(strings.TrimPrefix(s, "from "), ":in ")
	if !ok || len(what) < 2 || what[0] != '`' && what[0] != '\'' || !luaLocation(loc) || strings.HasPrefix(loc, "[") {
		return "", false
	}
	fn, _, _ := strings.Cut(what[1:], "'")
	return oplog.ClipBytes(dropLineNumbers(loc)+" in "+fn, maxFrameBytes), true
}
