package query

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// One clause, as the query string language of bleve (which mcplogd read
// clauses with before it owned its language) reads it, so that every
// query written before reads the same: field:value, "a phrase",
// word~fuzziness, word^boost (read, not used: hits are not scored),
// /regular expression/, wildcards with * and ?, field:>n, field:<="date",
// and backslash escapes. A clause can hold several parts ("a""b"); they
// are optional unless marked + (required) or - (excluded).

type ctokKind int

const (
	cString ctokKind = iota + 1
	cPhrase
	cNumber
	cPlus
	cMinus
	cColon
	cGreater
	cLess
	cEqual
	cBoost
	cTilde
)

type ctok struct {
	kind ctokKind
	s    string
}

// reserved are the characters a backslash escapes; before another, the
// backslash is kept.
const reserved = "+-=&|><!(){}[]^\"~*?:\\/ "

func unescape(r rune) string {
	if strings.ContainsRune(reserved, r) {
		return string(r)
	}
	return "\\" + string(r)
}

// lexClause splits a clause into its tokens; an error is a message, and
// the tokens before it.
func lexClause(s string) ([]ctok, string) {
	var toks []ctok
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == '"', r == '^', r == '~':
			text, n, closed := lexDelimited(rs[i+1:], r)
			i += 1 + n
			switch {
			case r == '"' && !closed:
				return toks, "a quote that is never closed"
			case r == '"':
				toks = append(toks, ctok{cPhrase, text})
			default:
				if text == "" {
					text = "1"
				}
				toks = append(toks, ctok{map[rune]ctokKind{'^': cBoost, '~': cTilde}[r], text})
			}
		case r == '-' && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) && (i == 0 || unicode.IsSpace(rs[i-1])):
			i++ // a minus sign, as pasted text has them ("code -32600"): the number is the word
		case strings.ContainsRune("+-:><=", r):
			toks = append(toks, ctok{map[rune]ctokKind{'+': cPlus, '-': cMinus, ':': cColon, '>': cGreater, '<': cLess, '=': cEqual}[r], string(r)})
			i++
		case unicode.IsSpace(r):
			i++
		default:
			t, n := lexWord(rs[i:])
			i += n
			if t.kind != 0 {
				toks = append(toks, t)
			}
		}
	}
	return toks, ""
}

// lexDelimited reads what follows a quote (to the closing quote) or a
// boost or fuzziness (to a space), with escapes: the text, the runes
// read, and whether the end was found.
func lexDelimited(rs []rune, open rune) (string, int, bool) {
	var buf strings.Builder
	esc := false
	for i, c := range rs {
		switch {
		case esc:
			esc = false
			buf.WriteString(unescape(c))
		case c == '\\':
			esc = true
		case open == '"' && c == '"', open != '"' && c == ' ':
			return buf.String(), i + 1, true
		default:
			buf.WriteRune(c)
		}
	}
	return buf.String(), len(rs), false
}

// lexWord reads a word or a number (while it holds only digits and one
// dot, and no escape), which ends at a space (read), a colon, a boost or a
// fuzziness (not read). A lone trailing backslash is no token (kind 0).
func lexWord(rs []rune) (ctok, int) {
	var buf strings.Builder
	r := rs[0]
	num, dot, esc := unicode.IsDigit(r), false, r == '\\'
	if !esc {
		buf.WriteRune(r)
	}
	i := 1
	for ; i < len(rs); i++ {
		c := rs[i]
		if !esc && (c == ' ' || c == ':' || c == '^' || c == '~') {
			if c == ' ' {
				i++
			}
			break
		}
		switch {
		case esc:
			esc, num = false, false
			buf.WriteString(unescape(c))
		case c == '\\':
			esc = true
		default:
			if num && !(unicode.IsDigit(c) || c == '.' && !dot) {
				num = false
			}
			dot = dot || c == '.'
			buf.WriteRune(c)
		}
	}
	switch {
	case buf.Len() == 0 && esc:
		return ctok{}, i
	case num:
		return ctok{cNumber, buf.String()}, i
	}
	return ctok{cString, buf.String()}, i
}

// part is one part of a clause: a leaf, and whether it is required (+),
// excluded (-) or optional.
type part struct {
	n          Node
	must, not_ bool
}

