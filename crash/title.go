package crash

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Titles name a crash as its newest occurrence says it: the message as
// written (not the normalised head the signature is made of) and the first
// frame that belongs to the game, so that an engine's error handler, a
// signal trampoline or a runtime's panic machinery never heads a group.

// Limits of a title's parts, in characters.
const (
	maxMessageRunes = 110
	maxFrameRunes   = 90
	maxGameFrames   = 64 // frames looked at for the game's own
)

// Title is a group's one line: message and, when there is one, the game's
// frame: "main.lua:79: attempt to index local 'player' (a nil value) in
// main.lua:79: in function 'update'".
func Title(message, frame string) string {
	t := clipTitle(shortPaths(message), maxMessageRunes)
	if frame == "" {
		return t
	}
	return t + " in " + clipTitle(shortPaths(strings.TrimPrefix(frame, "at ")), maxFrameRunes)
}

// shortPaths cuts the install location off the paths of s that name a
// mod's file ("/home/me/.minetest/mods/logtest/init.lua:54" is
// "mods/logtest/init.lua:54"): the part that says which file it is.
func shortPaths(s string) string {
	for i := 0; ; {
		j := strings.Index(s[i:], "/mods/")
		if j < 0 {
			return s
		}
		j += i
		k := strings.LastIndexAny(s[:j], " \t(<'\"") + 1
		s = s[:k] + s[j+1:]
		i = k + len("mods/")
	}
}

// Message is r's message as a title shows it: the exception a stack begins
// with (Java's "java.lang.IllegalStateException: ..." under a logger's
// "Session crashed") or ends with (Python), else the first line of r's
// text (of an operation, its error), or its second when the first only
// announces it ("ModError: Failed to load and run script from X:").
func Message(r *oplog.Record) string {
	text := r.Text
	if r.Kind == oplog.KindOp {
		text = r.Error
	}
	if exc := stackException(stackOf(r)); exc != "" {
		return exc
	}
	text = strings.TrimSpace(text)
	first, rest, _ := strings.Cut(text, "\n")
	// Luanti: "ServerError: AsyncErr: Lua: Runtime error from mod 'x' in
	// callback environment_Step(): <the error>".
	if i := strings.Index(first, "(): "); i > 0 && strings.Contains(first[:i], "Runtime error from mod ") {
		first = first[i+len("(): "):]
	}
	if second, _, _ := strings.Cut(strings.TrimSpace(rest), "\n"); strings.HasSuffix(first, ":") && second != "" {
		return strings.TrimSpace(second)
	}
	return strings.TrimSpace(first)
}

// stackException returns the exception line of a stack that names one.
func stackException(stack string) string {
	python, last := false, ""
	if i := strings.Index(stack, "\nstack traceback:"); i > 0 { // Lua: the error, then its traceback
		return strings.TrimSpace(stack[strings.LastIndexByte(stack[:i], '\n')+1 : i])
	}
	for line := range strings.Lines(stack) {
		s := strings.TrimSpace(line)
		switch {
		case s == "":
			continue
		case s == "Traceback (most recent call last):":
			python = true
			continue
		case python:
			last = s
			continue
		}
		if _, ok := parseFrame(s); ok {
			return ""
		}
		if isExceptionLine(s) {
			return exceptionStart(s)
		}
		if strings.HasPrefix(s, "panic: ") { // Go
			return s
		}
		return ""
	}
	return last // Python's exception ends its traceback
}

// GameFrame returns the first frame of stack that belongs to the game, as
// written (file and line kept): one in the project (res://, Assets/, a
// mod's folder, the crate's src/, the game's own .lua, .gd or .py), else
// the first that is not the engine's, a system library's or a runtime's;
// "" when every frame is.
func GameFrame(stack string) string {
	lines := TopLines(stack, maxGameFrames)
	other, engine := "", ""
	for _, l := range lines {
		switch {
		case runtimeFrame(l):
		case engineFrame(l):
			if engine == "" {
				engine = l
			}
		case projectFrame(l):
			return l
		case other == "":
			other = l
		}
	}
	if other == "" {
		return engine // all the engine's (a Minecraft crash without mods): its first, past the runtime's
	}
	return other
}

