package query

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The reading of a query, as log search usually reads one: clauses are all
// required (AND is implied and may be written, as && too), OR (||) joins
// alternatives and binds looser than AND, NOT (! or a leading -) excludes,
// a leading + changes nothing, and parentheses group. Each clause is one
// run of characters outside quotes and regular expressions; clause.go
// reads it.

type token struct {
	s   string
	pos int // byte offset in the query
}

// Parse reads query string s (surrounding spaces ignored) into a tree. An
// empty s matches everything (All). Words and phrases on text and stack
// that hold no word (stop words: see stop.go) are left out of the tree. A
// query over MaxBytes, not UTF-8, that does not parse, or that names an
// unknown field or a bad value, is an *Error saying where it broke; one
// left with nothing to match once they are left out is an *Error naming
// them.
func Parse(s string) (Node, error) {
	if len(s) > MaxBytes {
		return nil, errorf("%d bytes is over the limit of %d", len(s), MaxBytes)
	}
	if !utf8.ValidString(s) {
		return nil, errorf("not valid UTF-8")
	}
	s = strings.TrimSpace(s)
	n, perr := parseTree(s)
	if perr != nil {
		if closed, ok := phraseToEnd(s, perr); ok {
			n = closed
		} else if n = pastedWords(s, perr); n == nil {
			return nil, perr
		}
	}
	if n == nil {
		return &All{}, nil
	}
	var dropped []Node
	if n = dropWordless(n, &dropped); n == nil {
		if perr != nil {
			return nil, perr // as words, nothing: the language's error says more
		}
		return nil, tooCommon(dropped)
	}
	return n, nil
}

// parseTree parses s, trimmed, into a tree (nil for nothing to match).
func parseTree(s string) (Node, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	n, rest, err := group(s, toks, -1)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, SyntaxError(s, rest[0].pos, "')' without a '(' before it")
	}
	return n, nil
}

// phraseToEnd reads s, whose one quote is never closed (err), with the
// phrase it opens closed at its end, as search boxes read it: `"spawn
// enemy wave` is that phrase, not its words anywhere, and so is
// `level:error "spawn enemy wave`'s. A query of fewer than pastedMin
// words with letters (`"a b`) keeps its error.
func phraseToEnd(s string, err error) (Node, bool) {
	if e, ok := err.(*Error); !ok || e.Msg != "a quote that is never closed" || strings.Count(s, `"`) != 1 {
		return nil, false
	}
	words := 0
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !IsWordRune(r) }) {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			words++
		}
	}
	if words < pastedMin {
		return nil, false
	}
	n, err := parseTree(s + `"`)
	return n, err == nil && n != nil
}

// pastedWords reads s, which did not parse (err), as the words of a
// message pasted as it was printed, all of them required, as a search
// engine's lenient parser does: "Assertion 'n < 64' failed.",
// "==1234==ERROR: AddressSanitizer: ...", "at Player.Update () (at
// Assets/Player.cs:42)", "res://main.gd:6", "C:\game\main.cpp(42)". Nil,
// and err stands, when s is written in the language: it names a field (or
// one in another case, or one mistyped with its value right after the colon:
// "levle:error"), uses AND, OR or NOT, err is a field's bad value, or a
// parenthesis left open or closed alone in fewer than pastedParensMin
// words (a message's come in pairs, or quoted: "(foo bar baz" is a group
// mistyped), or it has fewer than pastedMin words
// ("- x", "(a").
func pastedWords(s string, err error) Node {
	e, ok := err.(*Error)
	if !ok || e.Kind == "bad value" {
		return nil
	}
	parens := (e.Msg == "'(' is never closed" || e.Msg == "')' without a '(' before it") && !parensQuoted(s)
	var nodes []Node
	letters := 0 // words with a letter
	for i := 0; i < len(s); {
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !IsWordRune(r) {
				break
			}
			j += size
		}
		if j == i {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		w := s[i:j]
		switch {
		case w == "AND" || w == "OR" || w == "NOT":
			return nil
		case j < len(s) && s[j] == ':' && (slices.Contains(Fields, w) || nearField(w) || w == "message" || w == "msg"):
			return nil
		case j+1 < len(s) && s[j] == ':' && wordStart(s, i) && nearFieldName(w) && !strings.ContainsRune(" \t/\\:", rune(s[j+1])):
			return nil // "levle:error": a field mistyped
		}
		nodes = append(nodes, &Term{Text: w, Pos: Pos{At: i, Raw: w}})
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			letters++
		}
		i = j
	}
	if letters < pastedMin && !sanitizerLine(s) || parens && letters < pastedParensMin {
		return nil
	}
	return &And{Nodes: nodes}
}

