package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// unityParser reads Unity's Editor.log and Player.log. A console entry
// there is its message line, the stack as the Console shows it
// ("UnityEngine.Debug:Log (object)", "Player:Update () (at
// Assets/Scripts/Player.cs:42)", Mono's "  at X.Y () [0x00012] in
// file:0"), a blank line and a "(Filename: Assets/Scripts/Player.cs Line:
// 42)" trailer. The level comes from the message (an exception's
// "NullReferenceException: ...", a compiler's "error CS1002") or from the
// UnityEngine.Debug frame (LogWarning, LogError, LogException,
// LogAssertion). Lines of the engine's own (Editor.log's "Refreshing native
// plugins ...") are info records, with the indented lines below them
// (an import summary) as their stack. Native crashes ("Caught fatal
// signal" with "#0 0x... in f" frames, "Received signal SIGSEGV" with
// "0x... (Mono JIT Code) f" frames, Windows' "Crash!!!" dump up to its "END
// OF STACKTRACE") are fatal; exceptions logged after a prefix ("Exception
// in Verse.AI...: System.NullReferenceException: ...") and the engine's
// own errors ("Could not allocate memory", "Invalid OffsetPtr access") are
// errors. Lines that may continue a message are held until a frame or the
// trailer says so (parse_unity_hold.go).
//
// Where Unity prints no time, records have none (the Log uses arrival);
// a leading ISO-8601 timestamp (the -timestamps option) is read.
type unityParser struct {
	clk     *clock
	e       entry
	framed  bool   // the held entry has frames
	typed   bool   // its level is known: from the message or a UnityEngine.Debug frame
	trailer bool   // its (Filename: ...) trailer came
	native  bool   // a native crash: "#N" and "0x... (Module) f" lines are frames
	frames  bool   // the held entry has real frames, not only indented lines
	raw     string // while set, every line joins the entry up to one starting with raw
	rawLeft int    // how many more lines raw may take
	fresh   bool   // the held entry began after a blank line or a trailer
	run     bool   // the last line was text: a blank line or a trailer ends a run
	pend    []pendLine
	pendEnd int64  // the end of a blank line among the pending ones; 0 when none
	replay  bool   // the pending lines are being read as records of their own
	src     string // the source file and position, for Data
	srcLine int
	srcCol  int
	code    string // the compiler's diagnostic code ("CS1002")
	plain   string // a line startsEntry said starts no entry: begin need not look again
	lastErr string // the last entry's first line when it was an error: what a "Crash!!!" right after it names
}

func (p *unityParser) Name() string { return "unity" }

func (p *unityParser) Flush() []Entry {
	out := p.split(nil)
	p.run = false
	return p.take(out)
}

func (p *unityParser) Line(line string, end int64) []Entry {
	s := trimEnd(line)
	var ts time.Time
	if len(s) > 20 && s[4] == '-' && isDigit(s[0]) {
		if t, n, ok := parseISO(s, p.clk.location()); ok && n < len(s) && (s[n] == ' ' || s[n] == '|') {
			ts, s = t, trimEnd(s[n+1:])
		}
	}
	if s == "" {
		return p.blankLine(end)
	}
	if p.raw != "" && p.e.held {
		if out, ok := p.rawLine(s, end); ok {
			return out
		}
	}
	if s[0] == '(' && strings.HasPrefix(s, "(Filename: ") {
		p.run = false
		if p.e.held && !p.trailer {
			p.merge()
			p.readTrailer(s)
			p.trailer, p.e.closed = true, true
			p.e.end = end
		}
		return nil // a trailer without its entry: the file was entered mid-entry
	}
	if len(p.pend) > 0 {
		return p.pending(s, ts, end)
	}
	return p.next(s, ts, end)
}

// continues reports whether s belongs to the held entry's stack.
func (p *unityParser) continues(s string) bool {
	switch {
	case indented(s), isUnityFrame(s):
		return true
	case strings.HasPrefix(s, "at "):
		// An exception's frames that lost their indentation on the way.
		return p.e.rec.Level >= oplog.LevelError && p.typed
	case strings.HasPrefix(s, "Rethrow as "), strings.HasPrefix(s, "--- End of "):
		return p.framed // an inner exception's frames follow
	case s[0] == '#' && len(s) > 1 && isDigit(s[1]):
		return p.native
	case strings.HasPrefix(s, "Obtained ") && strings.Contains(s, " stack frames"),
		s == "Stack trace:", isNativeFrame(s):
		return p.native
	}
	return false
}

