package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// dumpLine adds s to the crash dump held; ok is false when s starts a new
// entry instead (the dump ended, or was cut short by a banner or a label).
func (p *godotParser) dumpLine(s string, end int64) (out []Entry, ok bool) {
	t := trimLeft(s)
	if p.dump == dumpEnded {
		// After "-- END OF C++ BACKTRACE --" and its rule, only the script
		// backtraces belong to the dump.
		if !strings.HasSuffix(t, " backtrace (most recent call first):") {
			return nil, false
		}
		p.dump = dumpIn
		return p.add(t, end), true
	}
	switch {
	case isGodotHeader(s):
		return nil, false
	case strings.HasPrefix(t, "-- END OF ") && strings.HasSuffix(t, "BACKTRACE --"):
		p.dump = dumpEnded
	case strings.HasPrefix(t, "Engine version: "):
		p.engine = t[len("Engine version: "):]
		p.e.end = end
		return nil, true
	case strings.HasPrefix(t, "Dumping the backtrace."), strings.HasPrefix(t, "Load address: "):
		p.e.end = end
		return nil, true
	case len(t) > 3 && t[0] == '[' && isDigit(t[1]):
		f, keep := dumpFrame(t)
		if !keep {
			p.e.end = end
			return nil, true
		}
		return p.add(f, end), true
	}
	return p.add(t, end), true
}

// isGodotHeader reports a line that starts an entry of its own: an error
// or warning label, a crash dump, or a run's banner.
func isGodotHeader(s string) bool {
	label, _, ok := godotLabel(s)
	if ok {
		switch label {
		case "ERROR", "SCRIPT ERROR", "SHADER ERROR", "WARNING", "SCRIPT WARNING", "handle_crash", "CrashHandlerException":
			return true
		}
	}
	return strings.HasPrefix(s, "Godot Engine v")
}

// godotLabel cuts the label from a line: "ERROR: msg" (and "USER
// ERROR: msg") as Godot prints them, "**ERROR**: msg" as Godot 3's file
// logger writes them.
func godotLabel(s string) (label, msg string, ok bool) {
	label, msg, ok = strings.Cut(strings.TrimPrefix(s, "USER "), ": ")
	if len(label) > 4 && strings.HasPrefix(label, "**") && strings.HasSuffix(label, "**") {
		label = label[2 : len(label)-2]
	}
	return label, msg, ok
}

// isGodotFileLabel reports the label of an error Godot 3's file logger
// wrote: "**ERROR**: ", "**SCRIPT ERROR**: ".
func isGodotFileLabel(s string) bool {
	if !strings.HasPrefix(s, "**") {
		return false
	}
	label, _, ok := godotLabel(s)
	return ok && label != s[:strings.IndexByte(s, ':')] && isGodotHeader(s)
}

// isStackStart reports an indented line that begins a stack: Godot's
// "at:", Godot 3's "At:", a script backtrace, or a .NET or Java frame.
func isStackStart(t string) bool {
	return strings.HasPrefix(t, "at: ") || strings.HasPrefix(t, "At: ") ||
		strings.HasSuffix(t, " backtrace (most recent call first):") || isManagedFrame(t)
}

// isManagedFrame reports a .NET, Mono or Java frame ("at N.C.M() in
// file:line 4"), or a line of its exception chain.
func isManagedFrame(t string) bool {
	if rest, ok := strings.CutPrefix(t, "at "); ok {
		return rest != "" && !strings.HasPrefix(rest, "least ") && strings.ContainsAny(rest, ".(")
	}
	return strings.HasPrefix(t, "--- End of ") || strings.HasPrefix(t, "---> ") || strings.HasPrefix(t, "... ")
}

// looksLikeException reports a message that names an exception or an error.
func looksLikeException(s string) bool {
	return strings.Contains(s, "Exception") || strings.Contains(s, "Error")
}

// printLevel is the level of a line Godot printed without a label: the
// game's own "Error: ..." or "[ERROR] ...", "FATAL: ..." (a game that gives up
// says so before it quits), or info.
func printLevel(s string) oplog.Level {
	switch {
	case strings.HasPrefix(s, "FATAL: "), strings.HasPrefix(s, "CRITICAL: "), strings.HasPrefix(s, "[FATAL]"):
		return oplog.LevelFatal // the game's own word that it gives up: printerr("FATAL: …") before quit(1)
	case strings.HasPrefix(s, "Error: "), strings.HasPrefix(s, "[ERROR]"):
		return oplog.LevelError
	case strings.HasPrefix(s, "Warning: "), strings.HasPrefix(s, "[WARN]"), strings.HasPrefix(s, "[WARNING]"):
		return oplog.LevelWarn
	}
	return oplog.LevelInfo
}

