package search

import (
	"context"
	"errors"
	"math/bits"
	"slices"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// The query tree compiled into a test of a chunk's postings (postings.go):
// the records that match, and those the postings cannot tell, which are
// checked on the record (a phrase's order, a time, an unreadable leaf). It
// mirrors the evaluator (eval.go) node by node, on the same leaves'
// matchers; unlike a set's test it takes NOT exactly.

// tri is a test's answer: every record of yes matches, no record outside
// yes and maybe does. Either may be shared with the postings: never
// written.
type tri struct{ yes, maybe bitmap }

// ppred tests a chunk's postings.
type ppred func(p *chunkPost, s *scratch) tri

func noPost(*chunkPost, *scratch) tri        { return tri{} }
func maybePost(p *chunkPost, _ *scratch) tri { return tri{maybe: p.present} }
func (r tri) any(s *scratch) bitmap          { return or(s, r.yes, r.maybe) }
func orTri(s *scratch, a, b tri) tri {
	yes := or(s, a.yes, b.yes)
	if a.maybe == nil && b.maybe == nil {
		return tri{yes: yes}
	}
	return tri{yes, andNot(s, or(s, a.maybe, b.maybe), yes)}
}
func anyPost(ps []ppred) ppred { return func(p *chunkPost, s *scratch) tri { return orAll(p, s, ps) } }
func orAll(p *chunkPost, s *scratch, ps []ppred) (r tri) {
	for _, sub := range ps {
		r = orTri(s, r, sub(p, s))
	}
	return r
}

// postCompiler compiles trees into tests of postings.
type postCompiler struct{ *matchers }

// postPred compiles c into the test of a chunk's postings, the filters'
// time range included.
func (ev *evaluator) postPred(c *compiled) ppred {
	pp := postCompiler{ev.matchers}.node(c.tree)
	if c.rng.none() {
		return pp
	}
	return func(p *chunkPost, s *scratch) tri {
		switch p.span.cover(c.rng) {
		case outside:
			return tri{}
		case inside:
			return pp(p, s)
		}
		return tri{maybe: pp(p, s).any(s)}
	}
}

// node compiles n; one case per node type, the leaves in leaf.
func (pc postCompiler) node(n ql.Node) ppred {
	switch n := n.(type) {
	case *ql.And:
		ps := pc.nodes(n.Nodes)
		return func(p *chunkPost, s *scratch) tri {
			yes, any := p.present, bitmap(nil) // any nil: the same as yes
			for i, sub := range ps {
				r := sub(p, s)
				if r.maybe != nil && any == nil {
					any = yes
				}
				if any != nil {
					any = and(s, any, r.any(s))
				}
				if i == 0 {
					yes = r.yes // (within present)
				} else {
					yes = and(s, yes, r.yes)
				}
				if yes == nil && any == nil {
					return tri{}
				}
			}
			return tri{yes, andNot(s, any, yes)}
		}
	case *ql.Or:
		return anyPost(pc.nodes(n.Nodes))
	case *ql.Not:
		sub := pc.node(n.Node)
		return func(p *chunkPost, s *scratch) tri {
			r := sub(p, s)
			return tri{andNot(s, p.present, r.any(s)), r.maybe}
		}
	case *ql.All:
		return func(p *chunkPost, s *scratch) tri { return tri{yes: p.present} }
	case *ql.None:
		return noPost
	}
	field, _ := ql.Field(n)
	if field != "" {
		return pc.leaf(n, field)
	}
	ps := make([]ppred, len(ql.TextFields))
	for i, f := range ql.TextFields {
		ps[i] = pc.leaf(n, f)
	}
	return anyPost(ps)
}

func (pc postCompiler) nodes(ns []ql.Node) []ppred {
	ps := make([]ppred, len(ns))
	for i, n := range ns {
		ps[i] = pc.node(n)
	}
	return ps
}

// leaf is leafPred's mirror on the postings.
func (pc postCompiler) leaf(n ql.Node, field string) ppred {
	l := pc.matchers.leaf(n, field)
	switch {
	case l.err != nil:
		return maybePost // (compileEval refused it already)
	case l.time != nil:
		return func(p *chunkPost, s *scratch) tri {
			if !p.span.meets(l.time) {
				return tri{}
			}
			return tri{maybe: p.present}
		}
	case l.phrase != nil:
		f := slices.Index(textFields, l.phrase.field)
		if f < 0 {
			return noPost
		}
		return func(p *chunkPost, s *scratch) tri {
			if p.cut[f] {
				return tri{maybe: p.present}
			}
			m := p.present
			for _, w := range l.phrase.words {
				if m = and(s, m, p.term(s, f, w.term)); m == nil {
					break
				}
			}
			return tri{maybe: m} // the words' order is checked on the record
		}
	}
	ps := make([]ppred, len(l.ms))
	for i, m := range l.ms {
		ps[i] = postTerm(field, m)
	}
	return anyPost(ps)
}

// postTerm is termPred's mirror: the records whose field holds a term m
// matches.
func postTerm(field string, m termMatcher) ppred {
	switch field {
	case "text", "stack":
		f := slices.Index(textFields, field)
		return func(p *chunkPost, s *scratch) tri {
			switch {
			case p.cut[f]:
				return tri{maybe: p.present}
			case m.term != "":
				return tri{yes: p.term(s, f, m.term)}
			case m.forms != nil:
				return tri{yes: p.terms(s, f, m.forms)}
			}
			return tri{yes: p.match(s, f, m)}
		}
	}
	if !slices.Contains(keywordFields, field) {
		return noPost
	}
	return func(p *chunkPost, s *scratch) tri { return tri{yes: p.keyword(s, field, m.term, m.match)} }
}

// searchPosted returns the IDs in clo..top of chunk k that match, newest
// first, stopping past what col still takes, and the lowest ID it looked
// at, as searchChunk does, from the chunk's postings: it reads only the
// records they cannot tell of (and the operations completed since they
// were built).
func (x *Index) searchPosted(ctx context.Context, q preds, post *chunkPost, col *collector, k, clo, top, rev uint64) ([]uint64, uint64, error) {
	q.sc.reset(post.n)
	r := q.post(post, q.sc)
	lo, hi := int(clo-post.first), int(top-post.first)
	yes, maybe := r.yes, r.maybe
	if ids := x.dirty.completedSince(post.pending, post.pos); len(ids) > 0 {
		x.dirty.reads.Add(uint64(len(ids)))
		yes, maybe = slices.Clone(yes), or(q.sc, q.sc.bitmap(), maybe)
		for _, id := range ids {
			if i := int(id - post.first); id >= clo && id <= top {
				if yes.has(i) {
					yes.clear(i)
				}
				maybe.set(i)
			}
		}
	}
	rd := &maybeReader{x: x, maybe: maybe, first: post.first, lo: lo}
	if err := rd.whole(k, hi, rev); err != nil {
		return nil, 0, err
	}
	var got []uint64
	v := &recView{an: x.an.text}
	for w := hi >> 6; w >= lo>>6; w-- {
		var y, m uint64
		if w < len(yes) {
			y = yes[w]
		}
		if w < len(maybe) {
			m = maybe[w]
		}
		for b := (y | m) & span64(w, lo, hi); b != 0; {
			i := 63 - bits.LeadingZeros64(b)
			b &^= 1 << i
			id := post.first + uint64(w<<6+i)
			if y&(1<<i) == 0 {
				rec, err := rd.get(id)
				if err != nil {
					return nil, 0, err
				}
				if *v = (recView{r: rec, an: v.an}); rec == nil || !q.rec(v) {
					continue
				}
			}
			got = append(got, id)
			if len(col.ids)+len(got) > col.stop {
				return got, id, ctx.Err()
			}
		}
	}
	if yes.count()+maybe.count() == 0 {
		x.skipped.Add(1)
	}
	return got, clo, ctx.Err()
}

// span64 is the bits of word w of a bitmap that are places lo..hi.
func span64(w, lo, hi int) uint64 {
	m := ^uint64(0)
	if w == lo>>6 {
		m &= ^uint64(0) << (lo & 63)
	}
	if w == hi>>6 && hi&63 != 63 {
		m &= 1<<(hi&63+1) - 1
	}
	return m
}

// maybeReader reads the records of a chunk at the places of maybe, as
// they now stand, for a search to check: the chunk's records when they are
// many (whole), else a read's worth at a time (sizeHint: up to
// maxReadRecords, one of large records) down from the one asked.
type maybeReader struct {
	x     *Index
	maybe bitmap
	first uint64
	lo    int
	recs  map[uint64]*oplog.Record
	all   bool // recs holds every one
}

// whole reads chunk k's records when more than maxPostFetch of maybe's
// places in lo..hi are to be read, and the chunk is not too large to hold.
func (rd *maybeReader) whole(k uint64, hi int, rev uint64) error {
	n := 0
	for w := rd.lo >> 6; w <= hi>>6 && w < len(rd.maybe); w++ {
		n += bits.OnesCount64(rd.maybe[w] & span64(w, rd.lo, hi))
	}
	if n <= maxPostFetch {
		return nil
	}
	recs, fresh, err := rd.x.chunk(k, rev)
	if errors.Is(err, errBigChunk) {
		return nil
	}
	if err != nil {
		return err
	}
	rd.recs, rd.all = make(map[uint64]*oplog.Record, n), true
	for i := range recs {
		if at := int(recs[i].ID - rd.first); at >= rd.lo && at <= hi && rd.maybe.has(at) {
			rd.recs[recs[i].ID] = &recs[i]
		}
	}
	for id, r := range fresh {
		if _, ok := rd.recs[id]; ok {
			rd.recs[id] = r
		}
	}
	return nil
}

// get returns record id (nil: not stored).
func (rd *maybeReader) get(id uint64) (*oplog.Record, error) {
	if r, ok := rd.recs[id]; ok || rd.all {
		return r, nil
	}
	var ids []uint64
	limit := rd.x.hint.limit(readBytes, rd.x.st) // (records of 1 MiB: one at a time)
	for i := int(id - rd.first); i >= rd.lo && len(ids) < limit; i-- {
		if rd.maybe.has(i) {
			ids = append(ids, rd.first+uint64(i))
		}
	}
	recs, err := rd.x.getMany(ids)
	rd.x.hint.saw(recs)
	rd.recs = make(map[uint64]*oplog.Record, len(ids))
	for _, id := range ids {
		rd.recs[id] = nil
	}
	var bytes int64
	for i := range recs {
		rd.recs[recs[i].ID] = &recs[i]
		bytes += recordBytes(&recs[i])
	}
	rd.x.readBytes(bytes) // large records' mapped pages go back as they are read
	return rd.recs[id], err
}