// sanitizerLine reports a line a sanitizer printed, which begins with the
// process's ID between two pairs of equal signs: "==1234==ABORTING".
func sanitizerLine(s string) bool {
	_, rest, ok := strings.Cut(s, "==")
	id, _, closed := strings.Cut(rest, "==")
	return ok && closed && id != "" && strings.Trim(id, "0123456789") == ""
}

// pastedParensMin is how many words with a letter a query whose
// parentheses do not pair up needs to be read as a pasted message's: a
// group mistyped has a few ("(spawn enemy wave"), a message cut where it
// wrapped or naming a range ("requires [lib@[3.2.0,)]") more.
const pastedParensMin = 6

// parensQuoted reports whether s's parentheses pair up once those quoted
// on their own are left out: a message names the one it is about as
// "'(' was never closed" or "unexpected `)`".
func parensQuoted(s string) bool {
	r := strings.NewReplacer("'('", "", "')'", "", "`(`", "", "`)`", "")
	t := r.Replace(s)
	if t == s {
		return false
	}
	depth := 0
	for _, c := range t {
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// pastedMin is how many words with a letter a query that does not parse needs to be read
// as a pasted message's: a message has several, a query mistyped in the
// language a few ("(a", "a ) b", ":x"), whose error says what to write.
const pastedMin = 3

// wordStart reports whether s[i] begins a clause: after a space, a
// parenthesis or nothing.
func wordStart(s string, i int) bool {
	return i == 0 || strings.ContainsRune(" \t(", rune(s[i-1]))
}

// nearFieldName reports whether w is a field's name mistyped: at most one
// edit from a name of up to five letters, two from a longer one ("levle",
// "stauts"), as fuzzy words' automatic distance goes. A name further from
// every field's ("signo:11", "process:17795", "node:internal") is a word of
// a pasted message.
func nearFieldName(w string) bool {
	for _, f := range append(Fields[:len(Fields):len(Fields)], "message", "msg") {
		edits := 1
		if len(f) > 5 {
			edits = 2
		}
		if EditDistance(strings.ToLower(w), strings.ToLower(f)) <= edits {
			return true
		}
	}
	return false
}

// fieldLike reports a name written as fields are: a lower-case letter
// first, letters after.
func fieldLike(w string) bool {
	for i, r := range w {
		if !(r >= 'a' && r <= 'z' || i > 0 && r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return w != ""
}

// lex splits s into parentheses and clauses; a clause runs to a space or a
// parenthesis outside quotes, with backslash escapes.
func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "()") && strings.TrimSpace(s[:i]) != "":
			i += 2 // a call's, as a pasted frame has them ("Player.Update ()"): nothing to group
		case c == '(' || c == ')':
			toks = append(toks, token{s[i : i+1], i})
			i++
		default:
			start := i
			for i < len(s) && (!strings.ContainsRune(" \t\n\r()", rune(s[i])) || strings.HasPrefix(s[i:], "()")) {
				switch s[i] {
				case '(': // "main.main()"
					i += 2
					continue
				case '\\':
					i = min(i+2, len(s))
					continue
				case '"':
					j := closing(s, i, '"')
					if j < 0 {
						return nil, SyntaxError(s, i, "a quote that is never closed")
					}
					i = j + 1
					continue
				case '/':
					// A regular expression, where a value starts: its
					// parentheses and spaces are its own.
					if i == start || s[i-1] == ':' || i == start+1 && (s[start] == '+' || s[start] == '-') {
						j := closing(s, i, '/')
						if j < 0 {
							return nil, SyntaxError(s, i, "a regular expression (/…/) that is never closed")
						}
						i = j + 1
						continue
					}
				}
				i++
			}
			toks = append(toks, token{s[start:i], start})
		}
	}
	return toks, nil
}

// closing returns the index of the delimiter that closes the one at
// s[open], past backslash escapes; -1 when there is none.
func closing(s string, open int, delim byte) int {
	j := open + 1
	for j < len(s) && s[j] != delim {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s) {
		return -1
	}
	return j
}

// loneSign reports a sign on its own between terms (after a term, unless
// first, and before another): it marks none, as in a pasted message's
// "2147483647 + 1" or "Player - joined".
func loneSign(t token, first bool, rest []token) bool {
	return (t.s == "+" || t.s == "-") && !first && len(rest) > 0 && rest[0].s != ")"
}