// parseClause reads the clause text, which starts at byte at of query s.
// Syntax errors point at tok, where the clause's token starts (its + or -
// included).
func parseClause(s string, tok, at int, text string) (Node, error) {
	toks, lexErr := lexClause(text)
	p := &clauseParser{s: s, tok: tok, at: at, text: text, toks: toks}
	p.value = p.valueAt()
	var parts []part
	for len(p.toks) > 0 {
		pt, err := p.part()
		if err != nil {
			if lexErr != "" && p.starved {
				// bleve's parser asked for the token the lexer failed on
				return nil, SyntaxError(s, tok, lexErr)
			}
			return nil, err
		}
		parts = append(parts, pt)
	}
	if p.pastedColon {
		// "main.rs:7:5" is a place: every part of it, not any.
		for i := range parts {
			parts[i].must = !parts[i].not_
		}
	}
	switch {
	case lexErr != "":
		return nil, SyntaxError(s, tok, lexErr)
	case len(parts) == 0: // a lone backslash
		return nil, SyntaxError(s, tok, `a backslash escapes the character after it, and nothing follows this one; search a backslash as \\`)
	}
	return combine(parts), nil
}

// combine reads a clause's parts as bleve did: the required ones if any
// (the optional ones then only scored), else at least one optional one;
// and none of the excluded ones. A part on text or stack that holds no
// word (wordless: only stop words) is left out first, as Lucene's parser
// leaves them out, so that "x"+the is "x"; a clause of only such parts is
// returned as they are, for Parse to leave out and name.
func combine(parts []part) Node {
	if len(parts) == 1 && !parts[0].not_ {
		return parts[0].n
	}
	var must, should, not, wordlessParts []Node
	for _, p := range parts {
		switch {
		case wordless(p.n):
			wordlessParts = append(wordlessParts, p.n)
		case p.must:
			must = append(must, p.n)
		case p.not_:
			not = append(not, p.n)
		default:
			should = append(should, p.n)
		}
	}
	var base []Node
	switch {
	case len(must) > 0:
		base = must
	case len(should) == 1:
		base = should
	case len(should) > 1:
		base = []Node{&Or{Nodes: should}}
	case len(not) == 0 && len(wordlessParts) == 1:
		return wordlessParts[0]
	case len(not) == 0:
		return &Or{Nodes: wordlessParts}
	}
	if len(not) == 0 && len(base) == 1 {
		return base[0]
	}
	and := &And{Nodes: base}
	for _, n := range not {
		and.Nodes = append(and.Nodes, &Not{Node: n})
	}
	return and
}

type clauseParser struct {
	s     string // the whole query
	tok   int    // where the clause's token starts in s
	at    int    // where text starts in s
	text  string // the clause
	value int    // where the clause's value starts in text
	toks  []ctok

	starved     bool // a token was wanted after the last
	pastedColon bool // a colon of a message pasted as printed was read
}

// valueAt returns the byte offset in text of the clause's value, after
// "field:" (0 when the clause names no field).
func (p *clauseParser) valueAt() int {
	if i := strings.IndexByte(p.text, ':'); i > 0 && !strings.ContainsAny(p.text[:i], `\"/`) {
		return i + 1
	}
	return 0
}

func (p *clauseParser) syntax(msg string) error { return SyntaxError(p.s, p.tok, msg) }

func (p *clauseParser) peek(k ctokKind) bool {
	p.starved = p.starved || len(p.toks) == 0
	return len(p.toks) > 0 && p.toks[0].kind == k
}

func (p *clauseParser) next() (ctok, bool) {
	if len(p.toks) == 0 {
		p.starved = true
		return ctok{}, false
	}
	t := p.toks[0]
	p.toks = p.toks[1:]
	return t, true
}

// pos is the Pos of every leaf of the clause: its value.
func (p *clauseParser) pos() Pos { return Pos{At: p.at + p.value, Raw: p.text[p.value:]} }

