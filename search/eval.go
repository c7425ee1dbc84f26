package search

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/searcher"
	"github.com/blevesearch/vellum/levenshtein"
	vregexp "github.com/blevesearch/vellum/regexp"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Records above the watermark are not in any index: a search evaluates its
// query on each of them, as read from the store. The evaluator compiles the
// query tree into a predicate with the semantics of what bleve.go builds
// for bleve, leaf by leaf: the record's keyword values spelled as document
// indexes them, its text and stack analysed as the mapping analyses them,
// patterns and fuzzy words run through the same vellum automata scorch
// runs over its term dictionaries (matchers, below, which the term sets'
// compiler in terms_pred.go shares). A leaf that analysis leaves without a
// word (only stop words) matches nothing, as bleve's MatchNone searcher
// under the conjunctions, disjunctions and boolean queries bleve.go builds;
// the parser leaves such leaves out of the trees of query strings (see
// oplog/query's stop.go), so only trees built in code hold them.
// TestSearch_LagEqualsIndexed holds the two to the same answers.

// pred reports whether a record matches.
type pred func(v *recView) bool

func never(*recView) bool { return false }

// recView is a record as predicates read it: its text and stack analysed
// at most once, and only when a leaf needs their words.
type recView struct {
	r      *oplog.Record
	an     analysis.Analyzer
	words  [2][]string
	done   [2]bool
	odd    [2]int8 // 0: not known yet, 1: the field holds a foldsToASCII rune, -1: not
	tmpl   string  // the text's template ID, once tmplOK
	tmplOK bool
}

// keyword returns keyword field's value as document indexes it; the
// template, which costs a pass over the text, at most once.
func (v *recView) keyword(field string) string {
	if field != ql.TemplateField {
		return keywordValue(v.r, field)
	}
	if !v.tmplOK {
		v.tmpl, v.tmplOK = oplog.RecordTemplateID(v.r), true
	}
	return v.tmpl
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
	case ql.TemplateField:
		return oplog.RecordTemplateID(r)
	}
	for _, f := range keywords(r.Name, r.Source, r.Kind, r.Tool, r.Status, r.ReplayOf) {
		if f.field == field {
			return f.v
		}
	}
	return ""
}

// minPrefixLit is the shortest common prefix of a word's forms that
// termPred looks for in a text before the forms: a shorter one is in most
// texts.
const minPrefixLit = 3

// termPred is the predicate of a leaf testing the terms of field by m.
func termPred(field string, m termMatcher) pred {
	switch field {
	case "text", "stack":
		f := slices.Index(textFields, field)
		return func(v *recView) bool {
			if m.lits != nil { // a word's inflections: the text holds one of them
				// Each form starts with lit: a text without it is read once, not once a form.
				if len(m.lit) >= minPrefixLit && !v.mayHold(f, m.lit) {
					return false
				}
				return slices.ContainsFunc(m.lits, func(l string) bool { return v.mayHold(f, l) }) && slices.ContainsFunc(v.terms(f), m.match)
			}
			return v.mayHold(f, m.lit) && slices.ContainsFunc(v.terms(f), m.match)
		}
	}
	if !slices.Contains(keywordFields, field) {
		return func(*recView) bool { return false } // no such field in any document
	}
	return func(v *recView) bool {
		kv := v.keyword(field)
		return kv != "" && m.match(kv)
	}
}

// evaluator compiles query trees into predicates on records.
type evaluator struct{ *matchers }

func (a *analyzers) evaluator(m mapping.IndexMapping) *evaluator { return newEvaluator(m, a.text) }

// newEvaluator returns an evaluator for the mapping m, an the analyzer of
// text and stack.
func newEvaluator(m mapping.IndexMapping, an analysis.Analyzer) *evaluator {
	return &evaluator{newMatchers(m, an)}
}

// compileEval returns c's predicate, the filters' time range included.
func (ev *evaluator) compileEval(c *compiled) (pred, error) {
	p, err := ev.eval(c.tree)
	if err != nil || c.rng.none() {
		return p, err
	}
	return func(v *recView) bool { return c.rng.in(v.r.Time.UnixNano()) && p(v) }, nil
}

