package search

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
)

// bleve's query string has no boolean words and no grouping: its clauses
// are optional unless marked + (required) or - (excluded). Agents write
// `level:error AND name:Physics "null reference"`, so tree applies the
// usual log-search reading: clauses are all required (AND is implied and
// may be written), OR joins alternatives (binding looser than AND), NOT
// (or -) excludes, and parentheses group.

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
					j := closing(s, i, '"')
					if j < 0 {
						return nil, syntaxErr(s, i, "a quote that is never closed")
					}
					i = j + 1
					continue
				case '/':
					// A regular expression, where a value starts: its
					// parentheses and spaces are its own.
					if i == start || s[i-1] == ':' || i == start+1 && (s[start] == '+' || s[start] == '-') {
						j := closing(s, i, '/')
						if j < 0 {
							return nil, syntaxErr(s, i, "a regular expression (/…/) that is never closed")
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

func syntaxErr(s string, pos int, what string) error { return queryErr(s, pos, "syntax error", what) }

// queryErr is an EINVALID error about s at byte pos, with a caret under it.
func queryErr(s string, pos int, kind, what string) error {
	col := utf8.RuneCountInString(s[:pos]) + 1
	return oplog.Errorf(oplog.EINVALID, "query: %s at character %d: %s\n  %s\n  %s^", kind, col, what, s, strings.Repeat(" ", col-1))
}

// tree parses s into a bleve query: see the reading above. Each clause is
// parsed by bleve's query string parser on its own; AND, OR, NOT and
// parentheses are built here, since bleve's query strings have no grouping.
func tree(s string) (query.Query, error) {
	q, _, err := parseTree(s)
	return q, err
}

// parseTree is tree, also returning its clauses in order.
func parseTree(s string) (query.Query, []clause, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, nil, err
	}
	var clauses []clause
	q, rest, err := group(s, toks, -1, &clauses)
	if err != nil {
		return nil, nil, err
	}
	if len(rest) > 0 {
		return nil, nil, syntaxErr(s, rest[0].pos, "')' without a '(' before it")
	}
	return q, clauses, nil
}

// alternative is one side of an OR: clauses that must all match and
// clauses that must not.
type alternative struct{ must, not []query.Query }

// group parses tokens up to the ')' that closes the '(' at open (-1: the
// top level) and returns the rest after it; it adds its clauses to clauses.
func group(s string, toks []token, open int, clauses *[]clause) (query.Query, []token, error) {
	alts := []alternative{{}}
	not, last := false, -1
	var opTok token
	for len(toks) > 0 {
		t := toks[0]
		toks = toks[1:]
		cur := &alts[len(alts)-1]
		empty := len(cur.must)+len(cur.not) == 0
		var clause query.Query
		switch t.s {
		case ")":
			if open < 0 {
				return nil, nil, syntaxErr(s, t.pos, "')' without a '(' before it")
			}
			if err := dangling(s, not, empty, opTok); err != nil {
				return nil, nil, err
			}
			return join(alts), toks, nil
		case "(":
			inner, rest, err := group(s, toks, t.pos, clauses)
			if err != nil {
				return nil, nil, err
			}
			if inner == nil {
				return nil, nil, syntaxErr(s, t.pos, "empty parentheses")
			}
			toks, clause = rest, inner
		case "AND", "&&":
			if last != len(alts)-1 || empty || not {
				return nil, nil, syntaxErr(s, t.pos, t.s+" needs a term before it")
			}
			opTok = t
			continue
		case "OR", "||":
			if empty || not {
				return nil, nil, syntaxErr(s, t.pos, t.s+" needs a term before it")
			}
			alts = append(alts, alternative{})
			opTok = t
			continue
		case "NOT", "!":
			if not {
				return nil, nil, syntaxErr(s, t.pos, "NOT NOT")
			}
			not, opTok = true, t
			continue
		default:
			text := t.s
			switch {
			case strings.HasPrefix(text, "-") && len(text) > 1:
				text, not = text[1:], !not
			case strings.HasPrefix(text, "+") && len(text) > 1:
				text = text[1:]
			}
			q, err := query.NewQueryStringQuery(text).Parse()
			if err != nil {
				return nil, nil, syntaxErr(s, t.pos, bleveMessage(err))
			}
			clause = q
			*clauses = append(*clauses, clauseOf(q, t, text))
		}
		if not {
			cur.not = append(cur.not, clause)
		} else {
			cur.must = append(cur.must, clause)
		}
		not, opTok = false, token{}
		last = len(alts) - 1
	}
	if open >= 0 {
		return nil, nil, syntaxErr(s, open, "'(' is never closed")
	}
	if err := dangling(s, not, len(alts[len(alts)-1].must)+len(alts[len(alts)-1].not) == 0, opTok); err != nil {
		return nil, nil, err
	}
	return join(alts), nil, nil
}

func dangling(s string, not, empty bool, op token) error {
	if op.s != "" && (not || empty) {
		return syntaxErr(s, op.pos, fmt.Sprintf("%s needs a term after it", op.s))
	}
	return nil
}

// join combines alternatives: nil when there is nothing to match.
func join(alts []alternative) query.Query {
	var qs []query.Query
	for _, a := range alts {
		var must query.Query
		switch len(a.must) {
		case 0:
			if len(a.not) == 0 {
				continue
			}
			must = query.NewMatchAllQuery()
		case 1:
			must = a.must[0]
		default:
			must = query.NewConjunctionQuery(a.must)
		}
		if len(a.not) > 0 {
			must = query.NewBooleanQuery([]query.Query{must}, nil, a.not)
		}
		qs = append(qs, must)
	}
	switch len(qs) {
	case 0:
		return nil
	case 1:
		return qs[0]
	}
	return query.NewDisjunctionQuery(qs)
}
