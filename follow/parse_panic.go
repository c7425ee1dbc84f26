package follow

import (
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// panicParser reads Rust's panics, in the forms of every release, as one
// record each, and hands every other line to the layer below it:
//
//	thread 'main' panicked at src/main.rs:98:13:                   (1.73 and later; 1.91: 'main' (1234))
//	boom: something went wrong
//	note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
//
//	thread 'main' panicked at 'boom', src/main.rs:98:13            (before 1.73)
//	stack backtrace:
//	   0: rust_begin_unwind
//	             at /rustc/.../library/std/src/panicking.rs:584:5
//	   2: game::main
//	             at ./src/main.rs:98:13
//
// The record is named "panic": the message is its text, it is fatal in
// the main thread (the process ends; a panic in another thread is an
// error), its thread and location go to Data, and its stack is the
// backtrace's frames as "at symbol (file:line:col)" (symbol hashes and
// crate disambiguators dropped, so that one panic seen in two builds has
// one signature), or "at file:line:col" when there is no backtrace. The
// panic ends at the note Rust prints after it, at a blank line, or at the
// next line that starts an entry. A thread's panic that the main thread
// passes on right after it, unwrapping the thread's join ("called
// `Result::unwrap()` on an `Err` value: Any { .. }"), is the crash: one
// fatal record, the thread's, where main gave up in Data's "joined".
type panicParser struct {
	g      layer
	e      entry
	held   bool // e holds a panic
	state  int8 // panicMessage, panicOld (the message still quoted), panicFrames
	loc    string
	frame  string // a backtrace's symbol, waiting for its "at" line
	skip   bool   // past __rust_begin_short_backtrace: the runtime's frames
	skipAt bool   // the next "at" line is a frame's left out
	data   object
	// waiting is another thread's panic, read, kept until the next line
	// says whether the main thread passes it on (joined).
	waiting     []Entry
	waitingData object
	named       bool // Bevy named the system of the panic held or waiting (passOn)
	// died is the thread and ID of the last fatal panic whose header gave
	// an ID ("thread 'main' (10158)", Rust 1.89 and later).
	died string
}

const (
	panicMessage = 1 + iota
	panicOld
	panicFrames
)

func (p *panicParser) Name() string { return p.g.Name() }

func (p *panicParser) Flush() []Entry { return join(p.release(p.takeOwn(nil)), p.g.Flush()) }

func (p *panicParser) Line(line string, end int64) []Entry {
	s := trimRight(line)
	var out []Entry
	if sys, ok := bevySystem(s); ok && p.passOn(s, sys, end) {
		return nil
	}
	if p.held {
		if s == "" {
			p.e.blank(end)
			p.e.closed = true
			return nil
		}
		if !p.e.closed && p.continues(s, end) {
			return nil
		}
		out = p.takeOwn(nil)
	}
	if thread, rest, ok := cutPanicHeader(s); ok {
		if !mainThread(thread) {
			out = p.release(out)
		}
		out = p.g.take(out)
		p.begin(thread, rest, end)
		if id := panicThreadID(s); id != "" && p.e.rec.Level == oplog.LevelFatal {
			if id == p.died {
				// The same thread of the same process panicked again: a
				// destructor while it unwound from the panic that ended it
				// (Rust then aborts). That panic is the crash; this one,
				// and "panic in a destructor during cleanup", are not.
				p.e.rec.Level = oplog.LevelError
			}
			p.died = id
		}
		return out
	}
	return join(p.release(out), p.g.Line(line, end))
}

// release hands on the panic waiting, if any.
func (p *panicParser) release(out []Entry) []Entry {
	out = append(out, p.waiting...)
	p.waiting = p.waiting[:0]
	return out
}

// mainThread reports the name Rust gives the main thread.
func mainThread(name string) bool { return name == "main" || name == "<main>" }

// bevySystem reads the line Bevy's executor prints after a system's panic,
// which it then passes on to the main thread, ending the app:
// "Encountered a panic in system `arena::combat::apply_damage_system`!"
// (also "… when applying buffers for system `…`!", "… in observer `…`!").
// Nested schedules print one each, the system's first.
func bevySystem(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "Encountered a panic ")
	i := strings.IndexByte(rest, '`')
	if !ok || i < 0 || !strings.HasSuffix(rest, "`!") || i+1 > len(rest)-2 {
		return "", false
	}
	return rest[i+1 : len(rest)-2], true
}

