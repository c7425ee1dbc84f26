package crash

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

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
	return oplog.ClipBytes(b.String(), maxFrameBytes)
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
	s = exceptionStart(s)
	if strings.HasPrefix(s, "fatal error: ") && strings.HasSuffix(s, " (concurrent map writes?)") {
		// Go's maps say so when the racing write is seen as a full
		// small map rather than as the write flag.
		s = "fatal error: concurrent map writes"
	}
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
		case c == '/' && strings.HasPrefix(s[i:], "/root/") && (i == 0 || !isIdent(s[i-1])):
			i = skipNodePath(s, &b, i)
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
	// "X:" with its message on the next lines (Forge's log) is the same
	// head as "X" alone (its crash report).
	return strings.TrimSuffix(b.String(), ":")
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
	return i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && isHex(s[i+2]) && (i == 0 || !isIdent(s[i-1]))
}

func skipHex(s string, i int) int {
	i += 2
	for i < len(s) && isHex(s[i]) {
		i++
	}
	return i
}

// skipNodePath writes a Godot node path ("/root/Main/Chunk_21/@StaticBody2D@14474")
// as "/root/*" and returns the index after it: the nodes a game numbers
// or generates make one error a group per node otherwise.
func skipNodePath(s string, b *strings.Builder, i int) int {
	b.WriteString("/root/*")
	for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '"' && s[i] != '\'' && s[i] != ')' && s[i] != ',' {
		i++
	}
	if i > 0 && s[i-1] == '.' {
		i-- // the sentence's full stop
	}
	return i
}