// ruler reports a rule of dashes or equal signs beside other terms, as a
// pasted report has them around its headings ("-- Head --", "---- Minecraft
// Crash Report ----"): it marks none, and says nothing. Alone, it keeps
// its error.
func ruler(t token, first bool, rest []token) bool {
	return len(t.s) >= 2 && strings.Trim(t.s, "-=") == "" && (!first || len(rest) > 0)
}

// alternative is one side of an OR: clauses that must all match and
// clauses that must not.
type alternative struct{ must, not []Node }

// group parses tokens up to the ')' that closes the '(' at open (-1: the
// top level) and returns the rest after it.
func group(s string, toks []token, open int) (Node, []token, error) {
	alts := []alternative{{}}
	not, last := false, -1
	var opTok token
	for len(toks) > 0 {
		t := toks[0]
		toks = toks[1:]
		cur := &alts[len(alts)-1]
		empty := len(cur.must)+len(cur.not) == 0
		if loneSign(t, empty || not, toks) || ruler(t, empty && !not, toks) {
			continue
		}
		var n Node
		switch t.s {
		case ")":
			if open < 0 {
				return nil, nil, SyntaxError(s, t.pos, "')' without a '(' before it")
			}
			if err := dangling(s, not, empty, opTok); err != nil {
				return nil, nil, err
			}
			return join(alts), toks, nil
		case "(":
			inner, rest, err := group(s, toks, t.pos)
			if err != nil {
				return nil, nil, err
			}
			if inner == nil {
				return nil, nil, SyntaxError(s, t.pos, "empty parentheses")
			}
			toks, n = rest, inner
		case "AND", "&&":
			if last != len(alts)-1 || empty || not {
				return nil, nil, SyntaxError(s, t.pos, t.s+" needs a term before it")
			}
			opTok = t
			continue
		case "OR", "||":
			if empty || not {
				return nil, nil, SyntaxError(s, t.pos, t.s+" needs a term before it")
			}
			alts = append(alts, alternative{})
			opTok = t
			continue
		case "NOT", "!":
			if not {
				return nil, nil, SyntaxError(s, t.pos, "NOT NOT")
			}
			not, opTok = true, t
			continue
		default:
			text, minus := unsigned(t.s)
			not = not != minus
			var err error
			if n, err = parseClause(s, t.pos, t.pos+len(t.s)-len(text), text); err != nil {
				return nil, nil, err
			}
		}
		if not {
			cur.not = append(cur.not, n)
		} else {
			cur.must = append(cur.must, n)
		}
		not, opTok = false, token{}
		last = len(alts) - 1
	}
	if open >= 0 {
		return nil, nil, SyntaxError(s, open, "'(' is never closed")
	}
	if err := dangling(s, not, len(alts[len(alts)-1].must)+len(alts[len(alts)-1].not) == 0, opTok); err != nil {
		return nil, nil, err
	}
	return join(alts), nil, nil
}

// unsigned is a clause without its sign, and whether that sign excludes
// it: -word does, +word does not; -7 is a minus sign and --word a command
// line's option as pasted text has them ("code -32600", "run with
// --verbose"): both keep theirs, the clause's words.
func unsigned(text string) (string, bool) {
	switch {
	case strings.HasPrefix(text, "--") && len(text) > 2 && unicode.IsLetter(rune(text[2])):
		return text[2:], false
	case strings.HasPrefix(text, "-") && len(text) > 1 && !('0' <= text[1] && text[1] <= '9'):
		return text[1:], true
	case strings.HasPrefix(text, "+") && len(text) > 1:
		return text[1:], false
	}
	return text, false
}

func dangling(s string, not, empty bool, op token) error {
	if op.s != "" && (not || empty) {
		return SyntaxError(s, op.pos, fmt.Sprintf("%s needs a term after it", op.s))
	}
	return nil
}

// join combines alternatives: nil when there is nothing to match. An
// alternative with exclusions is an And whose Not nodes come after the
// clauses that must match.
func join(alts []alternative) Node {
	var ns []Node
	for _, a := range alts {
		var n Node
		switch {
		case len(a.must) == 0 && len(a.not) == 0:
			continue
		case len(a.not) > 0:
			and := &And{Nodes: append([]Node(nil), a.must...)}
			for _, x := range a.not {
				and.Nodes = append(and.Nodes, &Not{Node: x})
			}
			n = and
		case len(a.must) == 1:
			n = a.must[0]
		default:
			n = &And{Nodes: a.must}
		}
		ns = append(ns, n)
	}
	switch len(ns) {
	case 0:
		return nil
	case 1:
		return ns[0]
	}
	return &Or{Nodes: ns}
}
