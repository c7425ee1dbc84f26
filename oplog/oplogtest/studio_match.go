package oplogtest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// The matcher: a query tree (oplog/query) evaluated on a row, one case per
// node type, with what the local index (search/eval.go) and LogsQL
// (studio/logsql.go) agree a node means:
//
//   - text and stack are searched by their words (ql.Words: lower-cased,
//     stop words out, positions counting them); a bare word matches its
//     inflections (ql.Inflections); a phrase, or a term the language
//     splits into several words, wants them one after another, a stop
//     word's place taking any one word; a fuzzy term wants a word within
//     its edits (a transposition one edit) of one of its words;
//   - a prefix, wildcard or regular expression tests whole words (text,
//     stack) or whole values (keyword fields), regardless of case where
//     ql.Folds says so;
//   - keyword fields are the row's values: exact, absent matches nothing;
//     replayOf is not forwarded, so matches nothing;
//   - a number range matches nothing (no field holds numbers); a time
//     range tests the row's time, start included and end excluded unless
//     it says otherwise.
//
// refuse says, as Client's translation does, what LogsQL cannot say.

// pred reports whether a row matches.
type pred func(r *studioRow) bool

func never(*studioRow) bool { return false }

// compile compiles n; one case per node type, the leaves in leaf. A node
// of no known type is EINTERNAL, never a silent match.
func compile(n ql.Node) (pred, error) {
	switch n := n.(type) {
	case *ql.And:
		ps, err := compileAll(n.Nodes)
		return func(r *studioRow) bool {
			return !slices.ContainsFunc(ps, func(p pred) bool { return !p(r) })
		}, err
	case *ql.Or:
		ps, err := compileAll(n.Nodes)
		return func(r *studioRow) bool {
			return slices.ContainsFunc(ps, func(p pred) bool { return p(r) })
		}, err
	case *ql.Not:
		p, err := compile(n.Node)
		return func(r *studioRow) bool { return !p(r) }, err
	case *ql.All:
		return func(*studioRow) bool { return true }, nil
	case *ql.None:
		return never, nil
	case *ql.Term, *ql.Phrase, *ql.Prefix, *ql.Wildcard, *ql.Regexp, *ql.NumberRange, *ql.TimeRange:
		if field, _ := ql.Field(n); field != "" {
			return leaf(n, field)
		}
		ps, err := compileLeaves(n, ql.TextFields)
		return func(r *studioRow) bool {
			return slices.ContainsFunc(ps, func(p pred) bool { return p(r) })
		}, err
	}
	return nil, oplog.Errorf(oplog.EINTERNAL, "oplogtest: the studio matcher has no case for %T", n)
}

