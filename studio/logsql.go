package studio

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// LogsQL: the query language (package oplog/query) compiled for
// VictoriaLogs, where each record is a row of the forwarding schema: _msg
// the text, stack, name, level, source, kind, tool, status, run, template,
// _time. The
// translation keeps what a query matches in the local index:
//
//   - a word is a case-insensitive word filter, i("word"): VictoriaLogs
//     splits words as the language does (ql.Words: runs of letters, digits
//     and _); a bare word is one such filter per inflection
//     (ql.Inflections), ORed;
//   - a phrase (or a word the language splits, Foo.cs) is its words, each a
//     word filter, and a regular expression that wants them one after
//     another with only non-word characters between (a stop word's place
//     takes any one word), as the index checks them;
//   - foo* is a case-insensitive prefix, i("foo"*); other wildcards are a
//     regular expression over one word;
//   - name, source, tool, run and template match whole values exactly
//     (name:="x"),
//     level, kind and status as oplog spells them;
//   - time ranges are _time ranges, their bounds kept.
//
// What LogsQL cannot say the same way is an EINVALID error naming the
// operator: fuzzy terms, regular expressions over words, number ranges,
// replayOf (not forwarded), words that are only stop words.

// wordClass is a character of a word, as ql.IsWordRune reads them.
const wordClass = `\pL\p{Nd}\pM_`

var studioFields = map[string]string{"text": "_msg", "stack": "stack",
	"name": "name", "level": "level", "source": "source", "kind": "kind", "tool": "tool", "status": "status", "run": "run",
	ql.TemplateField: "template"}

// fixedFields are the fields whose values oplog spells (in any case).
var fixedFields = []string{"level", "kind", "status"}

// logsQL compiles tree (a query as oplog parsed and checked it, see
// oplog.SearchQuery.Node) into a LogsQL filter that matches the same
// records in the studio schema; "*" for every record. A tree that has no
// LogsQL equivalent is EINVALID naming what cannot be translated.
func logsQL(tree ql.Node) (string, error) {
	e, err := toLogsQL(tree)
	if err != nil {
		return "", oplog.Errorf(oplog.EINVALID, "query: cannot search the studio with this query: %v", err)
	}
	if e == lqNone {
		return "", oplog.Errorf(oplog.EINVALID, "query: cannot search the studio with this query: it matches nothing here "+
			"(only stop words, or a number range on a keyword field)")
	}
	return e, nil
}

// lqAll and lqNone stand for filters that match every record and none.
const (
	lqAll  = "*"
	lqNone = "<none>"
)

// toLogsQL compiles n; one case per node type, the leaves in lqLeaf.
func toLogsQL(n ql.Node) (string, error) {
	switch n := n.(type) {
	case *ql.And:
		var must, not []ql.Node
		for _, sub := range n.Nodes {
			if x, ok := sub.(*ql.Not); ok {
				not = append(not, x.Node)
			} else {
				must = append(must, sub)
			}
		}
		return lqAndNot(must, not)
	case *ql.Or:
		return lqJoin(n.Nodes, " OR ")
	case *ql.Not:
		return lqAndNot(nil, []ql.Node{n.Node})
	case *ql.All:
		return lqAll, nil
	case *ql.None:
		return lqNone, nil
	}
	field, _ := ql.Field(n)
	if field != "" {
		return lqLeaf(n, field)
	}
	msg, err := lqLeaf(n, "text")
	if err != nil {
		return "", err
	}
	stack, err := lqLeaf(n, "stack")
	if err != nil {
		return "", err
	}
	return lqCombine([]string{msg, stack}, " OR "), nil
}

// lqAndNot matches every node of must (every record when there is none)
// and none of not.
func lqAndNot(must, not []ql.Node) (string, error) {
	e, err := lqJoin(must, " AND ")
	if err != nil || len(not) == 0 {
		return e, err
	}
	ne, err := lqJoin(not, " OR ")
	if err != nil {
		return "", err
	}
	switch {
	case ne == lqNone || e == lqNone:
		return e, nil
	case ne == lqAll:
		return lqNone, nil
	case e == lqAll:
		return "NOT " + ne, nil
	}
	return "(" + e + " AND NOT " + ne + ")", nil
}

