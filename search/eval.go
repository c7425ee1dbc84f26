package search

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
)

// Records above the watermark are not in any index: a search evaluates its
// compiled query on each of them, as read from the store. compileEval turns
// the bleve query tree into a predicate with bleve's semantics, leaf by
// leaf: the record's keyword values spelled as document indexes them, its
// text and stack analysed as the mapping analyses them, patterns and fuzzy
// words run through the same vellum automata scorch runs over its term
// dictionaries, and bleve's rules for clauses that match nothing (a
// MatchNone searcher is dropped from a boolean query, and from a
// conjunction or disjunction of a query string). TestSearch_LagEqualsIndexed
// holds the two to the same answers.

// pred reports whether a record matches.
type pred func(v *recView) bool

// recView is a record as predicates read it: its text and stack analysed
// at most once, and only when a leaf needs their words.
type recView struct {
	r     *oplog.Record
	an    analysis.Analyzer
	words [2][]string
	done  [2]bool
	odd   [2]int8 // 0: not known yet, 1: the field holds a foldsToASCII rune, -1: not
}

// field returns the raw text of a text field (0: text, 1: stack).
func (v *recView) field(f int) string {
	if f == 0 {
		return v.r.Text
	}
	return v.r.Stack
}

// terms returns the analysed words of a text field.
func (v *recView) terms(f int) []string {
	if !v.done[f] {
		v.done[f] = true
		toks := v.an.Analyze([]byte(v.field(f)))
		ws := make([]string, len(toks))
		for i, t := range toks {
			ws[i] = string(t.Term)
		}
		v.words[f] = ws
	}
	return v.words[f]
}

// foldsToASCII are the runes whose lower case is ASCII (İ, K) or that a
// case-insensitive regular expression matches to an ASCII letter in a
// lower-cased word (ſ): a word holding one can match an ASCII literal
// that its text does not hold.
var foldsToASCII = []string{"\u0130", "\u212A", "\u017F"}

// mayHold reports whether text field f can hold a word containing lit
// (lower-case ASCII): false only when its text lacks lit in any ASCII case
// and holds none of foldsToASCII, which spares analysing most records.
func (v *recView) mayHold(f int, lit string) bool {
	s := v.field(f)
	if lit == "" || v.done[f] || s == "" {
		return s != ""
	}
	if containsFoldASCII(s, lit) {
		return true
	}
	if v.odd[f] == 0 {
		v.odd[f] = -1
		if slices.ContainsFunc(foldsToASCII, func(r string) bool { return strings.Contains(s, r) }) {
			v.odd[f] = 1
		}
	}
	return v.odd[f] > 0
}

// keywordValue returns a keyword field's value as document indexes it
// ("": the document has no such field).
func keywordValue(r *oplog.Record, field string) string {
	switch field {
	case "level":
		return r.Level.String()
	case "run":
		if r.Run == 0 {
			return ""
		}
		return docID(r.Run)
	}
	for _, f := range keywords(r.Name, r.Source, r.Kind, r.Tool, r.Status, r.ReplayOf) {
		if f.field == field {
			return f.v
		}
	}
	return ""
}

// leafPred is the predicate of a leaf testing the terms of field.
func leafPred(field string, m termMatcher) pred {
	switch field {
	case "text", "stack":
		f := slices.Index(textFields, field)
		return func(v *recView) bool {
			return v.mayHold(f, m.lit) && slices.ContainsFunc(v.terms(f), m.match)
		}
	}
	if !slices.Contains(keywordFields, field) {
		return func(*recView) bool { return false } // no such field in any document
	}
	return func(v *recView) bool {
		kv := keywordValue(v.r, field)
		return kv != "" && m.match(kv)
	}
}

// evaluator compiles queries into predicates (and chunk predicates, see
// terms_pred.go), building each leaf's matcher once for both.
type evaluator struct {
	m    mapping.IndexMapping
	an   analysis.Analyzer // of text and stack, for phrases
	memo map[query.Query]leafMemo
}

// leafMemo is what leafMatcher or matchTerms built for a leaf.
type leafMemo struct {
	toks  analysis.TokenStream
	ms    []termMatcher
	field string
	err   error
}

func (a *analyzers) evaluator(m mapping.IndexMapping) *evaluator {
	return &evaluator{m: m, an: a.text, memo: map[query.Query]leafMemo{}}
}