func compileAll(ns []ql.Node) ([]pred, error) {
	ps := make([]pred, len(ns))
	for i, sub := range ns {
		p, err := compile(sub)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

func compileLeaves(n ql.Node, fields []string) ([]pred, error) {
	ps := make([]pred, len(fields))
	for i, f := range fields {
		p, err := leaf(n, f)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

// leaf compiles leaf n on field (not "").
func leaf(n ql.Node, field string) (pred, error) {
	switch n := n.(type) {
	case *ql.NumberRange:
		return never, nil
	case *ql.TimeRange:
		if field != ql.TimeField {
			return never, nil
		}
		return func(r *studioRow) bool { return inRange(n, r) }, nil
	}
	switch field {
	case "text", "stack":
		f := slices.Index(ql.TextFields, field)
		m, err := wordMatcher(n)
		return func(r *studioRow) bool { return m(r.words[f]) }, err
	case "name", "level", "source", "kind", "tool", "status", "run", "replayOf", ql.TemplateField:
		m, err := valueMatcher(n, field)
		return func(r *studioRow) bool { v := r.keyword(field); return v != "" && m(v) }, err
	}
	return never, nil // no row has such a field
}

// inRange reports whether r's time is in n's range.
func inRange(n *ql.TimeRange, r *studioRow) bool {
	t := r.rec.Time
	inclStart, inclEnd := n.StartIncl == nil || *n.StartIncl, n.EndIncl != nil && *n.EndIncl
	if !n.Start.IsZero() && (t.Before(n.Start) || !inclStart && t.Equal(n.Start)) {
		return false
	}
	return n.End.IsZero() || t.Before(n.End) || inclEnd && t.Equal(n.End)
}

// wordMatcher is what leaf n tests of the words of a text field.
func wordMatcher(n ql.Node) (func([]ql.Word) bool, error) {
	anyWord := func(ok func(string) bool) func([]ql.Word) bool {
		return func(ws []ql.Word) bool { return slices.ContainsFunc(ws, func(w ql.Word) bool { return ok(w.Term) }) }
	}
	switch n := n.(type) {
	case *ql.Term:
		want := ql.Words(n.Text)
		if n.Fuzzy != 0 {
			return anyWord(func(t string) bool {
				return slices.ContainsFunc(want, func(w ql.Word) bool { return ql.EditDistance(w.Term, t) <= n.Fuzzy })
			}), nil
		}
		if len(want) == 1 {
			forms := ql.Inflections(want[0].Term)
			return anyWord(func(t string) bool { return slices.Contains(forms, t) }), nil
		}
		return func(ws []ql.Word) bool { return hasPhrase(ws, want) }, nil
	case *ql.Phrase:
		want := ql.Words(n.Text)
		return func(ws []ql.Word) bool { return hasPhrase(ws, want) }, nil
	case *ql.Prefix:
		p := strings.ToLower(n.Prefix)
		return anyWord(func(t string) bool { return strings.HasPrefix(t, p) }), nil
	case *ql.Wildcard:
		re, err := wholeRegexp(ql.WildcardRegexp(strings.ToLower(n.Pattern)), false)
		return anyWord(func(t string) bool { return re != nil && re.MatchString(t) }), err
	case *ql.Regexp:
		re, err := wholeRegexp(n.Pattern, true)
		return anyWord(func(t string) bool { return re != nil && re.MatchString(t) }), err
	}
	return nil, oplog.Errorf(oplog.EINTERNAL, "oplogtest: the studio matcher has no word case for %T", n)
}

// valueMatcher is what leaf n tests of a keyword field's value.
func valueMatcher(n ql.Node, field string) (func(string) bool, error) {
	folds := ql.Folds(field)
	fold := func(s string) string {
		if folds {
			return strings.ToLower(s)
		}
		return s
	}
	switch n := n.(type) {
	case *ql.Term:
		if n.Fuzzy != 0 {
			return func(v string) bool { return ql.EditDistance(n.Text, v) <= n.Fuzzy }, nil
		}
		return func(v string) bool { return v == n.Text }, nil
	case *ql.Phrase:
		return func(v string) bool { return v == n.Text }, nil
	case *ql.Prefix:
		p := fold(n.Prefix)
		return func(v string) bool { return strings.HasPrefix(v, p) }, nil
	case *ql.Wildcard:
		re, err := wholeRegexp(ql.WildcardRegexp(fold(n.Pattern)), folds)
		return func(v string) bool { return re != nil && re.MatchString(v) }, err
	case *ql.Regexp:
		re, err := wholeRegexp(n.Pattern, folds)
		return func(v string) bool { return re != nil && re.MatchString(v) }, err
	}
	return nil, oplog.Errorf(oplog.EINTERNAL, "oplogtest: the studio matcher has no value case for %T", n)
}

// wholeRegexp compiles re to match whole words or values, regardless of
// case when fold says so; EINVALID when it does not compile.
func wholeRegexp(re string, fold bool) (*regexp.Regexp, error) {
	flags := ""
	if fold {
		flags = "(?i)"
	}
	x, err := regexp.Compile("^(?:" + flags + strings.TrimPrefix(re, "^") + ")$")
	if err != nil {
		return nil, oplog.Errorf(oplog.EINVALID, "query: %v", err)
	}
	return x, nil
}

// hasPhrase reports whether ws holds want's words one after another, at
// the distances their positions say (a stop word's place holds any word);
// no word (only stop words) is in no text.
func hasPhrase(ws, want []ql.Word) bool {
	if len(want) == 0 {
		return false
	}
	at := make(map[int]string, len(ws))
	for _, w := range ws {
		at[w.Position] = w.Term
	}
	for _, w := range ws {
		if w.Term != want[0].Term {
			continue
		}
		base := w.Position - want[0].Position
		if !slices.ContainsFunc(want[1:], func(x ql.Word) bool { return at[base+x.Position] != x.Term }) {
			return true
		}
	}
	return false
}

// lq is what a tree is to LogsQL: some filter, every row or none.
type lq int

const (
	lqSome lq = iota
	lqAll
	lqNone
)

// refuse returns the EINVALID error studio.Client answers tree with, nil
// when LogsQL can say it: an operator it has no equivalent of, or a tree
// that folds to nothing (only stop words).
func refuse(tree ql.Node) error {
	e, err := toLQ(tree)
	if err != nil {
		return oplog.Errorf(oplog.EINVALID, "query: cannot search the studio with this query: %v", err)
	}
	if e == lqNone {
		return oplog.Errorf(oplog.EINVALID, "query: cannot search the studio with this query: it matches nothing here "+
			"(only stop words, or a number range on a keyword field)")
	}
	return nil
}

// toLQ folds n as Client's toLogsQL translates it.
func toLQ(n ql.Node) (lq, error) {
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
		return lqJoin(n.Nodes, false)
	case *ql.Not:
		return lqAndNot(nil, []ql.Node{n.Node})
	case *ql.All:
		return lqAll, nil
	case *ql.None:
		return lqNone, nil
	}
	if field, _ := ql.Field(n); field != "" {
		return lqLeaf(n, field)
	}
	msg, err := lqLeaf(n, "text")
	if err != nil {
		return lqSome, err
	}
	stack, err := lqLeaf(n, "stack")
	return lqCombine([]lq{msg, stack}, false), err
}

func lqAndNot(must, not []ql.Node) (lq, error) {
	e, err := lqJoin(must, true)
	if err != nil || len(not) == 0 {
		return e, err
	}
	ne, err := lqJoin(not, false)
	switch {
	case err != nil:
		return lqSome, err
	case ne == lqNone || e == lqNone:
		return e, nil
	case ne == lqAll:
		return lqNone, nil
	}
	return lqSome, nil
}

func lqJoin(ns []ql.Node, and bool) (lq, error) {
	es := make([]lq, 0, len(ns))
	for _, sub := range ns {
		e, err := toLQ(sub)
		if err != nil {
			return lqSome, err
		}
		es = append(es, e)
	}
	return lqCombine(es, and), nil
}

// lqCombine folds the filters of an AND or an OR.
func lqCombine(es []lq, and bool) lq {
	some := false
	for _, e := range es {
		switch {
		case e == lqNone && and:
			return lqNone
		case e == lqAll && !and:
			return lqAll
		case e == lqSome:
			some = true
		}
	}
	switch {
	case some:
		return lqSome
	case and:
		return lqAll
	}
	return lqNone
}

// studioFields are the fields the studio schema has.
var studioFields = []string{"text", "stack", "name", "level", "source", "kind", "tool", "status", "run", ql.TemplateField}

// lqLeaf folds leaf n on field, or says why LogsQL cannot say it.
func lqLeaf(n ql.Node, field string) (lq, error) {
	switch {
	case field == ql.TimeField:
		if r, ok := n.(*ql.TimeRange); ok {
			if r.Start.IsZero() && r.End.IsZero() {
				return lqAll, nil
			}
			return lqSome, nil
		}
		return lqSome, fmt.Errorf(`time takes a date range, such as time:>="2026-05-01T12:00:00Z"`)
	case field == "replayOf":
		return lqSome, fmt.Errorf("replayOf is not forwarded to the studio")
	case !slices.Contains(studioFields, field):
		return lqSome, fmt.Errorf("unknown field %q", field)
	}
	text := field == "text" || field == "stack"
	switch n := n.(type) {
	case *ql.Term:
		if n.Fuzzy != 0 {
			return lqSome, fmt.Errorf("fuzzy terms (~) have no LogsQL equivalent")
		}
		if text && len(ql.Words(n.Text)) == 0 {
			return lqNone, nil
		}
	case *ql.Phrase:
		if text && len(ql.Words(n.Text)) == 0 {
			return lqNone, nil
		}
	case *ql.Prefix:
		if text {
			return lqSome, lqWildcard(strings.ToLower(n.Prefix) + "*")
		}
	case *ql.Wildcard:
		if text {
			return lqSome, lqWildcard(strings.ToLower(n.Pattern))
		}
	case *ql.Regexp:
		if text {
			return lqSome, fmt.Errorf("a regular expression over words (/%s/) has no LogsQL equivalent; use a wildcard", n.Pattern)
		}
	case *ql.NumberRange, *ql.TimeRange:
		if text {
			return lqSome, fmt.Errorf("ranges are for time only")
		}
		return lqSome, fmt.Errorf("%s: ranges are for time only", field)
	}
	return lqSome, nil
}

// lqWildcard says why a lower-cased wildcard on words has no LogsQL
// equivalent: a character that is in no word; nil when it has one.
func lqWildcard(w string) error {
	for _, r := range w {
		if r != '*' && r != '?' && !ql.IsWordRune(r) {
			return fmt.Errorf("wildcard %q: %q is not a word character, so it matches no word", w, r)
		}
	}
	return nil
}