// passOn takes Bevy's line s after the panic held or waiting (bevySystem):
// the panic ended the app, in the system the first such line names. The
// line ends the panic's stack, where a search finds it.
func (p *panicParser) passOn(s, system string, end int64) bool {
	switch {
	case p.held:
		p.flushFrame(p.e.end)
		if p.e.lines == 0 && p.loc != "" {
			p.e.add("at "+p.loc, p.e.end)
		}
		p.e.rec.Level, p.e.closed = oplog.LevelFatal, true
		p.e.add(s, end)
		if !p.named {
			p.data.str("system", system)
		}
	case len(p.waiting) > 0:
		w := &p.waiting[len(p.waiting)-1]
		w.Record.Level, w.End = oplog.LevelFatal, end
		w.Record.Stack = oplog.ClipBytes(w.Record.Stack+"\n"+s, oplog.MaxStackBytes)
		if !p.named {
			p.waitingData.str("system", system)
			w.Record.Data = p.waitingData.bytes()
		}
	default:
		return false
	}
	p.named = true
	return true
}

// passedOn reports the message of a main thread's panic that passes on
// another's: the Err of a joined thread that panicked, unwrapped
// ("called `Result::unwrap()` on an `Err` value: Any { .. }", "net
// thread: Any { .. }"), which says nothing of that panic but that it came.
func passedOn(msg string) bool {
	msg, _, _ = strings.Cut(msg, "\n")
	return strings.HasSuffix(msg, ": Any { .. }") || strings.HasSuffix(msg, ": Any")
}

func (p *panicParser) take(out []Entry) []Entry { return p.g.take(p.release(p.takeOwn(out))) }

func (p *panicParser) isHeader(s string) bool {
	_, _, ok := cutPanicHeader(s)
	return ok || p.g.isHeader(s)
}

// continues adds s to the held panic when it goes on with it.
func (p *panicParser) continues(s string, end int64) bool {
	t := trimLeft(s)
	switch {
	case p.state == panicOld:
		if msg, loc, ok := cutOldPanicEnd(s); ok {
			p.loc, p.state = loc, panicMessage
			return p.addText(msg, end)
		}
		return p.addText(s, end)
	case strings.HasPrefix(t, "note: run with `RUST_BACKTRACE"), strings.HasPrefix(t, "note: Run with `RUST_BACKTRACE"),
		strings.HasPrefix(t, "note: Some details are omitted"):
		p.e.end = end
		p.e.closed = true // the panic's last line
		return true
	case t == "stack backtrace:":
		p.state = panicFrames
		p.e.end = end
		return true
	case p.state == panicFrames:
		return p.backtraceLine(t, end)
	case p.isHeader(s):
		return false
	}
	return p.addText(s, end)
}

// backtraceLine reads "  2: game::main" and "        at ./src/main.rs:98:13".
func (p *panicParser) backtraceLine(t string, end int64) bool {
	if loc, ok := strings.CutPrefix(t, "at "); ok {
		if p.skip || p.skipAt {
			p.skipAt = false
			p.e.end = end
			return true
		}
		if p.frame == "" {
			return p.e.add(t, end)
		}
		f := "at " + p.frame + " (" + loc + ")"
		p.frame = ""
		return p.e.add(f, end)
	}
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if i == 0 || i+1 >= len(t) || t[i] != ':' || t[i+1] != ' ' {
		return false
	}
	p.flushFrame(end)
	sym := strings.TrimSpace(t[i+2:])
	if strings.HasPrefix(sym, "0x") { // RUST_BACKTRACE=full: "0x55d625b1f9e7 - game::main::hb414061a916e254e"
		if _, after, ok := strings.Cut(sym, " - "); ok {
			sym = after
		}
	}
	p.e.end = end
	sym = rustSymbol(sym)
	switch {
	case strings.Contains(sym, "__rust_end_short_backtrace"):
		// A full backtrace: what a short one leaves out (the panic's
		// printing, the runtime's start) is left out here too, so that
		// one panic has one stack whichever RUST_BACKTRACE showed it.
		p.e.stack, p.e.lines, p.frame = p.e.stack[:0], 0, ""
		p.skip, p.skipAt = false, true
	case strings.Contains(sym, "__rust_begin_short_backtrace"):
		p.skip = true
	case !p.skip:
		p.frame = sym
	}
	return true
}

// flushFrame adds the frame read without its "at" line.
func (p *panicParser) flushFrame(end int64) {
	if p.frame != "" {
		p.e.add("at "+p.frame, end)
		p.frame = ""
	}
}

// addText appends a line to the held panic's message.
func (p *panicParser) addText(s string, end int64) bool {
	if !appendText(&p.e, s) {
		return false
	}
	p.e.end = end
	return true
}