// eval compiles n; one case per node type, the leaves in leafPred.
func (ev *evaluator) eval(n ql.Node) (pred, error) {
	switch n := n.(type) {
	case *ql.And:
		var must, not []pred
		for _, sub := range n.Nodes {
			x, isNot := sub.(*ql.Not)
			if isNot {
				sub = x.Node
			}
			p, err := ev.eval(sub)
			if err != nil {
				return nil, err
			}
			if isNot {
				not = append(not, p)
			} else {
				must = append(must, p)
			}
		}
		return func(v *recView) bool {
			for _, p := range must {
				if !p(v) {
					return false
				}
			}
			for _, p := range not {
				if p(v) {
					return false
				}
			}
			return true
		}, nil
	case *ql.Or:
		ps, err := ev.evals(n.Nodes)
		if err != nil {
			return nil, err
		}
		return atLeast(ps, 1), nil
	case *ql.Not:
		return ev.eval(&ql.And{Nodes: []ql.Node{n}})
	case *ql.All:
		return func(*recView) bool { return true }, nil
	case *ql.None:
		return never, nil
	}
	field, _ := ql.Field(n)
	if field != "" {
		return ev.leafPred(n, field)
	}
	ps := make([]pred, 0, len(ql.TextFields))
	for _, f := range ql.TextFields {
		p, err := ev.leafPred(n, f)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return atLeast(ps, 1), nil
}

func (ev *evaluator) evals(ns []ql.Node) ([]pred, error) {
	ps := make([]pred, len(ns))
	for i, sub := range ns {
		p, err := ev.eval(sub)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

// leafPred compiles leaf n on field (not "").
func (ev *evaluator) leafPred(n ql.Node, field string) (pred, error) {
	l := ev.leaf(n, field)
	switch {
	case l.err != nil:
		return nil, l.err
	case l.time != nil:
		return func(v *recView) bool { t := v.r.Time.UnixNano(); return t != 0 && l.time.match(t) }, nil
	case l.phrase != nil:
		return ev.phrase(l.phrase), nil
	case len(l.ms) == 0:
		return never, nil
	case len(l.ms) == 1:
		return termPred(field, l.ms[0]), nil
	}
	ps := make([]pred, len(l.ms))
	for i, m := range l.ms {
		ps[i] = termPred(field, m)
	}
	return atLeast(ps, 1), nil
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

// phrase checks q's words in order on the record (as phraseQuery does on
// the records its term searchers find).
func (ev *evaluator) phrase(q *phraseQuery) pred {
	f := slices.Index(textFields, q.field)
	if f < 0 {
		return never
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

// matchers builds what each leaf of a tree tests, once for the evaluator
// and the term sets' compiler (terms_pred.go), as bleve.go's leaves test
// it.
type matchers struct {
	m    mapping.IndexMapping
	an   analysis.Analyzer // of text and stack, for phrases
	memo map[leafKey]leafMatch
}

func newMatchers(m mapping.IndexMapping, an analysis.Analyzer) *matchers {
	return &matchers{m: m, an: an, memo: map[leafKey]leafMatch{}}
}

// leafKey is a leaf of a tree on one field (a leaf on the default fields
// is one per text field).
type leafKey struct {
	n     ql.Node
	field string
}

// leafMatch is what a leaf tests: one of its terms' matchers matches a
// term of the field (none: nothing matches), or its phrase holds, or its
// time range.
type leafMatch struct {
	ms     []termMatcher
	phrase *phraseQuery
	time   *timeRangeQuery
	err    error
}

// leaf returns what n on field tests.
func (ms *matchers) leaf(n ql.Node, field string) leafMatch {
	k := leafKey{n, field}
	if l, ok := ms.memo[k]; ok {
		return l
	}
	l := ms.build(n, field)
	ms.memo[k] = l
	return l
}

// build is leaf, one case per leaf type, as bleveLeaf builds them.
func (ms *matchers) build(n ql.Node, field string) leafMatch {
	text := slices.Contains(textFields, field)
	var m termMatcher
	var err error
	switch n := n.(type) {
	case *ql.Term:
		if text && n.Fuzzy == 0 && phraseOfWord(ms.an, []byte(n.Text)) {
			return ms.phraseOf(field, n.Text)
		}
		if text && n.Fuzzy == 0 {
			if forms := inflections(ms.an, n.Text); forms != nil {
				return leafMatch{ms: []termMatcher{formsMatcher(forms)}}
			}
		}
		return ms.words(field, n.Text, n.Fuzzy)
	case *ql.Phrase:
		if text {
			return ms.phraseOf(field, n.Text)
		}
		m = exactMatcher(n.Text)
	case *ql.Prefix:
		p := foldCase(field, n.Prefix)
		m = termMatcher{match: func(t string) bool { return strings.HasPrefix(t, p) }, lit: asciiLit(p), prefix: p}
	case *ql.Wildcard:
		m, err = regexpMatcher(wildcardReplacer.Replace(foldCase(field, n.Pattern)))
	case *ql.Regexp:
		m, err = regexpMatcher(strings.TrimPrefix(foldRegexp(field, n.Pattern), "^"))
	case *ql.NumberRange:
		return leafMatch{} // no field holds numbers
	case *ql.TimeRange:
		if field == timeField {
			return leafMatch{time: newTimeRangeQuery(n)}
		}
		return leafMatch{}
	default:
		panic(fmt.Sprintf("BUG: search: no evaluation of %T", n))
	}
	if err != nil {
		return leafMatch{err: oplog.Errorf(oplog.EINVALID, "query: %v", err)}
	}
	return leafMatch{ms: []termMatcher{m}}
}

// phraseOf is a phrase on a text field: several words in order, one word
// (matched as its term when that tells it apart), or none.
func (ms *matchers) phraseOf(field, text string) leafMatch {
	q := newPhrase(field, text, ms.an)
	switch {
	case q == nil:
		return leafMatch{}
	case len(q.words) == 1 && q.words[0].full == "":
		return leafMatch{ms: []termMatcher{exactMatcher(q.words[0].term)}}
	}
	return leafMatch{phrase: q}
}

// words analyses text with field's analyzer, as MatchQuery does: one term
// (or fuzzy term) per token, any of which matches.
func (ms *matchers) words(field, text string, fuzzy int) leafMatch {
	name := ms.m.AnalyzerNameForPath(field)
	an := ms.m.AnalyzerNamed(name)
	if an == nil {
		return leafMatch{err: fmt.Errorf("no analyzer named '%s' registered", name)}
	}
	toks := an.Analyze([]byte(text))
	l := leafMatch{ms: make([]termMatcher, len(toks))}
	for i, t := range toks {
		m, err := fuzzyMatcher(string(t.Term), fuzzy, 0)
		if err != nil {
			return leafMatch{err: oplog.Errorf(oplog.EINVALID, "query: %v", err)}
		}
		l.ms[i] = m
	}
	return l
}

// The leaves' tests of one term of a field: exact, fuzzy, prefix, wildcard
// and regular expression, as scorch tests the terms of its dictionaries.

// containsFoldASCII reports whether s holds lit (lower-case ASCII) in any
// ASCII case.
func containsFoldASCII(s, lit string) bool {
	lo, up := lit[0], lit[0]
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	// Where each case of lit's first byte next occurs, from i on; each is
	// searched for again only once passed, so s is read about twice.
	nextLo, nextUp := -1, -1
	for i := 0; len(s)-i >= len(lit); {
		if nextLo < i {
			if nextLo = strings.IndexByte(s[i:], lo); nextLo >= 0 {
				nextLo += i
			} else {
				nextLo = len(s)
			}
		}
		if up != lo && nextUp < i {
			if nextUp = strings.IndexByte(s[i:], up); nextUp >= 0 {
				nextUp += i
			} else {
				nextUp = len(s)
			}
		}
		j := nextLo
		if up != lo {
			j = min(j, nextUp)
		}
		if len(s)-j < len(lit) {
			return false
		}
		if strings.EqualFold(s[j:j+len(lit)], lit) {
			return true
		}
		i = j + 1
	}
	return false
}

// termMatcher is a leaf's test of one term of a field, and a lower-case
// ASCII literal every matching term contains ("" when none is known).
// term is the one term an exact matcher matches ("" for the others), forms
// the terms a matcher of a word's inflections matches (nil for the
// others) and lits, literals one of which every matching term contains;
// prefix, one every matching term starts with ("" when none is known).
type termMatcher struct {
	match  func(term string) bool
	lit    string
	term   string
	forms  []string
	lits   []string
	prefix string
}

func exactMatcher(term string) termMatcher {
	return termMatcher{match: func(t string) bool { return t == term }, lit: asciiLit(term), term: term, prefix: term}
}

// formsMatcher matches any of forms (lower-case ASCII words, inflect.go).
func formsMatcher(forms []string) termMatcher {
	pre := forms[0]
	for _, f := range forms[1:] {
		for !strings.HasPrefix(f, pre) {
			pre = pre[:len(pre)-1]
		}
	}
	match := func(t string) bool { return strings.HasPrefix(t, pre) && slices.Contains(forms, t) } // most words fail at their first byte
	// The forms that hold no other: a text holding none cannot match.
	var lits []string
	for _, f := range forms {
		if !slices.ContainsFunc(forms, func(g string) bool { return g != f && strings.Contains(f, g) }) {
			lits = append(lits, f)
		}
	}
	return termMatcher{match: match, lit: pre, forms: forms, lits: lits, prefix: pre}
}

// asciiLit returns s lower-cased when it is ASCII, for mayHold; "" if not.
func asciiLit(s string) string {
	if !isASCII(s) {
		return ""
	}
	return strings.ToLower(s)
}

// isASCII reports whether s is ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if (uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// wildcardReplacer is bleve's wildcardRegexpReplacer (unexported there).
var wildcardReplacer = strings.NewReplacer("+", `\+`, "(", `\(`, ")", `\)`, "^", `\^`, "$", `\$`, ".", `\.`,
	"{", `\{`, "}", `\}`, "[", `\[`, "]", `\]`, `|`, `\|`, `\`, `\\`, "*", ".*", "?", ".")

// automaton is what vellum's regexp and Levenshtein DFAs share.
type automaton interface {
	Start() int
	IsMatch(int) bool
	CanMatch(int) bool
	Accept(int, byte) int
}

// accepts runs a over the whole of term, as scorch runs it over terms.
func accepts(a automaton, term string) bool {
	s := a.Start()
	for i := 0; i < len(term); i++ {
		if s = a.Accept(s, term[i]); !a.CanMatch(s) {
			return false
		}
	}
	return a.IsMatch(s)
}

// regexpMatcher compiles pattern as scorch does (vellum, whole terms).
func regexpMatcher(pattern string) (termMatcher, error) {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return termMatcher{}, err
	}
	re, err := vregexp.NewParsedWithLimit(pattern, parsed, vregexp.DefaultLimit)
	if err != nil {
		return termMatcher{}, err
	}
	return termMatcher{match: func(t string) bool { return accepts(re, t) }, lit: requiredLit(parsed), prefix: literalPrefix(parsed)}, nil
}

// literalPrefix returns a prefix of every term re matches whole ("" when it
// cannot tell). A case-folding literal gives its lower-case ASCII letters
// and digits up to the first s (ſ folds to it, and terms keep ſ) or other
// rune: terms are lower-cased, so the rest of its case orbit is in none.
func literalPrefix(re *syntax.Regexp) string {
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpLiteral {
		return ""
	}
	if re.Flags&syntax.FoldCase == 0 {
		return string(re.Rune)
	}
	var b strings.Builder
	for _, r := range re.Rune {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') || r == 's' {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// requiredLit returns the longest ASCII literal every match of re
// contains, lower-cased ("" when it cannot tell).
func requiredLit(re *syntax.Regexp) string {
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	best := ""
	for _, s := range subs {
		if s.Op == syntax.OpLiteral {
			if l := asciiLit(string(s.Rune)); len(l) > len(best) {
				best = l
			}
		}
	}
	return best
}

// levBuilders are scorch's Levenshtein automaton builders (distance 1 and
// 2, transpositions counting one), built once when first needed.
var levBuilders = sync.OnceValues(func() ([2]*levenshtein.LevenshteinAutomatonBuilder, error) {
	var bs [2]*levenshtein.LevenshteinAutomatonBuilder
	for i := range bs {
		b, err := levenshtein.NewLevenshteinAutomatonBuilder(uint8(i+1), true)
		if err != nil {
			return bs, err
		}
		bs[i] = b
	}
	return bs, nil
})

// fuzzyMatcher matches the terms within fuzziness edits of term that start
// with its first prefix bytes (rounded up to a whole character), as
// bleve's fuzzy searcher on scorch does.
func fuzzyMatcher(term string, fuzziness, prefix int) (termMatcher, error) {
	switch {
	case fuzziness > searcher.MaxFuzziness:
		return termMatcher{}, fmt.Errorf("fuzziness exceeds max (%d)", searcher.MaxFuzziness)
	case fuzziness < 0:
		return termMatcher{}, fmt.Errorf("invalid fuzziness, negative")
	case fuzziness == 0:
		return exactMatcher(term), nil
	case fuzziness > 2:
		return termMatcher{}, fmt.Errorf("fuzziness exceeds the max limit")
	}
	pre := term
	for i := range term {
		if i >= prefix {
			pre = term[:i]
			break
		}
	}
	bs, err := levBuilders()
	if err != nil {
		return termMatcher{}, err
	}
	dfa, err := bs[fuzziness-1].BuildDfa(term, uint8(fuzziness))
	if err != nil {
		return termMatcher{}, err
	}
	return termMatcher{match: func(t string) bool { return strings.HasPrefix(t, pre) && accepts(dfa, t) }, prefix: pre}, nil
}
