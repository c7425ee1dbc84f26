package search

import (
	"slices"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// The query tree compiled into a test of a chunk's term set (terms.go):
// false only when no record of the chunk can match. It mirrors the
// evaluator (eval.go) node by node, on the same leaves' matchers, with each
// NOT taken as a maybe: a chunk's terms cannot tell that every record
// lacks a word.

// cpred reports whether a chunk's terms may hold a record that matches.
// Under the chunk's read lock.
type cpred func(c *chunkTerms) bool

func maybe(*chunkTerms) bool   { return true }
func noChunk(*chunkTerms) bool { return false }

// chunkCompiler compiles trees into chunk predicates.
type chunkCompiler struct{ *matchers }

// chunkPred compiles c into the test of a chunk's term set, the filters'
// time range included.
func (ev *evaluator) chunkPred(c *compiled) cpred {
	p := chunkCompiler{ev.matchers}.chunk(c.tree)
	if c.rng.none() {
		return p
	}
	return func(ch *chunkTerms) bool { return ch.span.cover(c.rng) != outside && p(ch) }
}

// chunk compiles n; one case per node type, the leaves in leaf.
func (cc chunkCompiler) chunk(n ql.Node) cpred {
	switch n := n.(type) {
	case *ql.And:
		var ps []cpred
		for _, sub := range n.Nodes {
			if _, isNot := sub.(*ql.Not); !isNot {
				ps = append(ps, cc.chunk(sub))
			}
		}
		if len(ps) == 0 {
			return maybe // only exclusions
		}
		return atLeast(ps, len(ps))
	case *ql.Or:
		ps := make([]cpred, len(n.Nodes))
		for i, sub := range n.Nodes {
			ps[i] = cc.chunk(sub)
		}
		return atLeast(ps, 1)
	case *ql.Not:
		return maybe
	case *ql.All:
		return maybe
	case *ql.None:
		return noChunk
	}
	field, _ := ql.Field(n)
	if field != "" {
		return cc.leaf(n, field)
	}
	ps := make([]cpred, len(ql.TextFields))
	for i, f := range ql.TextFields {
		ps[i] = cc.leaf(n, f)
	}
	return atLeast(ps, 1)
}

// leaf is leafPred's mirror: whether a term of field in the chunk matches
// one of the leaf's matchers.
func (cc chunkCompiler) leaf(n ql.Node, field string) cpred {
	l := cc.matchers.leaf(n, field)
	switch {
	case l.err != nil:
		return maybe // (compileEval refused it already)
	case l.time != nil:
		return func(ch *chunkTerms) bool { return ch.span.meets(l.time) }
	case l.phrase != nil:
		f := slices.Index(textFields, l.phrase.field)
		if f < 0 {
			return noChunk
		}
		return func(ch *chunkTerms) bool {
			for _, w := range l.phrase.words {
				if !ch.has(f, w.term) {
					return false
				}
			}
			return true
		}
	}
	ps := make([]cpred, len(l.ms))
	for i, m := range l.ms {
		ps[i] = chunkTerm(field, m)
	}
	return atLeast(ps, 1)
}

// chunkTerm is termPred's mirror: whether a term of field in the chunk
// matches m.
func chunkTerm(field string, m termMatcher) cpred {
	switch field {
	case "text", "stack":
		f := slices.Index(textFields, field)
		switch {
		case m.term != "":
			return func(ch *chunkTerms) bool { return ch.has(f, m.term) }
		case m.forms != nil:
			return func(ch *chunkTerms) bool {
				return slices.ContainsFunc(m.forms, func(t string) bool { return ch.has(f, t) })
			}
		}
		return func(ch *chunkTerms) bool { return ch.any(f, m) }
	}
	if !slices.Contains(keywordFields, field) {
		return noChunk
	}
	if m.term != "" {
		return func(ch *chunkTerms) bool { return ch.hasKw(kwKey{field, m.term}) }
	}
	return func(ch *chunkTerms) bool { return ch.anyKw(field, m.match) }
}
