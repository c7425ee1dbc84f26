package oplog

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// The values of level, kind and status in the query language are the
// domain's: a query takes the spellings oplog parses (level:Warning,
// level:exception, kind:operation, status:ok), in any case, and "any" or
// "all" (kind) or "" for every record, as their filters do; another value
// is an error that lists the valid ones, where a term that matches nothing
// would silently find nothing. A prefix, wildcard or regular expression on
// them ignores case (ql.Folds) and must match one of their values.

// fixedField is a field of the language with a fixed set of values.
type fixedField struct {
	// parse spells a value as it is stored ("" for any), or fails with
	// the error listing the values.
	parse  func(v string) (string, error)
	values []string // as stored
}

var fixedFields = map[string]fixedField{
	"level": {
		parse:  func(v string) (string, error) { l, err := ParseLevel(v); return l.String(), err },
		values: valueNames(func(i int) string { return Level(i).String() }),
	},
	"kind": {
		parse:  func(v string) (string, error) { k, err := ParseKind(v); return k.String(), err },
		values: valueNames(func(i int) string { return Kind(i).String() }),
	},
	"status": {
		parse:  func(v string) (string, error) { s, err := ParseStatus(v); return s.String(), err },
		values: valueNames(func(i int) string { return Status(i).String() }),
	},
}

// valueNames returns name(1), name(2)... up to the first empty one.
func valueNames(name func(i int) string) []string {
	var vs []string
	for i := 1; i < 256 && name(i) != ""; i++ {
		vs = append(vs, name(i))
	}
	return vs
}

// ParseQuery parses query string s (package query; surrounding spaces
// ignored, "" matches everything; words and phrases of only stop words left
// out, and a query of nothing else an error naming them) and checks the
// values of level, kind and status: each word or phrase is spelled as stored (level:Warning is
// level:warn), a value meaning any becomes ql.All, and a value these
// fields do not have is an error pointing at it. Every error is EINVALID,
// its message the language's (with the character and a caret where it
// points); the *ql.Error is in its chain.
func ParseQuery(s string) (ql.Node, error) {
	n, err := ql.Parse(s)
	if err == nil {
		n, err = ql.Map(n, func(leaf ql.Node) (ql.Node, error) { return checkValue(strings.TrimSpace(s), leaf) })
	}
	var qe *ql.Error
	if errors.As(err, &qe) {
		return nil, &Error{Code: EINVALID, Message: qe.Error(), Err: qe}
	}
	return n, err
}

// checkValue checks and spells a leaf's value on a field with a fixed set
// of values; other leaves as they are. A leaf of a type it does not know
// is refused (EINVALID), not passed unchecked.
func checkValue(s string, leaf ql.Node) (ql.Node, error) {
	switch leaf.(type) {
	case *ql.Term, *ql.Phrase, *ql.Prefix, *ql.Wildcard, *ql.Regexp, *ql.NumberRange, *ql.TimeRange:
	default: // a new leaf: refused until its values are checked here
		return nil, unknownLeaf(leaf)
	}
	field, _ := ql.Field(leaf)
	if field == ql.TemplateField {
		return checkTemplate(s, leaf)
	}
	f, ok := fixedFields[field]
	if !ok {
		return leaf, nil
	}
	var pattern string // a regular expression matching whole values
	var at ql.Pos
	switch n := leaf.(type) {
	case *ql.Term:
		if n.Fuzzy != 0 {
			return leaf, nil // as written
		}
		return f.spell(s, n.Pos, n.Text, func(v string) ql.Node { return &ql.Term{Field: field, Text: v, Pos: n.Pos} })
	case *ql.Phrase: // one value, spaces and all
		return f.spell(s, n.Pos, n.Text, func(v string) ql.Node { return &ql.Phrase{Field: field, Text: v, Pos: n.Pos} })
	case *ql.Prefix:
		pattern, at = regexp.QuoteMeta(strings.ToLower(n.Prefix))+".*", n.Pos
	case *ql.Wildcard:
		pattern, at = ql.WildcardRegexp(strings.ToLower(n.Pattern)), n.Pos
	case *ql.Regexp:
		pattern, at = "(?i)"+n.Pattern, n.Pos
	case *ql.NumberRange:
		return nil, f.bad(s, field, n.Pos)
	case *ql.TimeRange:
		return nil, f.bad(s, field, n.Pos)
	default:
		return nil, unknownLeaf(leaf)
	}
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return nil, ql.BadValue(s, at.At, err.Error())
	}
	for _, v := range f.values {
		if re.MatchString(v) {
			return leaf, nil
		}
	}
	return nil, f.bad(s, field, at)
}

