package search

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
)

// LogsQL: the query language in VictoriaLogs' terms, for studio scope
// (package studio reads VictoriaLogs, where each record is a row of the
// forwarding schema: _msg the text, stack, name, level, source, kind, tool,
// status, run, _time). The translation keeps what a query matches here:
//
//   - a word is a case-insensitive word filter, i("word"): VictoriaLogs
//     splits words as the analyzer does (runs of letters, digits and _);
//   - a phrase (or a word the analyzer splits, Foo.cs) is its words, each a
//     word filter, and a regular expression that wants them one after
//     another with only non-word characters between (a stop word's place
//     takes any one word), as phraseQuery checks them;
//   - foo* is a case-insensitive prefix, i("foo"*); other wildcards are a
//     regular expression over one word;
//   - name, source, tool and run match whole values exactly (name:="x"),
//     level, kind and status as oplog spells them;
//   - time ranges are _time ranges, their bounds kept.
//
// What LogsQL cannot say the same way is an EINVALID error naming the
// clause: fuzzy terms, regular expressions over words, numeric ranges,
// replayOf (not forwarded), words that are only stop words.

// wordClass is a character of a word, as eachWord reads them.
const wordClass = `\pL\p{Nd}\pM_`

var studioFields = map[string]string{"text": "_msg", "message": "_msg", "msg": "_msg", "stack": "stack",
	"name": "name", "level": "level", "source": "source", "kind": "kind", "tool": "tool", "status": "status", "run": "run"}

var logsqlText = sync.OnceValue(func() analysis.Analyzer { return newMapping().AnalyzerNamed(wordsName) })

// LogsQL translates query string s (the language Search reads) into a
// LogsQL filter that matches the same records in the studio schema. An
// empty s is "*". A query that does not parse is EINVALID as Search says
// it; one that parses but has no LogsQL equivalent is EINVALID naming what
// cannot be translated.
func LogsQL(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "*", nil
	}
	q, err := parse(strings.TrimSpace(s))
	if err != nil {
		return "", err
	}
	e, err := toLogsQL(q)
	if err != nil {
		return "", oplog.Errorf(oplog.EINVALID, "query: cannot search the studio with this query: %v", err)
	}
	switch e {
	case lqNone:
		return "", oplog.Errorf(oplog.EINVALID, "query: cannot search the studio with this query: it matches nothing here "+
			"(only stop words, or a number range on a keyword field)")
	case lqAll:
		return "*", nil
	}
	return e, nil
}

// lqAll and lqNone stand for filters that match every record and none.
const (
	lqAll  = "*"
	lqNone = "<none>"
)

func toLogsQL(q query.Query) (string, error) {
	switch q := q.(type) {
	case *query.BooleanQuery:
		return lqBoolean(q)
	case *query.ConjunctionQuery:
		return lqJoin(q.Conjuncts, " AND ")
	case *query.DisjunctionQuery:
		if q.Min > 1 {
			return "", fmt.Errorf("at least %v of several alternatives", q.Min)
		}
		return lqJoin(q.Disjuncts, " OR ")
	case *query.MatchAllQuery:
		return lqAll, nil
	case *query.MatchNoneQuery:
		return lqNone, nil
	case query.FieldableQuery:
		return lqLeaf(q)
	}
	return "", fmt.Errorf("%T", q)
}

func lqBoolean(q *query.BooleanQuery) (string, error) {
	var parts []query.Query
	if q.Must != nil {
		parts = append(parts, q.Must)
	}
	if q.Should != nil {
		// Alone, at least one should clause matches; beside must clauses
		// (never built here) they would only score.
		if q.Must != nil {
			return "", fmt.Errorf("optional clauses")
		}
		parts = append(parts, q.Should)
	}
	e, err := lqJoin(parts, " AND ")
	if err != nil || q.MustNot == nil {
		return e, err
	}
	not, err := toLogsQL(q.MustNot)
	if err != nil {
		return "", err
	}
	switch {
	case not == lqNone || e == lqNone:
		return e, nil
	case not == lqAll:
		return lqNone, nil
	case e == lqAll:
		return "NOT " + not, nil
	}
	return "(" + e + " AND NOT " + not + ")", nil
}