func (p *clauseParser) part() (part, error) {
	var pt part
	switch {
	case p.peek(cPlus):
		pt.must = true
		p.next()
	case p.peek(cMinus):
		pt.not_ = true
		p.next()
	}
	t, ok := p.next()
	var err error
	switch {
	case (t.kind == cString || t.kind == cNumber) && p.pasted(t):
		for p.peek(cColon) { // the colon of a pasted message ("ZeroDivisionError: ...", "main.lua:7: ..."), or a scope's two ("std::out_of_range")
			p.next()
		}
		p.value, p.pastedColon = 0, true
		if t.kind == cNumber {
			pt.n, err = p.number("", t.s)
		} else {
			pt.n, err = p.word("", t.s)
		}
	case (t.kind == cString || t.kind == cPhrase) && p.peek(cColon):
		p.next()
		pt.n, err = p.fieldValue(t.s)
	case (t.kind == cString || t.kind == cNumber) && p.peek(cTilde):
		pt.n, err = p.fuzzy("", t.s)
	case t.kind == cString:
		pt.n, err = p.word("", t.s)
	case t.kind == cNumber:
		pt.n, err = p.number("", t.s)
	case t.kind == cPhrase:
		pt.n = &Phrase{Text: t.s, Pos: p.pos()}
	default:
		return pt, p.unexpected(t, ok, pt)
	}
	if err != nil {
		return pt, err
	}
	if _, phrase := pt.n.(*Phrase); phrase && p.peek(cTilde) {
		return pt, p.syntax(`a phrase takes no fuzziness (~); write fuzzy words without quotes, such as colour~1 reference~1`)
	}
	if p.peek(cBoost) {
		b, _ := p.next()
		if _, err := strconv.ParseFloat(b.s, 64); err != nil {
			return pt, BadValue(p.s, p.at+p.value, fmt.Sprintf("a boost takes a number (word^2), not %q", b.s))
		}
	}
	return pt, nil
}

// unexpected is the error of token t (none when !ok) where a part of a
// clause starts, after pt's + or -: what is wrong, and what to write.
func (p *clauseParser) unexpected(t ctok, ok bool, pt part) error {
	sign := ""
	switch {
	case pt.must:
		sign = "+"
	case pt.not_:
		sign = "-"
	}
	switch {
	case !ok && sign == "-":
		return p.syntax("'-' needs a term right after it, such as -debug; before parentheses, write NOT (debug OR trace)")
	case !ok:
		return p.syntax(fmt.Sprintf("'%s' needs a term right after it, such as %sdebug", sign, sign))
	case t.kind == cPlus || t.kind == cMinus:
		return p.syntax(fmt.Sprintf("'%s%s': write one + or - before a term, such as -debug", sign, t.s))
	case t.kind == cColon:
		return p.syntax(`':' needs a field name before it, such as name:Physics; to search a colon, quote it: "a:b"`)
	case t.kind == cGreater || t.kind == cLess || t.kind == cEqual:
		return p.syntax(fmt.Sprintf(`'%s' needs a field before it, such as time:>="2026-05-01"; to search it, quote it: "a%sb"`, t.s, t.s))
	case t.kind == cTilde:
		return p.syntax(`'~' needs a word before it, such as colour~1; to search a line that holds it, quote the line: "a ~ b"`)
	}
	return p.syntax(`'^' needs a word before it, such as crash^2; to search a line that holds it, quote the line: "a ^ b"`)
}

// fieldExamples are a value of each field, for the errors that say what
// to write.
var fieldExamples = map[string]string{"text": "spawn", "stack": "Update", "name": "Physics", "level": "error", "source": "unity",
	"kind": "op", "tool": "run_lua", "status": "error", "replayOf": "12", "run": "3", TemplateField: "3f2a9c1b7d0e",
	TimeField: `>="2026-05-01T12:00:00Z"`}

// noValue is the error of "name:" followed by nothing it can read (t, or
// nothing when !ok), pointing where the value should be.
func (p *clauseParser) noValue(name, field string, t ctok, ok bool) error {
	example := name + ":" + fieldExamples[field]
	at := p.at + p.value
	switch {
	case !ok:
		return SyntaxError(p.s, at, fmt.Sprintf("%s: has no value; write one right after the colon, such as %s", name, example))
	case t.kind == cColon:
		return SyntaxError(p.s, at, fmt.Sprintf(`%s: takes one value; quote a value with a colon in it, such as %s:"a:b"`, name, name))
	}
	return SyntaxError(p.s, at, fmt.Sprintf(`%s: needs a value such as %s, not '%s'; quote a value with special characters: %s:"a%sb"`,
		name, example, t.s, name, t.s))
}