// spell returns the leaf mk builds for v spelled as stored, ql.All for
// any, or a bad value error.
func (f fixedField) spell(s string, at ql.Pos, v string, mk func(v string) ql.Node) (ql.Node, error) {
	canon, err := f.parse(v)
	switch {
	case err != nil:
		return nil, ql.BadValue(s, at.At, ErrorMessage(err))
	case canon == "":
		return &ql.All{}, nil
	}
	return mk(canon), nil
}

// bad is the error of a value that matches none of field's: oplog's
// parse error for the value as written, or the list of values.
func (f fixedField) bad(s, field string, at ql.Pos) error {
	if _, err := f.parse(at.Raw); err != nil {
		return ql.BadValue(s, at.At, ErrorMessage(err))
	}
	return ql.BadValue(s, at.At, fmt.Sprintf("%s is one of %s", field, strings.Join(f.values, ", ")))
}

// checkTemplate checks a leaf on the template field: a word or phrase is
// a TemplateID (any case; spelled lower-case), a prefix a start of one, a
// lone * any template; other wildcards, regular expressions and ranges
// are refused (the index holds a template's first digits: a pattern that
// does not start with them would read every record).
func checkTemplate(s string, leaf ql.Node) (ql.Node, error) {
	bad := func(at ql.Pos) error {
		return ql.BadValue(s, at.At, fmt.Sprintf("%s takes a template ID, %d hex digits (%s:3f2a9c1b7d0e), or the start of one (%s:3f2a*), not %q",
			ql.TemplateField, TemplateIDLen, ql.TemplateField, ql.TemplateField, at.Raw))
	}
	switch n := leaf.(type) {
	case *ql.Term:
		if v := strings.ToLower(n.Text); n.Fuzzy == 0 && IsTemplateID(v) {
			return &ql.Term{Field: n.Field, Text: v, Pos: n.Pos}, nil
		}
		return nil, bad(n.Pos)
	case *ql.Phrase:
		if v := strings.ToLower(n.Text); IsTemplateID(v) {
			return &ql.Term{Field: n.Field, Text: v, Pos: n.Pos}, nil
		}
		return nil, bad(n.Pos)
	case *ql.Prefix:
		v := strings.ToLower(n.Prefix)
		if len(v) <= TemplateIDLen && IsTemplateID(v+strings.Repeat("0", TemplateIDLen-len(v))) {
			return &ql.Prefix{Field: n.Field, Prefix: v, Pos: n.Pos}, nil
		}
		return nil, bad(n.Pos)
	case *ql.Wildcard:
		if strings.Trim(n.Pattern, "*") == "" {
			return &ql.Prefix{Field: n.Field, Prefix: "", Pos: n.Pos}, nil
		}
		return nil, bad(n.Pos)
	case *ql.Regexp:
		return nil, bad(n.Pos)
	case *ql.NumberRange:
		return nil, bad(n.Pos)
	case *ql.TimeRange:
		return nil, bad(n.Pos)
	}
	return nil, unknownLeaf(leaf)
}

// unknownLeaf refuses a leaf no check here knows (a node type added to
// package query without its case here): its value would go unchecked.
func unknownLeaf(leaf ql.Node) error {
	return Errorf(EINVALID, "query: %T is a node this log cannot check", leaf)
}

// Node returns q's query tree with q's filters ANDed to it: Tree (the
// query string as Resolve parsed and checked it; when nil, Query parsed
// here with ParseQuery, whose errors it returns), then a leaf or an Or of
// leaves for each filter but the time range (Since and Until, which every
// target reads apart): levels from MinLevel, kind (line or marker with
// WithMarkers), name, source, tool, status, replayOf, and the runs (None
// for an empty Runs). Keyword values are Phrases spelled as stored; IDs
// and runs in decimal. A query and filters of nothing is All.
//
// The filters are read here, when a target compiles q, not in Resolve:
// Log.Search reads a game's sources as the game first (Log.SetGames).
func (q *SearchQuery) Node() (ql.Node, error) {
	var conj []ql.Node
	switch {
	case q.Tree != nil:
		conj = append(conj, q.Tree)
	case strings.TrimSpace(q.Query) != "":
		n, err := ParseQuery(q.Query)
		if err != nil {
			return nil, err
		}
		conj = append(conj, n)
	}
	conj = append(conj, q.filterNodes()...)
	switch len(conj) {
	case 0:
		return &ql.All{}, nil
	case 1:
		return conj[0], nil
	}
	return &ql.And{Nodes: conj}, nil
}