// lqJoin joins the translations of qs with op (" AND " or " OR ").
func lqJoin(qs []query.Query, op string) (string, error) {
	es := make([]string, 0, len(qs))
	for _, sub := range qs {
		e, err := toLogsQL(sub)
		if err != nil {
			return "", err
		}
		es = append(es, e)
	}
	return lqCombine(es, op), nil
}

// lqCombine joins filters with op, folding those that match everything or
// nothing.
func lqCombine(in []string, op string) string {
	and := op == " AND "
	var es []string
	for _, e := range in {
		switch {
		case e == lqNone && and, e == lqAll && !and:
			return e
		case e == lqNone, e == lqAll:
			continue
		}
		es = append(es, e)
	}
	switch len(es) {
	case 0:
		if and {
			return lqAll
		}
		return lqNone
	case 1:
		return es[0]
	}
	return "(" + strings.Join(es, op) + ")"
}

func lqLeaf(q query.FieldableQuery) (string, error) {
	field := q.Field()
	if m, ok := q.(*query.MatchQuery); ok && m.Fuzziness != 0 || isFuzzy(q) {
		return "", fmt.Errorf("fuzzy terms (~) have no LogsQL equivalent")
	}
	if n, ok := q.(*query.NumericRangeQuery); ok && isNumberToken(n) {
		// A bare number is a word and a one-number range, which matches
		// nothing here: no field holds numbers in the index.
		return lqNone, nil
	}
	switch {
	case field == "":
		msg, err := lqText("_msg", q)
		if err != nil {
			return "", err
		}
		stack, err := lqText("stack", q)
		if err != nil {
			return "", err
		}
		return lqCombine([]string{msg, stack}, " OR "), nil
	case field == timeField:
		dq, ok := q.(*query.DateRangeQuery)
		if !ok {
			return "", fmt.Errorf(`time takes a date range, such as time:>="2026-05-01T12:00:00Z"`)
		}
		return lqTime(dq), nil
	case field == "replayOf":
		return "", fmt.Errorf("replayOf is not forwarded to the studio")
	case studioFields[field] == "":
		return "", fmt.Errorf("unknown field %q", field)
	case studioFields[field] == "_msg" || field == "stack":
		return lqText(studioFields[field], q)
	}
	return lqKeyword(field, q)
}

// isNumberToken reports whether q is the range [n, n] the query string
// parser adds beside a number.
func isNumberToken(q *query.NumericRangeQuery) bool {
	return q.Min != nil && q.Max != nil && *q.Min == *q.Max && q.InclusiveMin != nil && *q.InclusiveMin &&
		q.InclusiveMax != nil && *q.InclusiveMax
}

func isFuzzy(q query.Query) bool {
	switch q := q.(type) {
	case *query.FuzzyQuery:
		return true
	case *query.MatchPhraseQuery:
		return q.Fuzziness != 0
	}
	return false
}

// lqText is a leaf on the text field f (_msg or stack).
func lqText(f string, q query.FieldableQuery) (string, error) {
	switch q := q.(type) {
	case *query.MatchQuery:
		return lqWords(f, q.Match)
	case *query.MatchPhraseQuery:
		return lqWords(f, q.MatchPhrase)
	case *query.WildcardQuery:
		return lqWildcard(f, strings.ToLower(q.Wildcard))
	case *query.PrefixQuery:
		return lqWildcard(f, strings.ToLower(q.Prefix)+"*")
	case *query.RegexpQuery:
		return "", fmt.Errorf("a regular expression over words (/%s/) has no LogsQL equivalent; use a wildcard", q.Regexp)
	case *query.NumericRangeQuery, *query.TermRangeQuery:
		return "", fmt.Errorf("ranges are for time only")
	}
	return "", fmt.Errorf("%T on %s", q, f)
}