// add appends a stack line to the held entry, completing it first when it
// is full (the line then starts the next one).
func (p *unityParser) add(s string, end int64) []Entry {
	if !p.e.add(s, end) {
		out := p.take(nil)
		p.begin(s, time.Time{}, end)
		return out
	}
	if isUnityFrame(s) {
		if !p.typed {
			p.frameLevel(s)
		}
		p.frames = true
	} else if strings.HasPrefix(trimLeft(s), "at ") {
		p.frames = true
	}
	p.framed = true
	return nil
}

// begin starts an entry with s as its message.
func (p *unityParser) begin(s string, ts time.Time, end int64) {
	p.framed, p.typed, p.trailer, p.native, p.raw = false, false, false, false, ""
	p.frames, p.fresh, p.run = false, !p.run, true
	p.src, p.srcLine, p.srcCol, p.code = "", -1, -1, ""
	level := oplog.LevelInfo
	name := ""
	var stack string
	switch {
	case s == p.plain:
		// Not indented and no startsEntry: none of the cases below.
	case isException(s), hasException(s):
		level, p.typed = oplog.LevelError, true
	case strings.HasPrefix(s, "Assertion failed"):
		level, p.typed = oplog.LevelError, true
	case strings.HasPrefix(s, "Caught fatal signal"), strings.HasPrefix(s, "Received signal "):
		level, p.typed, p.native = oplog.LevelFatal, true, true
	case s == "Crash!!!":
		level, p.typed, p.raw, p.rawLeft = oplog.LevelFatal, true, crashEnd, maxCrashLines
	case isNativeError(s):
		level, p.typed = oplog.LevelError, true
		if strings.HasPrefix(s, "Could not allocate memory") {
			// The allocator's report (sizes, a memory overview with a blank
			// line in it) runs to the trailer.
			p.raw, p.rawLeft = "(Filename: ", maxReportLines
		}
	default:
		if d, ok := parseCompilerDiag(s); ok {
			level, p.typed, name = d.level, true, "compiler"
			p.src, p.srcLine, p.srcCol, p.code = d.file, d.line, d.col, d.code
			// A compiler diagnostic has no stack trace. Its stack reads like
			// an exception's (the diagnostic, then where), so that crash
			// grouping gives repeats of one error one group, titled by it.
			if d.file != "" {
				stack = d.what + "\n  at " + d.where
			}
		}
	}
	p.e.start(s, level, end)
	if s == "Crash!!!" && p.lastErr != "" {
		// Unity's word of a native crash names nothing; the error it
		// printed right before does (an allocation that failed, a
		// texture the graphics driver refused).
		p.e.rec.Text = oplog.ClipText("Crash!!! (after " + p.lastErr + ")")
	}
	p.e.rec.Time = ts
	p.e.rec.Name = name
	if stack != "" {
		p.e.add(stack, end)
	}
}

// frameLevel reads the level from the UnityEngine.Debug (or Logger) call
// in the stack: Debug.Log, LogWarning, LogError, LogException,
// LogAssertion and their Format variants.
func (p *unityParser) frameLevel(s string) {
	var m string
	switch {
	case strings.HasPrefix(s, "UnityEngine.Debug:"):
		m = s[len("UnityEngine.Debug:"):]
	case strings.HasPrefix(s, "UnityEngine.Logger:"):
		// Logger:Log (LogType,object) is on every Debug.Log* stack when
		// stack traces are full; only the typed calls say the level.
		m = s[len("UnityEngine.Logger:"):]
		if isCall(m, "Log") || strings.HasPrefix(m, "LogFormat") {
			return
		}
	default:
		return
	}
	switch {
	case strings.HasPrefix(m, "LogError"), strings.HasPrefix(m, "LogException"),
		strings.HasPrefix(m, "LogAssertion"), strings.HasPrefix(m, "Assert"):
		p.e.rec.Level, p.typed = oplog.LevelError, true
	case strings.HasPrefix(m, "LogWarning"):
		p.e.rec.Level, p.typed = oplog.LevelWarn, true
	case isCall(m, "Log") || strings.HasPrefix(m, "LogFormat"):
		p.typed = true
	}
}

