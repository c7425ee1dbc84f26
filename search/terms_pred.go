package search

import (
	"slices"

	"github.com/blevesearch/bleve/v2/search/query"
)

// cpred reports whether a chunk's terms may hold a record that matches.
// Under the chunk's read lock.
type cpred func(c *chunkTerms) bool

func maybe(*chunkTerms) bool { return true }
func never(*chunkTerms) bool { return false }

// chunkPred compiles c into the test of a chunk's term set: false only when
// no record of the chunk can match. It mirrors compileEval leaf by leaf,
// with each NOT, and each shape it does not know, taken as a maybe.
func (ev *evaluator) chunkPred(c *compiled) cpred {
	p, none := ev.chunkNode(c.q)
	if none {
		return never
	}
	if c.rng.none() {
		return p
	}
	return func(ch *chunkTerms) bool { return ch.span.cover(c.rng) != outside && p(ch) }
}

// chunkNode is node's mirror; none as there.
func (ev *evaluator) chunkNode(q query.Query) (cpred, bool) {
	switch q := q.(type) {
	case *query.BooleanQuery:
		return ev.chunkBoolean(q)
	case *query.ConjunctionQuery:
		ps := ev.chunkNodes(q.Conjuncts, stringMode(q))
		if len(ps) == 0 {
			return nil, true
		}
		return atLeast(ps, len(ps)), false
	case *query.DisjunctionQuery:
		ps := ev.chunkNodes(q.Disjuncts, stringMode(q))
		if len(ps) == 0 {
			return nil, true
		}
		return atLeast(ps, max(int(q.Min), 1)), false
	case *query.MatchAllQuery:
		return maybe, false
	case *query.MatchNoneQuery:
		return nil, true
	case *query.MatchQuery:
		return ev.chunkMatch(q)
	case *phraseQuery:
		f := slices.Index(textFields, q.field)
		if f < 0 {
			return never, false
		}
		return func(ch *chunkTerms) bool {
			for _, w := range q.words {
				if !ch.has(f, w.term) {
					return false
				}
			}
			return true
		}, false
	case *timeRangeQuery:
		return func(ch *chunkTerms) bool { return ch.span.meets(q) }, false
	}
	m, field, err := ev.leafMatcher(q)
	if err != nil || m.match == nil {
		return maybe, false // (compileEval refused it already; a range matches nothing there)
	}
	return chunkLeaf(field, m), false
}

// chunkNodes is nodes' mirror.
func (ev *evaluator) chunkNodes(qs []query.Query, skip bool) []cpred {
	var ps []cpred
	for _, sub := range qs {
		p, none := ev.chunkNode(sub)
		if none {
			if skip {
				continue
			}
			p = never
		}
		ps = append(ps, p)
	}
	return ps
}

// chunkBoolean is boolean's mirror: a NOT cannot rule a chunk out.
func (ev *evaluator) chunkBoolean(q *query.BooleanQuery) (cpred, bool) {
	part := func(sub query.Query) (cpred, bool) {
		if sub == nil {
			return nil, true
		}
		return ev.chunkNode(sub)
	}
	must, mustNone := part(q.Must)
	should, shouldNone := part(q.Should)
	_, notNone := part(q.MustNot)
	if mustNone && shouldNone && notNone {
		return nil, true
	}
	if mustNone {
		must = nil
	}
	if shouldNone {
		should = nil
	}
	if dq, ok := q.Should.(*query.DisjunctionQuery); must != nil && (!ok || dq.Min <= 0) {
		should = nil
	}
	return func(ch *chunkTerms) bool {
		return (must == nil || must(ch)) && (should == nil || should(ch))
	}, false
}

// chunkMatch is match's mirror.
func (ev *evaluator) chunkMatch(q *query.MatchQuery) (cpred, bool) {
	toks, ms, err := ev.matchTerms(q)
	if err != nil {
		return maybe, false
	}
	if len(toks) == 0 {
		return nil, true
	}
	ps := make([]cpred, len(ms))
	for i, m := range ms {
		ps[i] = chunkLeaf(q.FieldVal, m)
	}
	if q.Operator == query.MatchQueryOperatorAnd {
		return atLeast(ps, len(ps)), false
	}
	return atLeast(ps, 1), false
}

// chunkLeaf is leafPred's mirror: whether a term of field in the chunk
// matches m.
func chunkLeaf(field string, m termMatcher) cpred {
	switch field {
	case "text", "stack":
		f := slices.Index(textFields, field)
		if m.term != "" {
			return func(ch *chunkTerms) bool { return ch.has(f, m.term) }
		}
		return func(ch *chunkTerms) bool { return ch.any(f, m) }
	}
	if !slices.Contains(keywordFields, field) {
		return never
	}
	if m.term != "" {
		return func(ch *chunkTerms) bool { _, ok := ch.kw[kwKey{field, m.term}]; return ok }
	}
	return func(ch *chunkTerms) bool {
		for k := range ch.kw {
			if k.field == field && m.match(k.v) {
				return true
			}
		}
		return false
	}
}
