package api

import (
	"bytes"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the JSON syntax of ingest_fast.go's decoder.

// fastMaxDepth is how deep data may nest before the fast path leaves the
// value to encoding/json (whose own limit is 10,000).
const fastMaxDepth = 200

// scanner walks JSON text, checking it as strictly as encoding/json does.
type scanner struct {
	b []byte
	i int
}

// ws skips JSON whitespace and says whether there was any.
func (s *scanner) ws() bool {
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
			continue
		}
		break
	}
	return s.i > start
}

func (s *scanner) next(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string at s.i (its opening quote); plain reports no escapes
// and ASCII only.
func (s *scanner) str() (ok, plain bool) {
	s.i++ // the opening quote
	plain = true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true, plain
		case c == '\\':
			plain = false
			if s.i+1 >= len(s.b) {
				return false, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex4(s.b[s.i+2:s.i+6]) {
					return false, false
				}
				s.i += 6
			default:
				return false, false
			}
		case c < ' ':
			return false, false
		case c >= utf8.RuneSelf:
			plain = false
			s.i++
		default:
			s.i++
		}
	}
	return false, false
}

func isHex4(h []byte) bool {
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// num reads a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) num() bool {
	s.next('-')
	switch {
	case s.next('0'):
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.next('.') && s.digits() == 0 {
		return false
	}
	if s.next('e') || s.next('E') {
		if !s.next('+') {
			s.next('-')
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) lit(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// value reads any JSON value; plain reports a string without escapes or
// non-ASCII bytes, or a value without whitespace.
func (s *scanner) value(depth int) (ok, plain bool) {
	if s.i >= len(s.b) {
		return false, false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{' || c == '[':
		if depth > fastMaxDepth {
			return false, false
		}
		return s.composite(depth)
	case c == 't':
		return s.lit("true"), true
	case c == 'f':
		return s.lit("false"), true
	case c == 'n':
		return s.lit("null"), true
	case c == '-' || '0' <= c && c <= '9':
		return s.num(), true
	}
	return false, false
}

// composite reads an object or an array at s.i.
func (s *scanner) composite(depth int) (ok, plain bool) {
	closer, isObject := byte(']'), s.b[s.i] == '{'
	if isObject {
		closer = '}'
	}
	s.i++
	plain = !s.ws()
	if s.next(closer) {
		return true, plain
	}
	for {
		if isObject {
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return false, false
			}
			if ok, _ := s.str(); !ok {
				return false, false
			}
			sp := s.ws()
			if !s.next(':') {
				return false, false
			}
			sp = s.ws() || sp
			plain = plain && !sp
		}
		start := s.i
		ok, p := s.value(depth + 1)
		if !ok {
			return false, false
		}
		// A string is compact whatever it holds.
		sp := s.ws()
		plain = plain && (p || s.b[start] == '"') && !sp
		if s.next(closer) {
			return true, plain
		}
		if !s.next(',') {
			return false, false
		}
		sp = s.ws()
		plain = plain && !sp
	}
}

// unquoteJSON decodes the inside of a JSON string that str accepted, as
// encoding/json does (its unquoteBytes): bad UTF-8 and lone surrogates
// become U+FFFD.
func unquoteJSON(s []byte) string {
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := hex4(s[r+2 : r+6])
				r += 6
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(s[r+2:r+6])); dec != unicode.ReplacementChar {
							r += 6
							b = utf8.AppendRune(b, dec)
							continue
						}
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // " \ /
				b = append(b, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return string(b)
}

// hex4 reads 4 hex digits that isHex4 accepted.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r*16 + rune(c)
	}
	return r
}