// lqWords matches the words of text in f one after another.
func lqWords(f, text string) (string, error) {
	toks := logsqlText().Analyze([]byte(text))
	switch len(toks) {
	case 0:
		return lqNone, nil // only stop words, which the index leaves out: nothing matches
	case 1:
		return f + ":i(" + strconv.Quote(string(toks[0].Term)) + ")", nil
	}
	// VictoriaLogs' phrase filter wants the phrase's own separators; the
	// index reads any run of non-word characters as one.
	parts := make([]string, 0, len(toks)+1)
	var re strings.Builder
	re.WriteString("(?i)(?:^|[^" + wordClass + "])")
	sep := "[^" + wordClass + "]+"
	for i, t := range toks {
		parts = append(parts, f+":i("+strconv.Quote(string(t.Term))+")")
		if i > 0 {
			re.WriteString(sep)
			for range t.Position - toks[i-1].Position - 1 {
				re.WriteString("[" + wordClass + "]+" + sep)
			}
		}
		re.WriteString(quoteMeta(string(t.Term)))
	}
	re.WriteString("(?:[^" + wordClass + "]|$)")
	parts = append(parts, f+":~"+strconv.Quote(re.String()))
	return "(" + strings.Join(parts, " AND ") + ")", nil
}

// lqWildcard matches a word of f by a lower-cased wildcard.
func lqWildcard(f, w string) (string, error) {
	var re strings.Builder
	prefix := true
	for i, r := range w {
		switch {
		case r == '*':
			prefix = prefix && i == len(w)-1
			re.WriteString("[" + wordClass + "]*")
		case r == '?':
			prefix = false
			re.WriteString("[" + wordClass + "]")
		case !isWordRune(r):
			return "", fmt.Errorf("wildcard %q: %q is not a word character, so it matches no word", w, r)
		default:
			re.WriteString(quoteMeta(string(r)))
		}
	}
	if prefix && len(w) > 1 {
		return f + ":i(" + strconv.Quote(strings.TrimSuffix(w, "*")) + "*)", nil
	}
	return f + ":~" + strconv.Quote("(?i)(?:^|[^"+wordClass+"])"+re.String()+"(?:[^"+wordClass+"]|$)"), nil
}

// lqKeyword is a leaf on a keyword field: the whole value.
func lqKeyword(field string, q query.FieldableQuery) (string, error) {
	fixed, isFixed := fixedFields[field]
	exact := func(v string) (string, error) {
		if isFixed {
			canon, err := fixed.parse(v)
			if err != nil {
				return "", err
			}
			if canon == "" {
				return lqAll, nil
			}
			v = canon
		}
		return field + ":=" + strconv.Quote(v), nil
	}
	pattern := func(re string) string {
		if isFixed {
			re = "(?i)" + re
		}
		return field + ":~" + strconv.Quote("^(?:"+re+")$")
	}
	switch q := q.(type) {
	case *query.MatchQuery:
		return exact(q.Match)
	case *query.MatchPhraseQuery:
		return exact(q.MatchPhrase)
	case *query.WildcardQuery:
		w := q.Wildcard
		if p, ok := strings.CutSuffix(w, "*"); ok && !isFixed && !strings.ContainsAny(p, "*?") {
			return field + ":=" + strconv.Quote(p) + "*", nil
		}
		return pattern(wildcardRegexp(w)), nil
	case *query.PrefixQuery:
		if isFixed {
			return pattern(quoteMeta(q.Prefix) + ".*"), nil
		}
		return field + ":=" + strconv.Quote(q.Prefix) + "*", nil
	case *query.RegexpQuery:
		return pattern(q.Regexp), nil
	}
	return "", fmt.Errorf("%s: ranges are for time only", field)
}

// lqTime is a _time range with the bounds of q (start included unless it
// says otherwise, end excluded unless it says otherwise, as the index reads them).
func lqTime(q *query.DateRangeQuery) string {
	inclStart, inclEnd := true, false
	if q.InclusiveStart != nil {
		inclStart = *q.InclusiveStart
	}
	if q.InclusiveEnd != nil {
		inclEnd = *q.InclusiveEnd
	}
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	start, end := q.Start.Time, q.End.Time
	switch {
	case start.IsZero() && end.IsZero():
		return lqAll
	case end.IsZero():
		return "_time:" + map[bool]string{true: ">=", false: ">"}[inclStart] + ts(start)
	case start.IsZero():
		return "_time:" + map[bool]string{true: "<=", false: "<"}[inclEnd] + ts(end)
	}
	return "_time:" + map[bool]string{true: "[", false: "("}[inclStart] + ts(start) + ", " + ts(end) +
		map[bool]string{true: "]", false: ")"}[inclEnd]
}

// quoteMeta is regexp.QuoteMeta for RE2 inside a LogsQL string.
func quoteMeta(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