// dumpFrame rewrites a crash dump's "[3] ..." line into a frame; keep is
// false for a line that says nothing ("error(-1): no debug info").
//
//	[2] Node::get_child(int, bool) const (??:0)                   3.x, 4.x
//	[2] godot() [0xdf5f2f] (/path/godot/modules/gdscript/gdscript.h:591)
//	[1] /lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f1c0d242520] (??:0)
//	[0] Variant::reference (Z:\godot\core\variant\variant.cpp:1090)  Windows
//	[2] 48f1c81 (main+44f1c81) - /tmp/Godot_v4.7.1-stable_linux.x86_64() [0x48f1c81]   4.7
//	[0] 7ff69d15f3a7 (main+540f3a7) - Thread::release_main_thread (D:\godot\core\os\thread.cpp:101)
//	[2] CoreBind::OS::crash(String const&) at ./core/core_bind.cpp:344 (discriminator 2)
//	[2] 2   libsystem_platform.dylib   0x00000001836a9a24 _sigtramp + 56   macOS
func dumpFrame(t string) (string, bool) {
	i := strings.IndexByte(t, ']')
	if i < 0 || i+2 > len(t) {
		return t, true
	}
	t = strings.TrimSpace(t[i+1:])
	if strings.HasPrefix(t, "error(") || t == "???" {
		return "", false
	}
	if j := strings.Index(t, " (discriminator "); j > 0 && strings.HasSuffix(t, ")") {
		if k := strings.IndexByte(t[j+2:], ')'); k >= 0 {
			t = t[:j] + t[j+2+k+1:] // gcc's "file.cpp:336 (discriminator 2)"
		}
	}
	module := ""
	// 4.7: "addr (module+offset) - rest".
	if a, rest, ok := strings.Cut(t, " - "); ok && strings.HasSuffix(a, ")") {
		if j := strings.IndexByte(a, '('); j > 0 {
			module = a[j+1 : len(a)-1]
		}
		t = rest
	}
	if f, ok := macFrame(t); ok {
		return f, true
	}
	loc := ""
	if j := strings.LastIndex(t, " at "); j > 0 { // 4.7's "f(args) at file:line"
		t, loc = t[:j], t[j+4:]
	} else if j := strings.LastIndex(t, ") ("); j >= 0 && strings.HasSuffix(t, ")") {
		t, loc = t[:j+1], t[j+3:len(t)-1]
	} else if j := strings.LastIndex(t, " ("); j > 0 && strings.HasSuffix(t, ")") && !strings.HasSuffix(t[:j], "]") {
		t, loc = t[:j], t[j+2:len(t)-1]
	} else if j := strings.LastIndex(t, "] ("); j > 0 && strings.HasSuffix(t, ")") {
		t, loc = t[:j+1], t[j+3:len(t)-1]
	}
	if loc == "??:0" || loc == "??:?" {
		loc = ""
	}
	name := cppName(t)
	if bin, addr, ok := strings.Cut(t, " [0x"); ok && strings.HasSuffix(addr, "]") {
		// Unsymbolised: "godot() [0xdf5f2f]", "libc.so.6(+0x42520) [0x...]";
		// 4.7 names the module's offset itself.
		var sym bool
		if name, sym = binOffset(bin, addr[:len(addr)-1]); !sym && module != "" {
			name = module
		}
	}
	if loc == "" {
		return "at " + name, true
	}
	return "at " + name + " (" + loc + ")", true
}

// binOffset names an unsymbolised frame by its binary and offset, which
// stay the same from run to run of one build: "libc.so.6+45330",
// "godot+df5f2f".
func binOffset(bin, addr string) (name string, symbol bool) {
	off := addr
	if j := strings.Index(bin, "(+0x"); j >= 0 && strings.HasSuffix(bin, ")") {
		off, bin = bin[j+4:len(bin)-1], bin[:j]
	} else if j := strings.Index(bin, "("); j >= 0 {
		if sym := bin[j+1 : max(len(bin)-1, j+1)]; sym != "" && !strings.HasPrefix(sym, "+") {
			sym, _, _ = strings.Cut(sym, "+")
			if lib := baseName(bin[:j]); sharedLibrary(lib) {
				// A system library's: "libc.so.6(clock_nanosleep)", which
				// no title takes for the game's.
				return lib + "(" + sym + ")", true
			}
			return sym, true // "godot(Main::iteration+0x8b)"
		}
		bin = bin[:j]
	}
	return baseName(bin) + "+" + off, false
}

// baseName is path's last element, whatever its separator.
func baseName(path string) string {
	return path[strings.LastIndexAny(path, `/\`)+1:]
}

// sharedLibrary reports a shared library's file name: "libc.so.6",
// "libstdc++.so.6", "libSystem.B.dylib".
func sharedLibrary(name string) bool {
	return strings.HasPrefix(name, "lib") && (strings.Contains(name, ".so") || strings.HasSuffix(name, ".dylib"))
}

// macFrame reads macOS's "2   libsystem_platform.dylib   0x00000001836a9a24 _sigtramp + 56".
func macFrame(t string) (string, bool) {
	f := strings.Fields(t)
	if len(f) < 3 || !isDigits(f[0]) || !strings.HasPrefix(f[2], "0x") {
		return "", false
	}
	if len(f) >= 4 && f[3] != "0x0" {
		return "at " + f[3] + " (" + f[1] + ")", true
	}
	return "at " + f[1], true
}

// cppName reduces a C++ or C# signature to its qualified name: the return
// type and the arguments go ("void Foo::bar<T>(int) const" is "Foo::bar<T>").
func cppName(s string) string {
	s = strings.TrimSpace(s)
	depth, cut := 0, len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			depth--
		case '(':
			if depth == 0 && i > 0 {
				cut = i
				i = len(s)
			}
		}
	}
	name := s[:cut]
	depth = 0
	for i := len(name) - 1; i >= 0; i-- {
		switch name[i] {
		case '>':
			depth++
		case '<':
			depth--
		case ' ':
			if depth == 0 {
				return name[i+1:]
			}
		}
	}
	return name
}

// scriptFrame rewrites a script backtrace's "f (file:line)" or C#'s
// "void Godot.GD.PushError(string)".
func scriptFrame(t string) string {
	if i := strings.LastIndex(t, " ("); i > 0 && strings.HasSuffix(t, ")") && !strings.Contains(t[:i], "(") {
		return t
	}
	return cppName(t)
}