// compileEval returns c's predicate, the filters' time range included.
func (ev *evaluator) compileEval(c *compiled) (pred, error) {
	p, none, err := ev.node(c.q)
	if err != nil {
		return nil, err
	}
	if none {
		return func(*recView) bool { return false }, nil
	}
	if c.rng.none() {
		return p, nil
	}
	return func(v *recView) bool { return c.rng.in(v.r.Time.UnixNano()) && p(v) }, nil
}

// node returns q's predicate, and whether bleve's searcher for q is a
// MatchNone searcher (which enclosing boolean queries drop).
func (ev *evaluator) node(q query.Query) (pred, bool, error) {
	switch q := q.(type) {
	case *query.BooleanQuery:
		return ev.boolean(q)
	case *query.ConjunctionQuery:
		ps, err := ev.nodes(q.Conjuncts, stringMode(q))
		if err != nil || len(ps) == 0 {
			return nil, true, err
		}
		return func(v *recView) bool {
			for _, p := range ps {
				if !p(v) {
					return false
				}
			}
			return true
		}, false, nil
	case *query.DisjunctionQuery:
		ps, err := ev.nodes(q.Disjuncts, stringMode(q))
		if err != nil || len(ps) == 0 {
			return nil, true, err
		}
		return atLeast(ps, max(int(q.Min), 1)), false, nil
	case *query.MatchAllQuery:
		return func(*recView) bool { return true }, false, nil
	case *query.MatchNoneQuery:
		return nil, true, nil
	case *query.MatchQuery:
		return ev.match(q)
	case *phraseQuery:
		return ev.phrase(q), false, nil
	case *timeRangeQuery:
		return func(v *recView) bool { t := v.r.Time.UnixNano(); return t != 0 && q.match(t) }, false, nil
	}
	p, err := ev.leaf(q)
	return p, false, err
}

