package search

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"

	"github.com/mcplogd/mcplogd/oplog"
)

// Values and case. level, kind and status have a fixed set of values: a
// query takes the spellings oplog parses (level:Warning, level:exception,
// kind:operation, status:ok), in any case, and "any" or "all" (kind) or ""
// for every record, as their filters do; another value is an error that lists
// the valid ones, where a term that matches nothing would silently find
// nothing. A wildcard, prefix or regular expression on text and stack
// ignores case as their words do (the analyzer lower-cases them); on level,
// kind and status too, whose values are lower case, and one that matches
// none of their values is an error as well. On name, source, tool and
// replayOf, which match exactly, it keeps its case: name:Phys* does not find
// a record named "physics", as name:physics does not find "Physics".

// fixedField is a keyword field with a fixed set of values.
type fixedField struct {
	// parse spells a value as it is indexed ("" for any), or fails with
	// oplog's error listing the values.
	parse  func(v string) (string, error)
	values []string // as indexed
}

var fixedFields = map[string]fixedField{
	"level": {
		parse:  func(v string) (string, error) { l, err := oplog.ParseLevel(v); return l.String(), err },
		values: names(func(i int) string { return oplog.Level(i).String() }),
	},
	"kind": {
		parse:  func(v string) (string, error) { k, err := oplog.ParseKind(v); return k.String(), err },
		values: names(func(i int) string { return oplog.Kind(i).String() }),
	},
	"status": {
		parse:  func(v string) (string, error) { s, err := oplog.ParseStatus(v); return s.String(), err },
		values: names(func(i int) string { return oplog.Status(i).String() }),
	},
}

// names returns name(1), name(2)... up to the first empty one.
func names(name func(i int) string) []string {
	var vs []string
	for i := 1; i < 256 && name(i) != ""; i++ {
		vs = append(vs, name(i))
	}
	return vs
}

// clause is a clause of a query string and where it starts.
type clause struct {
	q    query.Query
	pos  int    // byte offset of text in the query
	text string // without its leading + or -
}

// clauseOf is the clause q parsed from text, token t without its + or -.
func clauseOf(q query.Query, t token, text string) clause {
	return clause{q: q, pos: t.pos + len(t.s) - len(text), text: text}
}

// value returns the byte offset in text of the clause's value, after
// "field:" (0 when the clause names no field).
func (c clause) value() int {
	if i := strings.IndexByte(c.text, ':'); i > 0 && !strings.ContainsAny(c.text[:i], `\"/`) {
		return i + 1
	}
	return 0
}

// check returns what is wrong with a value of c ("" for nothing): a regular
// expression that does not parse, or a value that a field with a fixed set
// does not have.
func (c clause) check() string {
	return checkLeaves(c.q, c.text[c.value():])
}

func checkLeaves(q query.Query, raw string) string {
	var subs []query.Query
	switch q := q.(type) {
	case *query.BooleanQuery:
		subs = []query.Query{q.Must, q.Should, q.MustNot}
	case *query.ConjunctionQuery:
		subs = q.Conjuncts
	case *query.DisjunctionQuery:
		subs = q.Disjuncts
	case query.FieldableQuery:
		return checkLeaf(q, raw)
	}
	for _, sub := range subs {
		if sub == nil {
			continue
		}
		if msg := checkLeaves(sub, raw); msg != "" {
			return msg
		}
	}
	return ""
}