// begin starts a panic's entry from "thread 'NAME' panicked at REST".
func (p *panicParser) begin(thread, rest string, end int64) {
	p.held, p.loc, p.frame, p.skip, p.skipAt, p.named = true, "", "", false, false, false
	level := oplog.LevelError
	if mainThread(thread) {
		level = oplog.LevelFatal // the process ends
	}
	p.e.start("", level, end)
	p.e.rec.Name = "panic"
	p.data = object{}
	p.data.str("thread", thread)
	msg, quoted := strings.CutPrefix(rest, "'")
	if !quoted { // 1.73 and later: "file:line:col:", the message on the lines after
		p.loc, p.state = strings.TrimSuffix(rest, ":"), panicMessage
		return
	}
	if m, loc, ok := cutOldPanicEnd(msg); ok { // before 1.73: 'msg', file:line:col
		p.e.rec.Text, p.loc, p.state = oplog.ClipText(m), loc, panicMessage
		return
	}
	p.e.rec.Text, p.state = oplog.ClipText(msg), panicOld // a message of several lines
}

// takeOwn completes the held panic, if any.
func (p *panicParser) takeOwn(out []Entry) []Entry {
	if !p.held {
		return out
	}
	p.held = false
	p.flushFrame(p.e.end)
	if p.e.lines == 0 && p.loc != "" {
		p.e.add("at "+p.loc, p.e.end)
	}
	if p.e.rec.Text == "" {
		p.e.rec.Text = "panic"
	}
	p.data.str("location", p.loc)
	switch {
	case len(p.waiting) > 0 && p.e.rec.Level == oplog.LevelFatal && passedOn(p.e.rec.Text):
		// The panic the main thread passes on ended the game: one
		// record, the thread's, fatal, that says where main gave up.
		w := &p.waiting[0]
		w.Record.Level, w.End = oplog.LevelFatal, p.e.end
		p.waitingData.str("joined", "thread 'main' at "+p.loc+": "+p.e.rec.Text)
		w.Record.Data = p.waitingData.bytes()
		p.e.held = false
		return out
	case p.e.rec.Level < oplog.LevelFatal:
		out = p.release(out)
		p.waitingData = object{b: slices.Clone(p.data.b)}
		p.e.rec.Data = p.data.bytes()
		p.waiting = p.e.take(p.waiting)
		return out
	}
	p.e.rec.Data = p.data.bytes()
	return p.e.take(p.release(out))
}

// appendText appends a line to an entry's text, as the next line of its
// message; false when the text would be too long.
func appendText(e *entry, s string) bool {
	if len(e.rec.Text)+1+len(s) > oplog.MaxTextBytes {
		return false
	}
	if e.rec.Text == "" {
		e.rec.Text = s
	} else {
		e.rec.Text += "\n" + s
	}
	return true
}

// cutPanicHeader reads "thread 'NAME' panicked at REST", with 1.91's
// thread ID: "thread 'main' (1234) panicked at REST".
func cutPanicHeader(s string) (thread, rest string, ok bool) {
	r, ok := strings.CutPrefix(s, "thread '")
	if !ok {
		return "", "", false
	}
	i := strings.Index(r, "' ")
	if i < 0 {
		return "", "", false
	}
	thread, r = r[:i], r[i+2:]
	if strings.HasPrefix(r, "(") {
		if j := strings.Index(r, ") "); j > 0 {
			r = r[j+2:]
		}
	}
	rest, ok = strings.CutPrefix(r, "panicked at ")
	return thread, rest, ok
}

// panicThreadID is a panic header's thread and thread ID, "thread 'main'
// (10158)"; "" when it gives no ID (before Rust 1.89).
func panicThreadID(s string) string {
	i := strings.Index(s, "' (")
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], ") panicked at ")
	if j < 0 || !isDigits(s[i+3:i+j]) {
		return ""
	}
	return s[:i+j+1]
}

// cutOldPanicEnd splits "msg', src/main.rs:98:13" at the quote that
// closes a panic's message before Rust 1.73.
func cutOldPanicEnd(s string) (msg, loc string, ok bool) {
	i := strings.LastIndex(s, "', ")
	if i < 0 || !isLocation(s[i+3:]) {
		return "", "", false
	}
	return s[:i], s[i+3:], true
}

// isLocation reports "file:line:col" (or "file:line").
func isLocation(s string) bool {
	file, nums, ok := strings.Cut(s, ":")
	if !ok || file == "" || strings.ContainsAny(file, " \t'") {
		return false
	}
	line, col, _ := strings.Cut(nums, ":")
	_, ok1 := atoi(line)
	if col == "" {
		return ok1
	}
	_, ok2 := atoi(col)
	return ok1 && ok2
}

// rustSymbol drops what differs between builds of one function: the
// "::h" hash after a symbol and the "[hash]" after a crate's name
// ("std[e28293b1aa0f68bd]::panicking" is "std::panicking").
func rustSymbol(s string) string {
	if i := strings.LastIndex(s, "::h"); i > 0 && len(s)-i-3 == 16 && isHex(s[i+3:]) {
		s = s[:i]
	}
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '[' && i+17 < len(s) && s[i+17] == ']' && isHex(s[i+1:i+17]) {
			i += 17
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && !('a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}