// lqJoin joins the translations of ns with op (" AND " or " OR ").
func lqJoin(ns []ql.Node, op string) (string, error) {
	es := make([]string, 0, len(ns))
	for _, sub := range ns {
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

// lqLeaf compiles a leaf on field (not "").
func lqLeaf(n ql.Node, field string) (string, error) {
	switch {
	case field == ql.TimeField:
		if r, ok := n.(*ql.TimeRange); ok {
			return lqTime(r), nil
		}
		return "", fmt.Errorf(`time takes a date range, such as time:>="2026-05-01T12:00:00Z"`)
	case field == "replayOf":
		return "", fmt.Errorf("replayOf is not forwarded to the studio")
	case studioFields[field] == "":
		return "", fmt.Errorf("unknown field %q", field)
	case field == "text" || field == "stack":
		return lqText(studioFields[field], n)
	}
	return lqKeyword(field, n)
}

// lqText is a leaf on the text field f (_msg or stack).
func lqText(f string, n ql.Node) (string, error) {
	switch n := n.(type) {
	case *ql.Term:
		if n.Fuzzy != 0 {
			return "", fmt.Errorf("fuzzy terms (~) have no LogsQL equivalent")
		}
		if ws := ql.Words(n.Text); len(ws) == 1 {
			return lqForms(f, ql.Inflections(ws[0].Term)), nil
		}
		return lqWords(f, n.Text)
	case *ql.Phrase:
		return lqWords(f, n.Text)
	case *ql.Prefix:
		return lqWildcard(f, strings.ToLower(n.Prefix)+"*")
	case *ql.Wildcard:
		return lqWildcard(f, strings.ToLower(n.Pattern))
	case *ql.Regexp:
		return "", fmt.Errorf("a regular expression over words (/%s/) has no LogsQL equivalent; use a wildcard", n.Pattern)
	case *ql.NumberRange, *ql.TimeRange:
		return "", fmt.Errorf("ranges are for time only")
	}
	panic(fmt.Sprintf("BUG: studio: no LogsQL of %T", n))
}

// lqForms matches any of forms, a word and its inflections, as word filters
// in f.
func lqForms(f string, forms []string) string {
	es := make([]string, len(forms))
	for i, w := range forms {
		es[i] = f + ":i(" + strconv.Quote(w) + ")"
	}
	return lqCombine(es, " OR ")
}

// lqWords matches the words of text in f one after another.
func lqWords(f, text string) (string, error) {
	toks := ql.Words(text)
	switch len(toks) {
	case 0:
		return lqNone, nil // only stop words, which the index leaves out: nothing matches
	case 1:
		return f + ":i(" + strconv.Quote(toks[0].Term) + ")", nil
	}
	// VictoriaLogs' phrase filter wants the phrase's own separators; the
	// index reads any run of non-word characters as one.
	parts := make([]string, 0, len(toks)+1)
	var re strings.Builder
	re.WriteString("(?i)(?:^|[^" + wordClass + "])")
	sep := "[^" + wordClass + "]+"
	for i, t := range toks {
		parts = append(parts, f+":i("+strconv.Quote(t.Term)+")")
		if i > 0 {
			re.WriteString(sep)
			for range t.Position - toks[i-1].Position - 1 {
				re.WriteString("[" + wordClass + "]+" + sep)
			}
		}
		re.WriteString(quoteMeta(t.Term))
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
		case !ql.IsWordRune(r):
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
func lqKeyword(field string, n ql.Node) (string, error) {
	fixed := slices.Contains(fixedFields, field)
	exact := func(v string) (string, error) { return field + ":=" + strconv.Quote(v), nil }
	pattern := func(re string) (string, error) {
		if fixed {
			re = "(?i)" + re
		}
		return field + ":~" + strconv.Quote("^(?:"+re+")$"), nil
	}
	switch n := n.(type) {
	case *ql.Term:
		if n.Fuzzy != 0 {
			return "", fmt.Errorf("fuzzy terms (~) have no LogsQL equivalent")
		}
		return exact(n.Text)
	case *ql.Phrase:
		return exact(n.Text)
	case *ql.Prefix:
		if fixed {
			return pattern(quoteMeta(n.Prefix) + ".*")
		}
		return field + ":=" + strconv.Quote(n.Prefix) + "*", nil
	case *ql.Wildcard:
		w := n.Pattern
		if p, ok := strings.CutSuffix(w, "*"); ok && !fixed && !strings.ContainsAny(p, "*?") {
			return field + ":=" + strconv.Quote(p) + "*", nil
		}
		return pattern(ql.WildcardRegexp(w))
	case *ql.Regexp:
		return pattern(n.Pattern)
	case *ql.NumberRange, *ql.TimeRange:
		return "", fmt.Errorf("%s: ranges are for time only", field)
	}
	panic(fmt.Sprintf("BUG: studio: no LogsQL of %T", n))
}

// lqTime is a _time range with the bounds of r (start included unless it
// says otherwise, end excluded unless it says otherwise, as the index reads them).
func lqTime(r *ql.TimeRange) string {
	inclStart, inclEnd := true, false
	if r.StartIncl != nil {
		inclStart = *r.StartIncl
	}
	if r.EndIncl != nil {
		inclEnd = *r.EndIncl
	}
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	start, end := r.Start, r.End
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
