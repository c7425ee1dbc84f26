package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// What loggers put in front of the lines a program prints. A runtime's crash
// report (a Python traceback, a JVM's exception, a sanitizer's report) is
// read the same whether it was printed alone or beneath a logger's prefix on
// every line: cutPrefix finds where the printed text begins.

// cutPrefix returns the offset in line where the text a program printed
// begins, past a logger's prefix: timestamps (ISO-8601, a time of day, an
// uptime; in brackets or not), level words (padded inside brackets or after
// the word, "ERROR:" and Python's "ERROR:root:"), names in brackets
// ("[Module      ]", "[main/INFO]"), "stderr:" and "stdout:" wrappers, and
// the separators between them. n is 0 when line has no prefix; a line
// that starts with a space or a tab has none (its indentation is the
// printed text's). f says what the prefix tells of the line: a stderr or
// stdout wrapper (the logger's level, not the line's), and where its own
// prefix begins, whose last level word is the line's (prefixFacts.level).
func cutPrefix(line string) (n int, f prefixFacts) {
	if jobPrefix(line) > 0 && shellSignal(line) {
		return 0, f // a shell's job notice: its number is no logger's
	}
	i := 0
	if k, _, _ := syslogPrefix(line); k > 0 {
		// The system log's: every line of the program has it, and no
		// level of the line's (a wrapper's).
		i, f.wrapped, f.from = k, true, k
		if i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			f.prefix = line[:i]
			return i, f
		}
	}
	for tokens := 0; tokens < 8 && i < len(line); tokens++ {
		k, level := prefixToken(line[i:])
		if k == 0 {
			break
		}
		w := line[i : i+k]
		if strings.HasPrefix(w, "stderr") || strings.HasPrefix(w, "stdout") ||
			strings.HasPrefix(w, "[stderr]") || strings.HasPrefix(w, "[stdout]") {
			i += k
			if i < len(line) && line[i] == ' ' {
				i++ // one space: what follows is the printed line, indentation and all
			}
			f.wrapped, f.from = true, i // the wrapper's level is the logger's
			if i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				f.prefix = line[:i]
				return i, f
			}
			continue // the printed line's own prefix: "stderr: ERROR: Caught signal 11"
		}
		col := 1 // one space after a token, a level word's column after one: "%(levelname)-8s"
		if level {
			col = 9
		}
		i += k
		i += padding(line[i:], col)
	}
	f.prefix = line[:i]
	return i, f
}

// prefixFacts is what cutPrefix says of a line.
type prefixFacts struct {
	wrapped bool   // a stderr or stdout wrapper
	prefix  string // the prefix cut
	from    int    // where the line's own prefix begins in it: past a wrapper
}

// level returns the last level word of the line's own prefix (a level
// word alone or in brackets), read again only when a report asks: every
// line is cut, few are asked about.
func (f prefixFacts) level() (oplog.Level, bool) {
	var lv oplog.Level
	found := false
	for s := f.prefix[f.from:]; s != ""; {
		k, level := prefixToken(s)
		if k == 0 {
			break
		}
		if l, ok := levelWord(leadingWord(strings.TrimPrefix(s[:k], "["))); ok && (level || s[0] == '[') {
			lv, found = l, true
		}
		s = s[k:]
		s = s[padding(s, 9):]
	}
	return lv, found
}

// pastPrefix is line without its trailing blanks and, when prefixed (its
// report's first line had one), past its prefix.
func pastPrefix(line string, prefixed bool) string {
	s := trimRight(line)
	if prefixed {
		if n, _ := cutPrefix(s); n > 0 {
			return s[n:]
		}
	}
	return s
}

// leadingWord is the letters s starts with.
func leadingWord(s string) string {
	i := 0
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	return s[:i]
}

// padding counts the spaces and separators after a prefix's token of col
// bytes' column: one space, or what pads a level word's column ("ERROR
// msg"), and " - ", " | ", ": ". More spaces are the printed line's.
func padding(s string, col int) int {
	i := 0
	spaces := 0
	for i < len(s) && i < 12 {
		switch {
		case s[i] == ' ' && spaces < col:
			i++
			spaces++
		case (s[i] == '-' || s[i] == '|' || s[i] == ':') && (i+1 == len(s) || s[i+1] == ' ') && i > 0:
			i++
			spaces, col = 0, 1
		default:
			return i
		}
	}
	return i
}

