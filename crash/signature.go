package crash

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Trace is a stack trace reduced to what identifies its crash: the
// exception's type and message head, and the top frames, each without
// line numbers, addresses, argument values, generic arguments or
// compiler-made numbering.
type Trace struct {
	// Head is the normalised first line before the frames (the exception
	// type and message, Go's "panic: ...", a Lua error); "" when the stack
	// starts with a frame.
	Head string
	// Frames are the normalised top frames, at most TopFrames.
	Frames []string
	// frameCount counts every frame seen, for NumFrames.
	frameCount int
}

// NumFrames returns how many frames the stack had, including those past
// TopFrames.
func (t Trace) NumFrames() int { return t.frameCount }

// Signature normalises stack so that the same crash from different lines,
// addresses, builds or argument values gives the same sig, and different
// crashes do not. It returns sig (16 hex digits), a one-line title such as
// "NullReferenceException in Player.Update", and the normalised top
// frames. Any input is accepted; an empty stack gives the signature of
// nothing.
func Signature(stack string) (sig, title string, frames []string) {
	t := Parse(stack)
	return t.Signature(), t.Title(), t.Frames
}

// WithHead returns t with message's first line, normalised, as its head
// when t has none: Unity and .NET loggers put the exception in the message
// and only frames in the stack. C++'s std::terminate message is its
// exception's type and what(), from its two lines: its first line alone
// says only that something was thrown.
func (t Trace) WithHead(message string) Trace {
	if t.Head == "" {
		line, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
		if typ, what, ok := terminateMessage(message); ok {
			line = typ + ": " + what
		} else if m, ok := assertMessage(line); ok && strings.Contains(line, ": Assertion '") {
			line = m // libstdc++'s, whose function alone outgrows a head
		}
		t.Head = normalizeHead(line)
	}
	return t
}

// Signature returns the trace's signature: 16 hex digits of a 64-bit FNV-1a
// hash of the head and frames.
func (t Trace) Signature() string {
	h := fnv.New64a()
	h.Write([]byte(t.Head))
	for _, f := range t.Frames {
		h.Write([]byte{'\n'})
		h.Write([]byte(f))
	}
	var b [16]byte
	s := strconv.AppendUint(b[:0], h.Sum64(), 16)
	return strings.Repeat("0", 16-len(s)) + string(s)
}

// Title returns one line naming the crash: its type (or message) and where
// it happened, e.g. "NullPointerException in Minecraft.tick".
func (t Trace) Title() string {
	what := crashType(t.Head)
	where := ""
	for _, f := range t.Frames {
		// Lua's C functions (error, pcall) say little, nor does Python's
		// library, which a traceback's innermost frames often are.
		if !strings.HasPrefix(f, "[C]") && !pythonLibrary(f) && f != "<unknown>" { // Mono's frame without a method
			where = shortFrame(f)
			break
		}
	}
	if where == "" && len(t.Frames) > 0 {
		where = shortFrame(t.Frames[0])
	}
	switch {
	case what == "" && where == "":
		return "crash"
	case what == "":
		what = "crash"
	case where == "":
		return clipTitle(what, maxTitleRunes)
	}
	return clipTitle(what, maxTitleRunes-len(where)-4) + " in " + where
}

// crashType names the crash from its head: the exception's simple name
// ("NullPointerException" from "java.lang.NullPointerException: ..."),
// Go's panic message, a signal, or the Lua error without its location.
func crashType(head string) string {
	if head == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(head, "panic: "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(head, "*** SIG"); ok { // glog's "*** SIGSEGV (@(nil)) received by PID 7 …"
		sig, _, _ := strings.Cut(rest, " ")
		return "SIG" + sig
	}
	if _, sig, ok := strings.Cut(head, "received signal "); ok {
		sig, _, _ = strings.Cut(sig, ",")
		return strings.TrimSpace(sig)
	}
	if i := strings.Index(head, ": Assertion "); i > 0 { // glibc's assert: "game: game.c:N: f: Assertion `x' failed."
		return head[i+2:]
	}
	if s := sanitizerMessage(head); s != head {
		return s
	}
	typ, msg, ok := strings.Cut(head, ": ")
	if strings.ContainsAny(typ, " \t") {
		return head
	}
	if ok && (luaLocation(typ) || strings.HasSuffix(typ, ":N")) {
		return msg // "scripts/ai.lua:N: attempt to index a nil value"
	}
	if i := strings.LastIndexAny(typ, "./"); i >= 0 && i < len(typ)-1 {
		typ = typ[i+1:]
	}
	return typ
}

// shortFrame shortens a normalised frame for a title: the last two parts
// of a qualified name ("Player.Update", "Minecraft.tick"), or a Lua
// frame's function.
func shortFrame(f string) string {
	if _, fn, ok := strings.Cut(f, ".py in "); ok {
		return fn
	}
	if _, fn, ok := strings.Cut(f, ".rpy in "); ok { // Ren'Py's scripts
		return fn
	}
	if loc, what, ok := strings.Cut(f, ": in "); ok {
		if _, name, ok := strings.Cut(what, "'"); ok {
			return strings.TrimSuffix(name, "'")
		}
		if i := strings.LastIndexByte(loc, '/'); i >= 0 {
			loc = loc[i+1:]
		}
		return loc
	}
	if strings.Contains(f, "+0x") {
		return f // a module and an offset in it: "libnvidia-glcore.so.550.78+0x621830"
	}
	name := strings.NewReplacer("::", ".", ":", ".").Replace(f)
	parts := strings.Split(name, ".")
	var keep []string
	for i := len(parts) - 1; i >= 0 && len(keep) < 2; i-- {
		if parts[i] != "" {
			keep = append([]string{parts[i]}, keep...)
		}
	}
	return strings.Join(keep, ".")
}

// clipTitle cuts s to n characters, never fewer than minTitleRunes, and
// marks the cut with "…".
func clipTitle(s string, n int) string {
	if c, cut := oplog.ClipRunes(s, max(n, minTitleRunes)); cut {
		return c + "…"
	}
	return s
}

// pythonLibrary reports a normalised Python frame (pythonPath's last two
// parts of its file) of the interpreter's own library.
func pythonLibrary(f string) bool {
	for _, p := range []string{"python2", "python3", "site-packages/", "dist-packages/", "<frozen "} {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}