// filterNodes returns q's filters but the time range as leaves (see Node).
func (q *SearchQuery) filterNodes() []ql.Node {
	value := func(field, v string) ql.Node { return &ql.Phrase{Field: field, Text: v} }
	var ns []ql.Node
	if q.MinLevel > LevelDebug {
		levels := &ql.Or{}
		for l := q.MinLevel; l <= LevelFatal; l++ {
			levels.Nodes = append(levels.Nodes, value("level", l.String()))
		}
		ns = append(ns, levels)
	}
	kind := q.Kind
	if q.WithMarkers && kind == KindLine {
		kind = 0
		ns = append(ns, &ql.Or{Nodes: []ql.Node{value("kind", KindLine.String()), value("kind", KindMarker.String())}})
	}
	var replayOf string
	if q.ReplayOf != 0 {
		replayOf = strconv.FormatUint(q.ReplayOf, 10)
	}
	for _, kv := range [][2]string{{"name", q.Name}, {"source", q.Source}, {"kind", kind.String()}, {"tool", q.Tool},
		{"status", q.Status.String()}, {"replayOf", replayOf}} {
		if kv[1] != "" {
			ns = append(ns, value(kv[0], kv[1]))
		}
	}
	if q.Runs != nil {
		if len(q.Runs) == 0 {
			return append(ns, &ql.None{})
		}
		runs := &ql.Or{}
		for src, run := range q.Runs {
			runs.Nodes = append(runs.Nodes, &ql.And{Nodes: []ql.Node{value("source", src), value("run", strconv.FormatUint(run, 10))}})
		}
		ns = append(ns, runs)
	}
	return ns
}

// HighlightWords returns the words a fragment marks for tree (see
// Fragment), in the order the tree names them, each once: the words of
// the terms and phrases on text and stack (or on both, without a field),
// lower-cased as Words splits them, a bare word with its inflections
// (ql.Inflections), as it matches them; the pattern of a prefix (crash*)
// or wildcard, lower-cased, but one of only * and ?. Nothing under a Not
// (an excluded word is in no hit; under two, a word is wanted again), nor
// of other fields, regular expressions or ranges. Local and studio search mark their hits with it.
func HighlightWords(tree ql.Node) []string {
	var words []string
	add := func(w string) {
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	var walk func(n ql.Node, negated bool)
	walk = func(n ql.Node, negated bool) {
		switch n := n.(type) {
		case *ql.And:
			for _, sub := range n.Nodes {
				walk(sub, negated)
			}
			return
		case *ql.Or:
			for _, sub := range n.Nodes {
				walk(sub, negated)
			}
			return
		case *ql.Not:
			walk(n.Node, !negated)
			return
		}
		if field, ok := ql.Field(n); negated || !ok || field != "" && !slices.Contains(ql.TextFields, field) {
			return // All, None; a leaf excluded or of another field
		}
		for _, w := range leafWords(n) {
			add(w)
		}
	}
	walk(tree, false)
	return words
}

// leafWords are the words HighlightWords takes of a leaf on text or stack.
func leafWords(n ql.Node) []string {
	var text string
	switch n := n.(type) {
	case *ql.Prefix:
		if p := strings.ToLower(n.Prefix + "*"); strings.Trim(p, "*?") != "" {
			return []string{p}
		}
		return nil
	case *ql.Wildcard:
		if p := strings.ToLower(n.Pattern); strings.Trim(p, "*?") != "" {
			return []string{p}
		}
		return nil
	case *ql.Term:
		if ws := ql.Words(n.Text); n.Fuzzy == 0 && len(ws) == 1 {
			return ql.Inflections(ws[0].Term)
		}
		text = n.Text
	case *ql.Phrase:
		text = n.Text
	default:
		return nil
	}
	var out []string
	for _, w := range ql.Words(text) {
		out = append(out, w.Term)
	}
	return out
}