// prefixToken returns the length of the prefix token s starts with, or
// 0, and whether it is a level word outside brackets.
func prefixToken(s string) (int, bool) {
	switch c := s[0]; {
	case c == '[':
		return bracketToken(s), false
	case isDigit(c):
		return stampToken(s), false
	case c == 's' && (strings.HasPrefix(s, "stderr:") || strings.HasPrefix(s, "stdout:")):
		return len("stderr:"), false
	case 'A' <= c && c <= 'Z':
		if n := levelToken(s); n > 0 {
			return n, true
		}
		return pidToken(s), false
	case 'a' <= c && c <= 'z':
		if n := levelToken(s); n > 0 {
			return n, true
		}
		if n := pidToken(s); n > 0 {
			return n, false
		}
		if n := loggerToken(s); n > 0 {
			return n, false
		}
		return namedLevel(s), false
	}
	return 0, false
}

// pidToken reads a program's name and process number before ": ", as the
// kernel's log and syslog write them ("systemd-coredump[7888]: ").
func pidToken(s string) int {
	i := strings.IndexByte(s[:min(len(s), 64)], '[')
	if i <= 0 {
		return 0
	}
	for k := range i {
		if c := s[k]; !isLetter(c) && !isDigit(c) && strings.IndexByte("_.-@/", c) < 0 {
			return 0
		}
	}
	j := i + 1
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i+1 || j+1 >= len(s) || s[j] != ']' || s[j+1] != ':' || j+2 < len(s) && s[j+2] != ' ' {
		return 0
	}
	return j + 2
}

// namedLevel reads a logger's name that a level word follows after " - "
// or " | " (Python's "%(name)s - %(levelname)s - %(message)s"): the name.
func namedLevel(s string) int {
	j := strings.IndexByte(s, ' ')
	if j <= 0 || j > 64 || j+3 >= len(s) || s[j+2] != ' ' || s[j+1] != '-' && s[j+1] != '|' {
		return 0
	}
	if levelToken(s[j+3:]) == 0 {
		return 0
	}
	return j
}

// bracketToken reads "[...]" or "[...]:" followed by a space: a time, a
// level padded or not, a logger's, module's or thread's name.
func bracketToken(s string) int {
	j := strings.IndexByte(s[:min(len(s), 66)], ']')
	if j < 2 || strings.IndexByte(s[1:j], '"') >= 0 || strings.IndexByte(s[1:j], '[') >= 0 {
		return 0
	}
	if j+1 < len(s) && s[j+1] == ':' {
		j++
	}
	if j+1 < len(s) && s[j+1] != ' ' {
		return 0
	}
	return j + 1
}

// loggerToken reads a logger's dotted name before ": " ("py.warnings: ",
// "game.world: "), in lower case: an exception's name has capitals, but
// for the few a C module names in lower case, "error" last
// ("pygame.error: video system not initialized", "socket.gaierror: …").
func loggerToken(s string) int {
	dot, last := false, 0
	for i := 0; i < len(s) && i < 64; i++ {
		switch c := s[i]; {
		case c == '.':
			dot = dot || i+1 < len(s) && 'a' <= s[i+1] && s[i+1] <= 'z' // "game.world", not "lua5.1"
			last = i + 1
		case c == ':':
			if dot && i+1 < len(s) && s[i+1] == ' ' && !strings.HasSuffix(s[last:i], "error") {
				return i + 1
			}
			return 0
		case !('a' <= c && c <= 'z' || isDigit(c) || c == '_'):
			return 0
		}
	}
	return 0
}

// stampToken reads a timestamp, a time of day or an uptime at the start of s.
func stampToken(s string) int {
	if n := skipISO(s); n > 0 {
		return n
	}
	if _, _, _, _, n, ok := parseClock(s); ok {
		return n
	}
	if _, up := cutUptime(s); up >= 0 {
		return strings.IndexByte(s, ' ')
	}
	// "2026/12/04 10:00:01" (Go's log package): a date, then its time.
	if len(s) >= 11 && s[4] == '/' && s[7] == '/' && s[10] == ' ' && isDigit(s[5]) && isDigit(s[8]) {
		return 10
	}
	return 0
}