// fieldValue reads what follows "field:".
func (p *clauseParser) fieldValue(name string) (Node, error) {
	field, err := p.field(name)
	if err != nil {
		return nil, err
	}
	t, ok := p.next()
	switch t.kind {
	case cString, cNumber:
		if p.peek(cTilde) {
			return p.fuzzy(field, t.s)
		}
		if t.kind == cNumber {
			return p.number(field, t.s)
		}
		return p.word(field, t.s)
	case cMinus:
		if n, ok := p.next(); ok && n.kind == cNumber {
			return p.number(field, "-"+n.s)
		}
		return nil, SyntaxError(p.s, p.at+p.value, fmt.Sprintf(`%s: a value that starts with - is quoted, such as %s:"-x"`, name, name))
	case cPhrase:
		return p.leaf(&Phrase{Field: field, Text: t.s, Pos: p.pos()})
	case cGreater, cLess:
		return p.rangeOf(name, field, t.kind == cGreater)
	}
	return nil, p.noValue(name, field, t, ok)
}

// pasted reports whether t, with a colon after it, is the text of a
// message pasted as it was printed rather than a field: an exception's or
// a level's word ("ZeroDivisionError: division by zero", "panic: ...",
// "error: ..."), a file and line ("main.lua:7: attempt to index ...",
// "game.c:4:14: runtime error: ..."), a scope ("std::out_of_range",
// "vector::_M_range_check"), a name no field's is written like
// ("AddressSanitizer:DEADLYSIGNAL", "[12:03:56]"). It is when t is no
// field, nor one in another case (but for a label in capitals with nothing
// after it: "Level: error" is a mistake the field's error names, "CALL
// STACK:" a message's), and: no value follows the colon (a field's comes
// right after it), a second colon follows (no value starts with one), t is
// not written as fields are (fieldLike), or t is a file's name and a
// number follows.
func (p *clauseParser) pasted(t ctok) bool {
	if len(p.toks) == 0 || p.toks[0].kind != cColon {
		return false
	}
	after := p.toks[1:]
	if _, err := p.field(t.s); err == nil || nearField(t.s) && (len(after) > 0 || strings.ToUpper(t.s) != t.s) {
		return false
	}
	if len(after) == 0 || after[0].kind == cColon || !fieldLike(t.s) {
		return true
	}
	return after[0].kind == cNumber && strings.ContainsAny(t.s, `./\`)
}

// nearField reports whether name is a field's name in another case
// ("Level", "NAME"): a mistake, not a word. (A word one letter from a
// field's name is a word: "game", "tile", "kinds".)
func nearField(name string) bool {
	for _, f := range Fields {
		if strings.EqualFold(f, name) {
			return true
		}
	}
	return false
}

// field resolves a field's name: message and msg are text.
func (p *clauseParser) field(name string) (string, error) {
	switch {
	case name == "message" || name == "msg":
		return "text", nil
	case slices.Contains(Fields, name):
		return name, nil
	}
	return "", errorf("unknown field %q; fields are %s and %s", name, strings.Join(Fields[:len(Fields)-1], ", "), Fields[len(Fields)-1])
}

// leaf checks a leaf's field: time takes only time ranges.
func (p *clauseParser) leaf(n Node) (Node, error) {
	if f, _ := Field(n); f == TimeField {
		if _, ok := n.(*TimeRange); !ok {
			return nil, errorf(`time takes a date range, such as time:>="2026-05-01T12:00:00Z"`)
		}
	}
	return n, nil
}

// word reads a word: /a regular expression/, a pattern with * or ?
// (word* is a prefix), or a word.
func (p *clauseParser) word(field, w string) (Node, error) {
	switch {
	case strings.HasPrefix(w, "/") && strings.HasSuffix(w, "/"):
		if len(w) < 2 {
			return nil, p.syntax(`this clause cannot be read; quote a phrase ("…") or escape special characters with \`)
		}
		re := w[1 : len(w)-1]
		if _, err := syntax.Parse(re, syntax.Perl); err != nil {
			if se, ok := err.(*syntax.Error); ok {
				return nil, BadValue(p.s, p.at+p.value, fmt.Sprintf("regular expression /%s/: %s: %s", re, se.Code, se.Expr))
			}
			return nil, BadValue(p.s, p.at+p.value, fmt.Sprintf("regular expression /%s/: %v", re, err))
		}
		return p.leaf(&Regexp{Field: field, Pattern: re, Pos: p.pos()})
	case strings.ContainsAny(w, "*?"):
		if lit, ok := strings.CutSuffix(w, "*"); ok && lit != "" && !strings.ContainsAny(lit, `*?\`) {
			return p.leaf(&Prefix{Field: field, Prefix: lit, Pos: p.pos()})
		}
		return p.leaf(&Wildcard{Field: field, Pattern: w, Pos: p.pos()})
	}
	return p.leaf(&Term{Field: field, Text: w, Pos: p.pos()})
}

// fuzzy reads word~n: n edits, 0 for none.
func (p *clauseParser) fuzzy(field, w string) (Node, error) {
	t, _ := p.next()
	f, err := strconv.ParseFloat(t.s, 64)
	if err != nil {
		return nil, BadValue(p.s, p.at+p.value, fmt.Sprintf("a fuzzy word takes a number of edits after ~ (word~1, word~%d), not %q", MaxFuzzy, t.s))
	}
	if n := int(f); n < 0 || n > MaxFuzzy {
		return nil, BadValue(p.s, p.at+p.value, fmt.Sprintf("a fuzzy word allows 1 or %d edits (word~1, word~%d), not %d", MaxFuzzy, MaxFuzzy, n))
	}
	return p.leaf(&Term{Field: field, Text: w, Fuzzy: int(f), Pos: p.pos()})
}

// number reads a number, which is a word: no field holds numbers.
func (p *clauseParser) number(field, n string) (Node, error) {
	if _, err := strconv.ParseFloat(n, 64); err != nil {
		return nil, BadValue(p.s, p.at+p.value, fmt.Sprintf("%q is not a number", n))
	}
	return p.leaf(&Term{Field: field, Text: n, Pos: p.pos()})
}

// rangeOf reads what follows field:> or field:< (name: the field as
// written): an optional =, and a number or a quoted time.
func (p *clauseParser) rangeOf(name, field string, greater bool) (Node, error) {
	op := map[bool]string{true: ">", false: "<"}[greater]
	incl := p.peek(cEqual)
	if incl {
		p.next()
		op += "="
	}
	// what a range takes, for its errors
	takes := fmt.Sprintf(`%s:%s takes a number, such as run:%s3, or on time a quoted time, such as time:%s"2026-05-01T12:00:00Z"`, name, op, op, op)
	if field == TimeField {
		takes = fmt.Sprintf(`%s:%s takes a quoted time, such as time:%s"2026-05-01T12:00:00Z", time:%s"2026-05-01 12:00:00" or time:%s"2026-05-01"`, name, op, op, op, op)
	}
	t, _ := p.next()
	switch t.kind {
	case cMinus:
		n, ok := p.next()
		if !ok || n.kind != cNumber {
			return nil, SyntaxError(p.s, p.at+p.value, takes)
		}
		t.s = "-" + n.s
		fallthrough
	case cNumber:
		v, err := strconv.ParseFloat(t.s, 64)
		if err != nil {
			return nil, BadValue(p.s, p.at+p.value, fmt.Sprintf("%q is not a number", t.s))
		}
		r := &NumberRange{Field: field, Pos: p.pos()}
		if greater {
			r.Min, r.MinIncl = &v, incl
		} else {
			r.Max, r.MaxIncl = &v, incl
		}
		return p.leaf(r)
	case cPhrase:
		tm, err := parseTime(t.s)
		if err != nil {
			return nil, BadValue(p.s, p.at+p.value, fmt.Sprintf("%s, not %q", takes, t.s))
		}
		r := &TimeRange{Field: field, Pos: p.pos()}
		if greater {
			r.Start, r.StartIncl = tm, &incl
		} else {
			r.End, r.EndIncl = tm, &incl
		}
		return p.leaf(r)
	}
	return nil, SyntaxError(p.s, p.at+p.value, takes)
}

// timeLayouts are the times a range takes: RFC 3339, without a zone (UTC),
// with a space for T, or a date alone.
var timeLayouts = []string{time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05",
	"2006-01-02 15:04:05 -0700", "2006-01-02"}

func parseTime(s string) (time.Time, error) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unable to parse datetime with any of the layouts")
}
