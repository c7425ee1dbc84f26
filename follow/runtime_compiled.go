package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// The reports of more languages games are written in (Zig, Nim, Dart and
// Flutter, Odin), each read as one record: its text the message, its stack
// the frames as printed; fatal, but for Flutter's, which goes on.
//
// Zig's panic (a debug or safe build), innermost first, each frame with its
// source line and a caret under the place (and alike, the error main
// returned, "error: FileNotFound", and its error return trace):
//
//	thread 6731 panic: index out of bounds: index 52304, len 15580
//	/home/dev/DOOM-fire-zig/src/main.zig:609:39: 0x233fb7 in showDoomFire (DOOM-fire)
//	                spread_px = screen_buf[doFire_idx];
//	                                      ^
//	???:?:?: 0x7fa90224cccf in ??? (libc.so.6)
//	Unwind information for `libc.so.6:0x7fa90224cccf` was not available, trace may be incomplete
//
// Nim's uncaught exception or signal, the frames outermost first and the
// message after them (the header only before a signal's):
//
//	Traceback (most recent call last)
//	/home/dev/game/game.nim(11)   game
//	/home/dev/game/game.nim(5)    spawnEnemy
//	/usr/lib/nim/lib/system/fatal.nim(54) sysFatal
//	Error: unhandled exception: index 5 not in 0 .. 2 [IndexDefect]
//
// Dart's unhandled exception (the VM's, a Flame game's on the desktop):
//
//	Unhandled exception:
//	Bad state: No element
//	#0      List.first (dart:core-patch/growable_array.dart:343:5)
//	#1      World.spawnEnemy (file:///home/dev/game/bin/game.dart:12:20)

const (
	nimTraceback = "Traceback (most recent call last)"
	dartHeader   = "Unhandled exception:"
)

// rustOverflow reports the line Rust's handler prints when a thread's
// stack overflows, "thread 'main' (22405) has overflowed its stack"
// (before Rust 1.88 without the id); "fatal runtime error: stack
// overflow", then the abort, follow it: one fatal record.
func rustOverflow(t string) bool {
	rest, ok := strings.CutPrefix(t, "thread '")
	return ok && strings.HasSuffix(rest, " has overflowed its stack")
}

// rustAbort adds the line after Rust's stack overflow, which ends it.
func (r *report) rustAbort(t string, end int64) bool {
	if !strings.HasPrefix(t, "fatal runtime error: ") {
		return false
	}
	r.done = true
	return r.add(t, end)
}

// zigPanic reports Zig's panic's first line: "thread 6731 panic: …".
func zigPanic(t string) bool {
	rest, ok := strings.CutPrefix(t, "thread ")
	i := strings.IndexByte(rest, ' ')
	return ok && i > 0 && isDigits(rest[:i]) && strings.HasPrefix(rest[i:], " panic: ")
}

// beginZig starts Zig's report with its first line: a panic's thread and
// message, or the error main returned ("error: FileNotFound").
func (r *report) beginZig(t string, end int64) {
	if _, msg, ok := strings.Cut(t, " panic: "); ok {
		r.setText("panic: " + msg)
		r.e.setName("panic")
	}
	r.add(t, end)
}