// isCall reports whether frame method m is name's: "Log (object)", "Log(Object)".
func isCall(m, name string) bool {
	return strings.HasPrefix(m, name) && len(m) > len(name) && (m[len(name)] == ' ' || m[len(name)] == '(')
}

// readTrailer reads "(Filename: Assets/Scripts/Player.cs Line: 42)".
func (p *unityParser) readTrailer(s string) {
	if p.src != "" {
		return // a compiler diagnostic said it more precisely
	}
	body := strings.TrimSuffix(s[len("(Filename: "):], ")")
	file, num, ok := strings.Cut(body, " Line: ")
	if !ok || file == "" {
		return
	}
	p.src = file
	if n, ok := atoi(num); ok {
		p.srcLine = n
	}
}

// take completes the held entry with its Data.
func (p *unityParser) take(out []Entry) []Entry {
	if !p.e.held {
		return out
	}
	p.lastErr = ""
	if p.e.rec.Level == oplog.LevelError {
		p.lastErr, _, _ = strings.Cut(p.e.rec.Text, "\n")
	}
	if p.src != "" {
		// Room for the keys, the numbers and some escapes: one allocation.
		o := object{b: make([]byte, 0, len(p.src)+len(p.code)+80)}
		o.str("srcFile", p.src)
		o.num("srcLine", p.srcLine)
		o.num("srcColumn", p.srcCol)
		o.str("code", p.code)
		p.e.rec.Data = o.bytes()
	}
	return p.e.take(out)
}

// isUnityFrame reports a line of a Unity stack as the Console prints it:
// "Class:Method (args)", "Ns.Class.Method () (at file:line)",
// "Class:Method(Args)", "(wrapper managed-to-native) ...". Mono's "  at ..."
// frames are indented.
func isUnityFrame(s string) bool {
	if s == "" || s[len(s)-1] != ')' {
		return false
	}
	if s[0] == '(' {
		return strings.HasPrefix(s, "(wrapper ")
	}
	// The first word ends at the first blank: "Class:Method (args)" has
	// its " (" there.
	k := 0
	for k < len(s) && s[k] != ' ' && s[k] != '\t' {
		k++
	}
	if k > 0 && k+1 < len(s) && s[k] == ' ' && s[k+1] == '(' {
		return strings.IndexByte(s[:k], ':') >= 0 || strings.IndexByte(s[:k], '.') >= 0
	}
	// Unity before 2020 and IL2CPP players: "UnityEngine.Debug:Log(Object)".
	i := strings.IndexByte(s[:k], '(')
	return i > 0 && strings.IndexByte(s[:i], ':') > 0
}

// isException reports a .NET exception's first line:
// "NullReferenceException: Object reference not set ...", "System.Exception".
func isException(s string) bool {
	head := s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		head = s[:i]
	}
	return strings.HasSuffix(head, "Exception") && !strings.ContainsAny(head, " \t(")
}

// compilerDiag is a C# compiler's error or warning.
type compilerDiag struct {
	level       oplog.Level
	file, code  string
	line, col   int
	what, where string // "error CS1002: ; expected", "Assets/Scripts/Player.cs(12,5)"
}

// parseCompilerDiag reads "Assets/Scripts/Player.cs(12,5): error CS1002: ;
// expected" (warnings alike), and "error CS0006: ..." without a place.
func parseCompilerDiag(s string) (compilerDiag, bool) {
	var d compilerDiag
	where, what := "", s
	if i := strings.Index(s, "): "); i > 0 {
		j := strings.LastIndexByte(s[:i], '(')
		if j <= 0 {
			return d, false
		}
		l, c, ok := strings.Cut(s[j+1:i], ",")
		line, ok1 := atoi(l)
		col, ok2 := atoi(strings.TrimSuffix(c, "+")) // mcs wrote "(707,255+)"
		if !ok || !ok1 || !ok2 {
			return d, false
		}
		where, what = s[:i+1], s[i+3:]
		d.file, d.line, d.col = s[:j], line, col
	}
	switch {
	case strings.HasPrefix(what, "error CS"):
		d.level = oplog.LevelError
	case strings.HasPrefix(what, "warning CS"):
		d.level = oplog.LevelWarn
	default:
		return compilerDiag{}, false
	}
	code, _, _ := strings.Cut(what[strings.IndexByte(what, ' ')+1:], ":")
	d.code, d.what, d.where = code, what, where
	if d.file == "" {
		d.line, d.col = -1, -1
	}
	return d, true
}