// runtimeFrame reports a frame of a language runtime or system library,
// which never names a crash: the JDK, the .NET base library, Lua's C
// functions, Rust's standard library, libc, a native frame without a
// symbol.
func runtimeFrame(l string) bool {
	s := strings.TrimPrefix(l, "at ")
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "kotlin.", "System.", "Mono.", "mono_", "(wrapper ",
		"[C]", "std::", "core::", "alloc::", "rust_begin_unwind", "__rustc::", "__libc_", "libc.so", "ld-linux", "_start", "runtime.", "#"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	for _, p := range []string{"/rustc/", "/usr/src/rustc", "/library/std/", "/library/core/", "ntdll", "KERNEL32", "KERNELBASE", "node:internal"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return moduleOffset(s)
}

// projectFrame reports a frame in the game's own files.
func projectFrame(l string) bool {
	for _, p := range []string{"res://", "Assets/", `Assets\`, "/mods/", `\mods\`, "src/", `src\`} {
		if strings.Contains(l, p) {
			return true
		}
	}
	for _, ext := range []string{".lua:", ".gd:", ".py\""} {
		if strings.Contains(l, ext) {
			return true
		}
	}
	return false
}

// engineFrames are the beginnings (after "at ") of frames of engines,
// runtimes and system libraries.
var engineFrames = []string{
	"[C]", `[love "`, "[string \"boot", "UnityEngine.", "UnityEditor.", "Unity.", "System.", "Mono.", "(wrapper ", "mono_",
	"java.", "javax.", "jdk.", "sun.", "kotlin.", "net.minecraft.", "com.mojang.", "cpw.mods.", "net.minecraftforge.",
	"net.neoforged.", "net.fabricmc.", "org.lwjgl.", "std::", "core::", "alloc::", "tokio::", "rust_begin_unwind",
	"__rustc::", "__libc_", "libc.so", "ld-linux", "_start", "godot_", "Godot.", "GodotPlugins.", "runtime.",
	"0x", "#",
}

// engineParts are parts of frames of engines, runtimes and system
// libraries wherever they appear.
var engineParts = []string{
	"/rustc/", "/usr/src/rustc", "/library/std/", "/library/core/", ".cargo/registry", "/builtin/", `\builtin\`,
	"(core/", "(scene/", "(modules/", "(servers/", "(main/", "(platform/", "(drivers/", "(editor/", "(./core/",
	"core_bind.cpp", "/usr/lib/", "ntdll", "KERNEL32", "KERNELBASE", "UnityPlayer", "libunity",
	"mono-2.0", "(Unity)", "site-packages", "/renpy/", `\renpy\`, "node:internal", "node_modules",
}

// engineFrame reports a frame of an engine, a runtime or a system library:
// none of the game's own, or one without a symbol ("libc.so.6+3c050",
// "godot3-server+9f8211").
func engineFrame(l string) bool {
	s := strings.TrimPrefix(l, "at ")
	for _, p := range engineParts {
		if strings.Contains(s, p) {
			return true
		}
	}
	if strings.HasPrefix(s, "[C]") || strings.HasPrefix(s, `[love "`) {
		return true
	}
	if projectFrame(s) {
		return false
	}
	for _, p := range engineFrames {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return moduleOffset(s)
}

// moduleOffset reports a native frame without a symbol: a module and an
// offset, "libc.so.6+3c050", "godot3-server+9f8211 (core/os.cpp:12)".
func moduleOffset(s string) bool {
	s, _, _ = strings.Cut(s, " ")
	i := strings.LastIndexByte(s, '+')
	if i <= 0 || i == len(s)-1 || strings.ContainsAny(s[:i], "()<>:") {
		return false
	}
	for j := i + 1; j < len(s); j++ {
		if !isHex(s[j]) && s[j] != 'x' {
			return false
		}
	}
	return true
}