// zigError reports the line Zig's start code logs when main returns an
// error, its error return trace after it: "error: FileNotFound".
func zigError(t string) bool {
	name, ok := strings.CutPrefix(t, "error: ")
	if !ok || name == "" || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isLetter(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

// zigFrame reports a frame of Zig's stack trace: "/game/src/main.zig:609:39:
// 0x233fb7 in showDoomFire (DOOM-fire)", "???:?:?: 0x0 in ??? (???)".
func zigFrame(t string) bool {
	loc, rest, ok := strings.Cut(t, ": 0x")
	return ok && strings.Count(loc, ":") >= 2 && strings.Contains(rest, " in ") && strings.HasSuffix(rest, ")")
}

// zig adds a line to Zig's panic: a frame, the source line and caret under
// it, the note that the trace may be incomplete.
func (r *report) zig(s, t string, end int64) bool {
	switch {
	case zigFrame(t), strings.HasPrefix(t, "Unwind information for "):
		r.state = stFrames
	case r.state == stFrames && indentation(s) > 0, r.state == stFrames && strings.Trim(t, "^ ") == "":
		// The frame's source line and its caret.
	default:
		return false
	}
	return r.add(s, end)
}

// nimFrame reports a frame of Nim's traceback: "/game/game.nim(5)    spawnEnemy".
func nimFrame(t string) bool {
	i := strings.Index(t, ".nim(")
	if i <= 0 {
		return false
	}
	j := strings.IndexByte(t[i:], ')')
	return j > len(".nim(") && isDigits(t[i+len(".nim("):i+j]) && i+j+1 < len(t) && t[i+j+1] == ' '
}

// nimMessage cuts the message from the line Nim prints after the frames.
func nimMessage(t string) (string, bool) {
	if msg, ok := strings.CutPrefix(t, "Error: unhandled exception: "); ok {
		return "unhandled exception: " + msg, true
	}
	if i := strings.Index(t, ": "); i > 3 && strings.HasPrefix(t, "SIG") && isUpper(t[:i]) {
		return t, true // "SIGSEGV: Illegal storage access. (Attempt to read from nil?)"
	}
	return "", false
}

// beginNim starts Nim's traceback with its header or first frame: lines
// as they came until the message after the frames shows it is a report.
func (r *report) beginNim(line, t string, end int64) {
	if t == nimTraceback {
		t = "" // the header is no frame
	}
	r.holdFrames(line, t, end)
}

// nim adds a line to Nim's traceback: a frame, or the message, which ends it.
func (r *report) nim(t string, end int64) bool {
	msg, ok := nimMessage(t)
	return r.framesFirst(t, end, nimFrame(t), msg, ok)
}

// dartFrame reports a frame of Dart's stack: "#1      World.spawnEnemy
// (file:///game/bin/game.dart:12:20)".
func dartFrame(t string) bool {
	n, rest, ok := strings.Cut(t, " ")
	return ok && len(n) > 1 && n[0] == '#' && isDigits(n[1:]) && strings.HasSuffix(rest, ")") &&
		(strings.Contains(rest, " (dart:") || strings.Contains(rest, " (file://") || strings.Contains(rest, " (package:"))
}

// flutterUnhandled is how Flutter's engine logs an error the game's Dart
// code did not catch (on the desktop's standard output, in logcat under
// the tag flutter), its frames after it as the VM's:
//
//	[ERROR:flutter/runtime/dart_vm_initializer.cc(41)] Unhandled Exception: Bad state: No element
//	#0      ListBase.first (dart:collection/list.dart:54:5)
//	#1      World.spawnEnemy (package:mygame/world.dart:12:20)
//	<asynchronous suspension>
//
// Flutter goes on after it: an error, not a crash of its own. Its
// bracket is a logger's prefix to the runtimes' layer.
const flutterUnhandled = "Unhandled Exception: "

// flutterStart reports Flutter's line, past its prefix: FML_LOG's
// "[ERROR:flutter/runtime/dart_vm_initializer.cc(41)] ", iOS's
// "[VERBOSE-2:dart_vm_initializer.cc(41)] ", older engines'
// "ui_dart_state.cc(…)".
func flutterStart(t string, f prefixFacts) bool {
	return strings.HasPrefix(t, flutterUnhandled) && (strings.Contains(f.prefix, "[ERROR:flutter/") ||
		strings.Contains(f.prefix, "dart_vm_initializer.cc(") || strings.Contains(f.prefix, "ui_dart_state.cc("))
}

// beginDart starts Dart's report: the VM's header, the message next; or
// Flutter's line, the message on it, an error.
func (r *report) beginDart(t string) {
	if msg, ok := strings.CutPrefix(t, flutterUnhandled); ok {
		r.setText(msg)
		r.e.rec.Level = oplog.LevelError
		r.state = stFrames
		return
	}
	r.message, r.state = maxMessageLines, stHead // the message's lines, then the frames
}

// dart adds a line to Dart's report: the message's lines, then the frames.
func (r *report) dart(s, t string, end int64) bool {
	switch {
	case dartFrame(t), r.state == stFrames && t == "<asynchronous suspension>":
		r.state = stFrames
		return r.add(t, end)
	case r.state != stHead || r.message == 0:
		return false
	}
	r.message--
	if r.e.rec.Text == dartHeader {
		r.setText(t)
	} else {
		r.setText(r.e.rec.Text + "\n" + t)
	}
	r.e.end = end
	return true
}

// Odin's runtime checks print one line before they trap (SIGILL, SIGTRAP),
// the place first: "/game/main.odin(12:13) Index 5 is out of range 0..<3",
// "… Invalid slice indices 2:9 is out of range 0..<4", "… Invalid type
// assertion from Shape to Circle", "… Panic: boss table empty", "…
// runtime assertion: hp > 0", "… Unreachable code reached". It is one
// fatal record, the message its text, the place its frame.

// beginOdin reads Odin's line: its message the text, its place the frame.
func (r *report) beginOdin(t string, end int64) {
	place, msg, _ := odinReport(t)
	r.setText(msg)
	r.add("at "+place, end)
	r.done = true
}

// odinWords begin the message of an Odin runtime check's line.
var odinWords = [...]string{"Index ", "Invalid ", "Matrix indices ", "Panic", "panic", "runtime assertion", "Unreachable code", "Unimplemented"}

// odinReport splits Odin's line into its place and message; ok is false
// for any other line.
func odinReport(t string) (place, msg string, ok bool) {
	i := strings.Index(t, ".odin(")
	if i <= 0 {
		return "", "", false
	}
	j := strings.Index(t[i:], ") ")
	if j < 0 || strings.Trim(t[i+len(".odin("):i+j], "0123456789:") != "" {
		return "", "", false
	}
	place, msg = t[:i+j+1], t[i+j+2:]
	for _, w := range odinWords {
		if strings.HasPrefix(msg, w) {
			return place, msg, true
		}
	}
	return "", "", false
}
