package crash

import (
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// TopFrames is how many frames, from the top of a stack, make its signature.
// Deeper frames say how the program got there, which varies between
// occurrences of one crash (another caller, another event loop) more than
// it identifies the crash.
const TopFrames = 5

// Limits on what one trace keeps, so that a huge or hostile stack costs a
// bounded amount of memory in the index.
const (
	maxHeadBytes  = 200
	maxFrameBytes = 200
	maxTitleRunes = 120
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
// and only frames in the stack.
func (t Trace) WithHead(message string) Trace {
	if t.Head == "" {
		line, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
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
		if !strings.HasPrefix(f, "[C]") { // Lua's C functions (error, pcall) say little
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
		return cutRunes(what, maxTitleRunes)
	}
	return cutRunes(what, maxTitleRunes-len(where)-4) + " in " + where
}

// Parse reads a stack trace in any of the shapes game engines write: Unity
// and Mono (Debug.Log's "Class:Method (args) (at file:line)" and
// "at Class.Method () [0x00012] in <hash>:0"), .NET ("at N.C.M() in
// file:line 42"), Lua tracebacks, Java (with "Caused by:" chains), Go
// panics, gdb backtraces, Python and JavaScript.
func Parse(stack string) Trace {
	var t Trace
	python := false
	last := "" // the last line that is not a frame: Python's exception
	for line := range strings.Lines(stack) {
		s := strings.TrimSpace(line)
		if s == "Traceback (most recent call last):" {
			python = true
		}
		if s == "" || skipLine(s) {
			continue
		}
		f, ok := parseFrame(s)
		if !ok {
			if t.frameCount == 0 && t.Head == "" {
				t.Head = normalizeHead(s)
			}
			// Lines after the frames ("Caused by", "exit status 2") are
			// not the crash's head, except in Python, which ends with it.
			last = s
			continue
		}
		if f == "" {
			continue
		}
		t.frameCount++
		switch {
		case len(t.Frames) < TopFrames:
			t.Frames = append(t.Frames, f)
		case python: // the innermost frame comes last: keep the last ones
			copy(t.Frames, t.Frames[1:])
			t.Frames[TopFrames-1] = f
		}
	}
	if python {
		slices.Reverse(t.Frames)
		if t.Head == "" && last != "" {
			t.Head = normalizeHead(last)
		}
	}
	return t
}

// skipLine reports lines that belong to no frame and are not a head either.
func skipLine(s string) bool {
	switch {
	case s == "stack traceback:", s == "Traceback (most recent call last):", s == "(...tail calls...)", s == "[C]: in ?":
		return true
	case strings.HasPrefix(s, "goroutine ") && strings.HasSuffix(s, "]:"),
		strings.HasPrefix(s, "created by "),
		strings.HasPrefix(s, "--- End of"),
		strings.HasPrefix(s, "..."):
		return true
	}
	// A Go frame's location line: "/home/x/main.go:12 +0x1d".
	first, _, _ := strings.Cut(s, " ")
	return strings.Contains(first, ".go:") && !strings.Contains(s, "(")
}

// parseFrame recognises one frame line and returns its normalised name;
// ok is false when s is not a frame.
func parseFrame(s string) (frame string, ok bool) {
	switch {
	case strings.HasPrefix(s, "at "):
		return atFrame(s[3:]), true
	case len(s) > 1 && s[0] == '#' && isDigit(s[1]):
		return gdbFrame(s), true
	case strings.HasPrefix(s, `File "`):
		return pythonFrame(s), true
	}
	if loc, what, found := strings.Cut(s, ": in "); found && luaLocation(loc) {
		return cutBytes(dropLineNumbers(loc)+": in "+dropLineNumbers(what), maxFrameBytes), true
	}
	if !strings.HasSuffix(s, ")") {
		return "", false
	}
	// Unity's Debug.Log frames: "Player.Update () (at Assets/Player.cs:42)",
	// "UnityEngine.Debug:LogException (System.Exception)".
	if i := strings.Index(s, " ("); i > 0 && !strings.ContainsAny(s[:i], " \t") && s[0] != '(' {
		return normalizeName(s[:i]), true
	}
	// Go: "main.foo(0xc000012345, 0x2)", "main.(*T).Run(...)"; C++
	// without gdb's numbering: "Engine::World::Tick(float)".
	i := strings.IndexByte(s, '(')
	if i <= 0 || strings.ContainsAny(s[:i], " \t") || !strings.Contains(s[:i], ".") && !strings.Contains(s[:i], "::") {
		return "", false
	}
	return normalizeName(s[:strings.LastIndexByte(s, '(')]), true
}

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
	i := 1
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	s = strings.TrimSpace(s[i:])
	if strings.HasPrefix(s, "0x") {
		if _, rest, ok := strings.Cut(s, " in "); ok {
			s = rest
		}
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
	return normalizeName(s)
}

// pythonFrame reads `File "game/ai.py", line 12, in think`.
func pythonFrame(s string) string {
	rest := s[len(`File "`):]
	path, rest, _ := strings.Cut(rest, `"`)
	_, fn, _ := strings.Cut(rest, ", in ")
	return cutBytes(path+" in "+normalizeName(fn), maxFrameBytes)
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

// dropLineNumbers removes ":123" (line and column numbers) and hex
// addresses: "game/physics.lua:88" becomes "game/physics.lua" and
// "function <game/physics.lua:80>" "function <game/physics.lua>".
func dropLineNumbers(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		switch {
		case s[i] == ':' && i+1 < len(s) && isDigit(s[i+1]):
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		case isHexStart(s, i):
			i = skipHex(s, i)
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// normalizeName strips from a function name what differs between builds
// and occurrences: addresses, generic arguments (List`1[T], Map<K,V>, Go's
// [...]), IL offsets, and the numbers compilers give lambdas and closures
// (<Update>b__12_0, <>c__DisplayClass5_0, <Start>d__4, lambda$run$3, Foo$1,
// Go's func1 and .1), keeping numbers that are part of a name (Vector3,
// class_310).
func normalizeName(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isHexStart(s, i):
			i = skipHex(s, i)
		case c == '`': // generic arity: List`1
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		case c == '[':
			i = skipGroup(s, i, '[', ']')
		case c == '<' && i > 0 && isIdent(s[i-1]):
			i = skipGroup(s, i, '<', '>') // generic arguments, not C#'s <Update>b__0
		case c == '$' || c == '|':
			b.WriteByte(c)
			i = skipNumbering(s, i+1)
		case c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			// Go's nested closures: main.foo.func1.2
			b.WriteByte(c)
			i = skipNumbering(s, i+1)
		case isDigit(c) && numberedSuffix(b.String()):
			i = skipNumbering(s, i)
		case c == ' ' || c == '\t':
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return cutBytes(b.String(), maxFrameBytes)
}

// numberedSuffix reports whether digits after prefix are compiler-made
// numbering: C#'s b__12_0, d__4, g__Local|3_0, DisplayClass5_0, Go's func1
// and gowrap2.
func numberedSuffix(prefix string) bool {
	for _, p := range [...]string{"__", "DisplayClass", "AnonStorey", ".func", ".gowrap"} {
		if strings.HasSuffix(prefix, p) {
			return true
		}
	}
	return false
}

// skipNumbering skips digits and "_digits" groups from i.
func skipNumbering(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i+1 < len(s) && s[i] == '_' && isDigit(s[i+1]) {
			i++
		}
	}
	return i
}

// skipGroup skips a bracketed group starting at s[i] == open, nested; an
// unclosed group runs to the end.
func skipGroup(s string, i int, open, close byte) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// normalizeHead keeps the exception type and the words of its message,
// replacing what varies between occurrences: numbers and addresses become
// N, quoted values "*" (Java's `Cannot invoke "*" because "*" is null`).
func normalizeHead(s string) string {
	var b strings.Builder
	b.Grow(min(len(s), maxHeadBytes))
	space := false
	for i := 0; i < len(s) && b.Len() < maxHeadBytes; {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			space = true
			i++
			continue
		case space && b.Len() > 0:
			b.WriteByte(' ')
		}
		space = false
		switch {
		case isHexStart(s, i):
			b.WriteByte('N')
			i = skipHex(s, i)
		case isDigit(c) && (i == 0 || !isIdent(s[i-1])):
			b.WriteByte('N')
			for i < len(s) && (isDigit(s[i]) || s[i] == '.' && i+1 < len(s) && isDigit(s[i+1])) {
				i++
			}
		case (c == '"' || c == '\'' || c == '`') && (i == 0 || !isIdent(s[i-1])):
			if j := strings.IndexByte(s[i+1:], c); j >= 0 {
				b.WriteByte(c)
				b.WriteByte('*')
				b.WriteByte(c)
				i += j + 2
			} else {
				b.WriteByte(c)
				i++
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
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
	if _, sig, ok := strings.Cut(head, "received signal "); ok {
		sig, _, _ = strings.Cut(sig, ",")
		return strings.TrimSpace(sig)
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
	if loc, what, ok := strings.Cut(f, ": in "); ok {
		if _, name, ok := strings.Cut(what, "'"); ok {
			return strings.TrimSuffix(name, "'")
		}
		if i := strings.LastIndexByte(loc, '/'); i >= 0 {
			loc = loc[i+1:]
		}
		return loc
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

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdent(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c >= 0x80
}

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// isHexStart reports whether s[i:] starts an address: 0x and a hex digit,
// not inside a name.
func isHexStart(s string, i int) bool {
	return s[i] == '0' && i+2 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && isHex(s[i+2]) && (i == 0 || !isIdent(s[i-1]))
}

func skipHex(s string, i int) int {
	i += 2
	for i < len(s) && isHex(s[i]) {
		i++
	}
	return i
}

// cutBytes shortens s to at most n bytes without splitting a UTF-8 sequence.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

func cutRunes(s string, n int) string {
	n = max(n, 16)
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