func checkLeaf(q query.FieldableQuery, raw string) string {
	fuzzy := 0
	switch q := q.(type) {
	case *query.MatchQuery:
		fuzzy = q.Fuzziness
	case *query.FuzzyQuery:
		fuzzy = q.Fuzziness
	}
	if fuzzy > searcher.MaxFuzziness || fuzzy < 0 {
		return fmt.Sprintf("a fuzzy word allows 1 or %d edits (word~1, word~%d), not %d", searcher.MaxFuzziness, searcher.MaxFuzziness, fuzzy)
	}
	var pattern string // a regular expression matching whole values
	switch q := q.(type) {
	case *query.RegexpQuery:
		re, err := foldRegexp(q.Regexp)
		if err != nil {
			return err.Error()
		}
		pattern = re
	case *query.WildcardQuery:
		pattern = wildcardRegexp(strings.ToLower(q.Wildcard))
	case *query.PrefixQuery:
		pattern = regexp.QuoteMeta(strings.ToLower(q.Prefix)) + ".*"
	}
	f, ok := fixedFields[q.Field()]
	if !ok {
		return ""
	}
	bad := func() string {
		if _, err := f.parse(raw); err != nil {
			return oplog.ErrorMessage(err)
		}
		return fmt.Sprintf("%s is one of %s", q.Field(), strings.Join(f.values, ", "))
	}
	var err error
	switch q := q.(type) {
	case *query.MatchQuery:
		if q.Fuzziness == 0 {
			_, err = f.parse(q.Match)
		}
	case *query.MatchPhraseQuery:
		_, err = f.parse(q.MatchPhrase)
	case *query.RegexpQuery, *query.WildcardQuery, *query.PrefixQuery:
		re, err := regexp.Compile("^(?:" + pattern + ")$")
		if err != nil {
			return err.Error()
		}
		for _, v := range f.values {
			if re.MatchString(v) {
				return ""
			}
		}
		return bad()
	case *query.NumericRangeQuery, *query.DateRangeQuery, *query.TermRangeQuery:
		return bad()
	}
	if err != nil {
		return oplog.ErrorMessage(err)
	}
	return ""
}

// wildcardRegexp is the regular expression of a wildcard, as bleve reads
// it: * any run of characters, ? any one, everything else itself.
func wildcardRegexp(w string) string {
	var b strings.Builder
	for _, r := range w {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return b.String()
}

// foldRegexp returns a regular expression that matches lower-cased words
// as re matches them in any case: re read case-insensitively (where it does
// not say otherwise itself). It fails, naming what is wrong, when re does
// not parse.
func foldRegexp(re string) (string, error) {
	if _, err := syntax.Parse(re, syntax.Perl); err != nil {
		if se, ok := err.(*syntax.Error); ok {
			return "", fmt.Errorf("regular expression /%s/: %s: %s", re, se.Code, se.Expr)
		}
		return "", fmt.Errorf("regular expression /%s/: %v", re, err)
	}
	return "(?i)" + re, nil
}

// fold returns q with its pattern (wildcard, prefix or regular expression)
// lower-cased, for a field whose values are (see above); other queries as
// they are.
func fold(q query.FieldableQuery) (query.FieldableQuery, error) {
	switch q := q.(type) {
	case *query.WildcardQuery:
		q.Wildcard = strings.ToLower(q.Wildcard)
		if lit, ok := strings.CutSuffix(q.Wildcard, "*"); ok && lit != "" && !strings.ContainsAny(lit, `*?\`) {
			// word* is a prefix: bleve walks the terms from it, where a
			// wildcard builds its regular expression's automaton once per
			// segment and field (~0.3 ms each; it made sentinelq* the
			// slowest search after a burst)
			p := query.NewPrefixQuery(lit)
			p.SetField(q.FieldVal)
			p.BoostVal = q.BoostVal
			return p, nil
		}
	case *query.PrefixQuery:
		q.Prefix = strings.ToLower(q.Prefix)
	case *query.RegexpQuery:
		re, err := foldRegexp(q.Regexp)
		if err != nil {
			return nil, oplog.Errorf(oplog.EINVALID, "query: %v", err)
		}
		q.Regexp = re
	}
	return q, nil
}

// keywordLeaf returns the query to run for a leaf on a keyword field:
// level, kind and status values spelled as indexed (match-all for any) and
// their patterns lower-cased; other fields as written.
func keywordLeaf(q query.FieldableQuery) (query.Query, error) {
	field := q.Field()
	f, fixed := fixedFields[field]
	switch m := q.(type) {
	case *query.MatchQuery:
		if !fixed {
			return m, nil
		}
		v, err := f.parse(m.Match)
		switch {
		case err != nil: // a fuzzy value: as written
		case v == "":
			return query.NewMatchAllQuery(), nil
		default:
			m.Match = v
		}
		return m, nil
	case *query.MatchPhraseQuery: // one keyword, spaces and all
		v := m.MatchPhrase
		if fixed {
			canon, err := f.parse(v)
			if err != nil {
				return nil, oplog.Errorf(oplog.EINVALID, "query: %s", oplog.ErrorMessage(err))
			}
			if canon == "" {
				return query.NewMatchAllQuery(), nil
			}
			v = canon
		}
		tq := query.NewTermQuery(v)
		tq.SetField(field)
		return tq, nil
	}
	if fixed {
		return fold(q)
	}
	return q, nil
}