// skipISO returns the length of the ISO-8601 timestamp s starts with, as
// parseISO reads it, without making a time of it; 0 when there is none.
func skipISO(s string) int {
	if len(s) < 19 || (s[4] != '-' && s[4] != '/') || s[7] != s[4] || (s[10] != 'T' && s[10] != ' ') ||
		s[13] != ':' || s[16] != ':' {
		return 0
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if !isDigit(s[i]) {
			return 0
		}
	}
	n := 19
	if n+1 < len(s) && (s[n] == '.' || s[n] == ',') && isDigit(s[n+1]) {
		for n++; n < len(s) && isDigit(s[n]); n++ {
		}
	}
	switch {
	case n < len(s) && s[n] == 'Z':
		n++
	case n+2 < len(s) && (s[n] == '+' || s[n] == '-') && isDigit(s[n+1]) && isDigit(s[n+2]):
		n += 3
		if n+2 < len(s) && s[n] == ':' && isDigit(s[n+1]) && isDigit(s[n+2]) {
			n += 3
		} else if n+1 < len(s) && isDigit(s[n]) && isDigit(s[n+1]) {
			n += 2
		}
	}
	return n
}

// levelToken reads a level word written as loggers write it: "ERROR",
// "ERROR:", "Error:" (not "Error" alone: a message may begin with it), and
// Python's "ERROR:root:".
func levelToken(s string) int {
	switch s[0] | 0x20 { // the first letters of level words
	case 't', 'd', 'v', 'f', 'i', 'n', 'w', 'e', 's', 'c', 'p':
	default:
		return 0
	}
	j := 0
	for j < len(s) && j < 12 && ('A' <= s[j] && s[j] <= 'Z' || 'a' <= s[j] && s[j] <= 'z') {
		j++
	}
	lv := s[:j]
	if _, ok := levelWord(lv); !ok {
		return 0
	}
	switch {
	case j == len(s):
		return 0
	case s[j] == ':' && j+1 < len(s) && s[j+1] != ' ' && isUpper(lv):
		// "ERROR:root:msg": the logger's name ends at the next colon.
		if k := strings.IndexByte(s[j+1:], ':'); k > 0 && !strings.ContainsAny(s[j+1:j+1+k], " \t") {
			return j + 2 + k
		}
		return j + 1
	case s[j] == ':' && (isUpper(lv) || lv[0] >= 'a' && lv != "panic"): // "ERROR:", "error:"; "Error:" may be an exception's name, "panic:" Go's
		return j + 1
	case s[j] == ' ' && isUpper(lv):
		return j
	case s[j] == '[' && isUpper(lv):
		// The thread after the level: Luanti's "ERROR[Main]:".
		if k := strings.IndexByte(s[j:], ']'); k > 1 && j+k+1 < len(s) && s[j+k+1] == ':' {
			return j + k + 2
		}
	}
	return 0
}

// nameEnd is where a logger's name that text starts with ends, before
// " - " ("com.example.Loader - msg", loguru's "__main__:main:13 - msg"),
// or before " | " in a line whose level a '|' came before or after ("… |
// INFO | game.net | msg"); 0 when there is none: a name holds no space.
func nameEnd(text string, piped bool) int {
	k := strings.Index(text, " - ")
	if p := strings.Index(text, " | "); piped && p > 0 && (k < 0 || p < k) {
		k = p
	}
	if k <= 0 || strings.ContainsAny(text[:k], " \t[") {
		return 0
	}
	return k
}

// loggerName reads the logger's name text, after a level word, starts
// with: before " - " or " | " (nameEnd), or a dotted name in lower case
// before ": " (Python's "%(levelname)s %(name)s: %(message)s",
// "game.world: spawn failed"); it returns the name and the message.
func loggerName(text string, piped bool) (name, msg string, ok bool) {
	if k := nameEnd(text, piped); k > 0 {
		return withoutPlace(text[:k]), text[k+3:], true
	}
	if k := loggerToken(text); k > 0 {
		return text[:k-1], strings.TrimLeft(text[k:], " "), true
	}
	return "", "", false
}

// withoutPlace is a logger's name without the function and line loguru
// prints after it ("__main__:spawn_enemy:122 - msg"): the module, one
// name for all its lines.
func withoutPlace(name string) string {
	module, rest, ok := strings.Cut(name, ":")
	fn, line, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || module == "" || fn == "" || !isDigits(line) {
		return name
	}
	return module
}
