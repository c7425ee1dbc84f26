package search

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// bleve's query string has no boolean words: its clauses are optional
// unless marked + (required) or - (excluded). Agents write
// `level:error AND name:Physics "null reference"`, so rewrite applies the
// usual log-search reading first: clauses are all required (AND is
// implied and may be written), OR joins alternatives (binding looser than
// AND), NOT (or -) excludes, and parentheses group. The result is a bleve
// query string: `+level:error +name:Physics +"null reference"`.

type token struct {
	s   string
	pos int // byte offset in the query
}

// lex splits s into parentheses and clauses; a clause runs to a space or a
// parenthesis outside quotes, with backslash escapes.
func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')':
			toks = append(toks, token{s[i : i+1], i})
			i++
		default:
			start := i
			for i < len(s) && !strings.ContainsRune(" \t\n\r()", rune(s[i])) {
				switch s[i] {
				case '\\':
					i = min(i+2, len(s))
					continue
				case '"':
					j := i + 1
					for j < len(s) && s[j] != '"' {
						if s[j] == '\\' {
							j++
						}
						j++
					}
					if j >= len(s) {
						return nil, syntaxErr(s, i, "a quote that is never closed")
					}
					i = j + 1
					continue
				}
				i++
			}
			toks = append(toks, token{s[start:i], start})
		}
	}
	return toks, nil
}

func syntaxErr(s string, pos int, what string) error {
	col := utf8.RuneCountInString(s[:pos]) + 1
	return oplog.Errorf(oplog.EINVALID, "query: syntax error at character %d: %s\n  %s\n  %s^", col, what, s, strings.Repeat(" ", col-1))
}

// rewrite turns s into bleve's query string syntax (see above).
func rewrite(s string) (string, error) {
	toks, err := lex(s)
	if err != nil {
		return "", err
	}
	out, rest, err := group(s, toks, -1)
	if err != nil {
		return "", err
	}
	if len(rest) > 0 {
		return "", syntaxErr(s, rest[0].pos, "')' without a '(' before it")
	}
	return out, nil
}

// group rewrites tokens up to the ')' that closes the '(' at open (-1: the
// top level) and returns the rest after it.
func group(s string, toks []token, open int) (string, []token, error) {
	alts := [][]string{nil}
	not, last := false, -1
	var opTok token
	for len(toks) > 0 {
		t := toks[0]
		toks = toks[1:]
		var clause string
		switch t.s {
		case ")":
			if open < 0 {
				return "", nil, syntaxErr(s, t.pos, "')' without a '(' before it")
			}
			if err := dangling(s, not, alts, opTok); err != nil {
				return "", nil, err
			}
			return join(alts), toks, nil
		case "(":
			inner, rest, err := group(s, toks, t.pos)
			if err != nil {
				return "", nil, err
			}
			if inner == "" {
				return "", nil, syntaxErr(s, t.pos, "empty parentheses")
			}
			toks, clause = rest, "("+inner+")"
		case "AND", "&&":
			if last != len(alts)-1 || len(alts[len(alts)-1]) == 0 || not {
				return "", nil, syntaxErr(s, t.pos, t.s+" needs a term before it")
			}
			opTok = t
			continue
		case "OR", "||":
			if len(alts[len(alts)-1]) == 0 || not {
				return "", nil, syntaxErr(s, t.pos, t.s+" needs a term before it")
			}
			alts = append(alts, nil)
			opTok = t
			continue
		case "NOT", "!":
			if not {
				return "", nil, syntaxErr(s, t.pos, "NOT NOT")
			}
			not, opTok = true, t
			continue
		default:
			clause = t.s
		}
		if not {
			clause = "-" + strings.TrimLeft(clause, "+-")
			not = false
		}
		opTok = token{}
		alts[len(alts)-1] = append(alts[len(alts)-1], clause)
		last = len(alts) - 1
	}
	if open >= 0 {
		return "", nil, syntaxErr(s, open, "'(' is never closed")
	}
	if err := dangling(s, not, alts, opTok); err != nil {
		return "", nil, err
	}
	return join(alts), nil, nil
}

func dangling(s string, not bool, alts [][]string, op token) error {
	if op.s != "" && (not || len(alts[len(alts)-1]) == 0) {
		return syntaxErr(s, op.pos, fmt.Sprintf("%s needs a term after it", op.s))
	}
	return nil
}

// join writes alternatives of required clauses.
func join(alts [][]string) string {
	req := func(cl []string) string {
		parts := make([]string, len(cl))
		for i, c := range cl {
			if strings.HasPrefix(c, "-") || strings.HasPrefix(c, "+") {
				parts[i] = c
			} else {
				parts[i] = "+" + c
			}
		}
		return strings.Join(parts, " ")
	}
	if len(alts) == 1 {
		return req(alts[0])
	}
	parts := make([]string, len(alts))
	for i, a := range alts {
		parts[i] = "(" + req(a) + ")"
	}
	return strings.Join(parts, " ")
}