// nodes compiles qs; a query string's conjunctions and disjunctions leave
// out the clauses that match nothing (skip), others keep them as never
// matching.
func (ev *evaluator) nodes(qs []query.Query, skip bool) ([]pred, error) {
	var ps []pred
	for _, sub := range qs {
		p, none, err := ev.node(sub)
		if err != nil {
			return nil, err
		}
		if none {
			if skip {
				continue
			}
			p = func(*recView) bool { return false }
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// stringMode reads the unexported mark bleve's query string parser puts on
// the conjunctions and disjunctions it builds.
func stringMode(q query.Query) bool {
	f := reflect.ValueOf(q).Elem().FieldByName("queryStringMode")
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// atLeast matches when at least min of ps do: records (pred) and the term
// sets of chunks (cpred, terms_pred.go) alike.
func atLeast[V any, P ~func(V) bool](ps []P, min int) P {
	return func(v V) bool {
		n := 0
		for _, p := range ps {
			if p(v) {
				if n++; n >= min {
					return true
				}
			}
		}
		return false
	}
}

// boolean follows bleve's BooleanQuery.Searcher and BooleanSearcher: parts
// whose searcher is MatchNone are left out; without must, should is
// required; with must, should (min 0) only scores.
func (ev *evaluator) boolean(q *query.BooleanQuery) (pred, bool, error) {
	if q.Filter != nil {
		return nil, false, oplog.Errorf(oplog.EINVALID, "query: unsupported boolean filter")
	}
	part := func(sub query.Query) (pred, error) {
		if sub == nil {
			return nil, nil
		}
		p, none, err := ev.node(sub)
		if none {
			return nil, err
		}
		return p, err
	}
	must, err := part(q.Must)
	if err != nil {
		return nil, false, err
	}
	should, err := part(q.Should)
	if err != nil {
		return nil, false, err
	}
	not, err := part(q.MustNot)
	if err != nil {
		return nil, false, err
	}
	if must == nil && should == nil && not == nil {
		return nil, true, nil
	}
	if dq, ok := q.Should.(*query.DisjunctionQuery); must != nil && (!ok || dq.Min <= 0) {
		should = nil // bleve's should searcher has min 0 here: it only scores
	}
	return func(v *recView) bool {
		if must != nil && !must(v) || should != nil && !should(v) {
			return false
		}
		return not == nil || !not(v)
	}, false, nil
}

// match analyses q's text with its field's analyzer, as MatchQuery does:
// one term (or fuzzy term) per token, any of them (or all: operator and);
// no token is a MatchNone searcher.
func (ev *evaluator) match(q *query.MatchQuery) (pred, bool, error) {
	toks, ms, err := ev.matchTerms(q)
	if err != nil || len(toks) == 0 {
		return nil, err == nil, err
	}
	ps := make([]pred, len(ms))
	for i, m := range ms {
		ps[i] = leafPred(q.FieldVal, m)
	}
	if q.Operator == query.MatchQueryOperatorAnd {
		return func(v *recView) bool {
			for _, p := range ps {
				if !p(v) {
					return false
				}
			}
			return true
		}, false, nil
	}
	return atLeast(ps, 1), false, nil
}

// matchTerms analyses q's text with its field's analyzer, as MatchQuery
// does, and returns its tokens and a matcher for each.
func (ev *evaluator) matchTerms(q *query.MatchQuery) (analysis.TokenStream, []termMatcher, error) {
	if l, ok := ev.memo[q]; ok {
		return l.toks, l.ms, l.err
	}
	toks, ms, err := ev.buildMatchTerms(q)
	ev.memo[q] = leafMemo{toks: toks, ms: ms, err: err} // (q is a pointer)
	return toks, ms, err
}

func (ev *evaluator) buildMatchTerms(q *query.MatchQuery) (analysis.TokenStream, []termMatcher, error) {
	name := q.Analyzer
	if name == "" {
		name = ev.m.AnalyzerNameForPath(q.FieldVal)
	}
	an := ev.m.AnalyzerNamed(name)
	if an == nil {
		return nil, nil, fmt.Errorf("no analyzer named '%s' registered", name)
	}
	toks := an.Analyze([]byte(q.Match))
	ms := make([]termMatcher, len(toks))
	for i, t := range toks {
		if q.Fuzziness == 0 {
			ms[i] = exactMatcher(string(t.Term))
			continue
		}
		m, err := fuzzyMatcher(string(t.Term), q.Fuzziness, q.Prefix)
		if err != nil {
			return nil, nil, err
		}
		ms[i] = m
	}
	return toks, ms, nil
}

// phrase checks q's words in order on the record (as phraseQuery does on
// the records its term searchers find).
func (ev *evaluator) phrase(q *phraseQuery) pred {
	f := slices.Index(textFields, q.field)
	if f < 0 {
		return func(*recView) bool { return false }
	}
	return func(v *recView) bool {
		for _, w := range q.words {
			if !v.mayHold(f, asciiLit(w.term)) {
				return false
			}
		}
		return q.in(v.field(f))
	}
}

// leaf compiles a term-level leaf: term, fuzzy, prefix, wildcard, regular
// expression; numeric and date ranges match nothing (no field has numbers).
func (ev *evaluator) leaf(q query.Query) (pred, error) {
	m, field, err := ev.leafMatcher(q)
	if err != nil {
		return nil, err
	}
	if m.match == nil {
		return func(*recView) bool { return false }, nil
	}
	return leafPred(field, m), nil
}

// leafMatcher returns the matcher of a term-level leaf and its field; a
// range leaf has none (it matches nothing).
func (ev *evaluator) leafMatcher(q query.Query) (termMatcher, string, error) {
	if l, ok := ev.memo[q]; ok {
		return l.ms[0], l.field, l.err
	}
	m, field, err := leafMatcher(q)
	if reflect.ValueOf(q).Kind() == reflect.Pointer { // as every query is; another could not be a key
		ev.memo[q] = leafMemo{ms: []termMatcher{m}, field: field, err: err}
	}
	return m, field, err
}

func leafMatcher(q query.Query) (termMatcher, string, error) {
	var m termMatcher
	var err error
	var field string
	switch q := q.(type) {
	case *query.TermQuery:
		m, field = exactMatcher(q.Term), q.FieldVal
	case *query.FuzzyQuery:
		m, err = fuzzyMatcher(q.Term, q.Fuzziness, q.Prefix)
		field = q.FieldVal
	case *query.PrefixQuery:
		p := q.Prefix
		m, field = termMatcher{match: func(t string) bool { return strings.HasPrefix(t, p) }, lit: asciiLit(p), prefix: p}, q.FieldVal
	case *query.WildcardQuery:
		m, err = regexpMatcher(wildcardReplacer.Replace(q.Wildcard))
		field = q.FieldVal
	case *query.RegexpQuery:
		m, err = regexpMatcher(strings.TrimPrefix(q.Regexp, "^"))
		field = q.FieldVal
	case *query.NumericRangeQuery, *query.DateRangeQuery, *query.TermRangeQuery:
		if vq, ok := q.(query.ValidatableQuery); ok {
			if err := vq.Validate(); err != nil {
				return m, "", err
			}
		}
		return m, "", nil
	default:
		return m, "", oplog.Errorf(oplog.EINVALID, "query: unsupported query %T", q)
	}
	return m, field, err
}
