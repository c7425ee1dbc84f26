package search

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
)

// compiled is a SearchQuery translated for bleve.
type compiled struct {
	q     query.Query // the query string and every filter but the time range, one conjunction
	seg   query.Query // q for the segments: its leaves on text fields confirm cut documents (cut.go)
	rng   timeRange   // the filters' time range, applied to the IDs q finds
	times bool        // the query string has a time range: q reads the time column
	terms []string    // analysed words and prefix or wildcard patterns of the query string, for fragments
}

// compile parses q's query string, sends unqualified terms to text and
// stack, checks field names, spells keyword values as they are indexed and
// adds q's filters. A bad query string is EINVALID, saying where it broke.
func (a *analyzers) compile(q *oplog.SearchQuery) (*compiled, error) {
	c := &compiled{}
	var conj []query.Query
	if s := strings.TrimSpace(q.Query); s != "" {
		parsed, err := parse(s)
		if err != nil {
			return nil, err
		}
		t, err := a.translate(parsed, c, false)
		if err != nil {
			return nil, err
		}
		conj = append(conj, t)
	}
	term := func(field, v string) {
		if v != "" {
			tq := query.NewTermQuery(v)
			tq.SetField(field)
			conj = append(conj, tq)
		}
	}
	if q.MinLevel > oplog.LevelDebug {
		var levels []query.Query
		for l := q.MinLevel; l <= oplog.LevelFatal; l++ {
			tq := query.NewTermQuery(l.String())
			tq.SetField("level")
			levels = append(levels, tq)
		}
		conj = append(conj, query.NewDisjunctionQuery(levels))
	}
	kind := q.Kind
	if q.WithMarkers && kind == oplog.KindLine {
		kind = 0
		conj = append(conj, query.NewDisjunctionQuery([]query.Query{fieldTerm("kind", oplog.KindLine.String()),
			fieldTerm("kind", oplog.KindMarker.String())}))
	}
	for _, f := range keywords(q.Name, q.Source, kind, q.Tool, q.Status, q.ReplayOf) {
		term(f.field, f.v)
	}
	if q.Runs != nil {
		conj = append(conj, runsQuery(q.Runs))
	}
	switch len(conj) {
	case 0:
		c.q = query.NewMatchAllQuery()
	case 1:
		c.q = conj[0]
	default:
		c.q = query.NewConjunctionQuery(conj)
	}
	c.seg = cutTree(c.q, a.text)
	c.rng = timeRange{since: q.Since, until: q.Until}
	return c, nil
}

// fieldTerm is a term query on one field.
func fieldTerm(field, v string) query.Query {
	tq := query.NewTermQuery(v)
	tq.SetField(field)
	return tq
}

// runsQuery matches the records of Filter.Runs: source S and run N, for
// each pair; none when the map is empty.
func runsQuery(runs map[string]uint64) query.Query {
	alts := make([]query.Query, 0, len(runs))
	for src, run := range runs {
		alts = append(alts, query.NewConjunctionQuery([]query.Query{fieldTerm("source", src), fieldTerm("run", docID(run))}))
	}
	if len(alts) == 0 {
		return query.NewMatchNoneQuery()
	}
	return query.NewDisjunctionQuery(alts)
}

// plan says how to search documents whose times lie in sp: not at all
// (false), keeping every ID q finds (keep nil), or keeping those whose time
// look gives is in the filters' range.
func (c *compiled) plan(sp span, look func() timeLookup) (keep func(id uint64) bool, ok bool) {
	switch sp.cover(c.rng) {
	case outside:
		return nil, false
	case inside:
		return nil, true
	}
	l := look()
	return func(id uint64) bool {
		t, ok := l(id)
		return ok && c.rng.in(t)
	}, true
}

// parse parses a query string (see tree) and checks the values of its
// clauses (see values.go); its errors say where it broke.
func parse(s string) (query.Query, error) {
	if len(s) > maxQueryBytes {
		return nil, oplog.Errorf(oplog.EINVALID, "query: %d bytes is over the limit of %d", len(s), maxQueryBytes)
	}
	if !utf8.ValidString(s) {
		return nil, oplog.Errorf(oplog.EINVALID, "query: not valid UTF-8")
	}
	q, clauses, err := parseTree(s)
	if err != nil {
		return nil, err
	}
	for _, c := range clauses {
		if msg := c.check(); msg != "" {
			return nil, queryErr(s, c.pos+c.value(), "bad value", msg)
		}
	}
	if q == nil {
		return query.NewMatchAllQuery(), nil
	}
	return q, nil
}

// bleveMessage rewords an error of bleve's query string parser.
func bleveMessage(err error) string {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	if strings.Contains(msg, "runtime error") {
		// bleve's parser recovered from its own fault: no use to the caller.
		return "this clause cannot be read; quote a phrase (\"…\") or escape special characters with \\"
	}
	return strings.NewReplacer("tSTRING", "word", "tPHRASE", "phrase", "tNUMBER", "number", "tCOLON", "':'",
		"tPLUS", "'+'", "tMINUS", "'-'", "tLEFTBRACKET", "'('", "tRIGHTBRACKET", "')'", "tLEFTRANGE", "'['",
		"tRIGHTRANGE", "']'", "tGREATER", "'>'", "tLESS", "'<'", "tEQUAL", "'='", "tTILDE", "'~'", "tBOOST", "'^'",
		"tOR", "OR", "tAND", "AND", "tNOT", "NOT", "$end", "end of the clause").Replace(msg)
}

// translate rewrites q in place where it can and returns the query to run.
func (a *analyzers) translate(q query.Query, c *compiled, negated bool) (query.Query, error) {
	switch q := q.(type) {
	case *query.BooleanQuery:
		var err error
		if q.Must != nil {
			if q.Must, err = a.translate(q.Must, c, negated); err != nil {
				return nil, err
			}
		}
		if q.Should != nil {
			if q.Should, err = a.translate(q.Should, c, negated); err != nil {
				return nil, err
			}
		}
		if q.MustNot != nil {
			if q.MustNot, err = a.translate(q.MustNot, c, !negated); err != nil {
				return nil, err
			}
		}
		return q, nil
	case *query.ConjunctionQuery:
		for i, sub := range q.Conjuncts {
			t, err := a.translate(sub, c, negated)
			if err != nil {
				return nil, err
			}
			q.Conjuncts[i] = t
		}
		return q, nil
	case *query.DisjunctionQuery:
		for i, sub := range q.Disjuncts {
			t, err := a.translate(sub, c, negated)
			if err != nil {
				return nil, err
			}
			q.Disjuncts[i] = t
		}
		return q, nil
	case query.FieldableQuery:
		return a.leaf(q, c, negated)
	}
	return q, nil
}

func (a *analyzers) leaf(q query.FieldableQuery, c *compiled, negated bool) (query.Query, error) {
	field := q.Field()
	if m, ok := q.(*query.MatchQuery); ok && m.Fuzziness == 0 && (field == "" || field == "message" || field == "msg" || slices.Contains(textFields, field)) {
		if in := []byte(m.Match); a.phraseOfWord(in) {
			// One word to the standard analyzer (Foo.cs, 3.14), several
			// here: they must follow each other, as they did in the word.
			// Or one word longer than its term: it is confirmed whole.
			p := query.NewMatchPhraseQuery(m.Match)
			p.SetField(field)
			p.BoostVal = m.BoostVal
			q = p
		}
	}
	switch {
	case field == "":
		var alts []query.Query
		for _, f := range textFields {
			cl := clone(q)
			if cl == nil {
				return nil, oplog.Errorf(oplog.EINVALID, "query: unsupported query %T", q)
			}
			cl.SetField(f)
			if _, isRange := cl.(*query.NumericRangeQuery); isRange {
				continue // only text fields here: a bare number matches as a word
			}
			t, err := a.textLeaf(cl)
			if err != nil {
				return nil, err
			}
			alts = append(alts, t)
		}
		a.collect(q, c, negated)
		if len(alts) == 1 {
			return alts[0], nil
		}
		return query.NewDisjunctionQuery(alts), nil
	case field == "message" || field == "msg":
		q.SetField("text")
		fallthrough
	case slices.Contains(textFields, field):
		a.collect(q, c, negated)
		return a.textLeaf(q)
	case field == timeField:
		dq, ok := q.(*query.DateRangeQuery)
		if !ok {
			return nil, oplog.Errorf(oplog.EINVALID, `query: time takes a date range, such as time:>="2026-05-01T12:00:00Z"`)
		}
		c.times = true
		return newTimeRangeQuery(dq), nil
	case slices.Contains(keywordFields, field):
		return keywordLeaf(q)
	}
	return nil, oplog.Errorf(oplog.EINVALID, "query: unknown field %q; fields are text, stack, name, level, source, kind, tool, status, replayOf, run and time", field)
}

// textLeaf returns the query to run for a leaf on a text field: a phrase
// becomes a phraseQuery (the index has no positions, see phrase.go); a
// wildcard, prefix or regular expression ignores case (see values.go).
func (a *analyzers) textLeaf(q query.FieldableQuery) (query.Query, error) {
	p, ok := q.(*query.MatchPhraseQuery)
	if !ok {
		return fold(q)
	}
	if p.Fuzziness != 0 {
		return nil, oplog.Errorf(oplog.EINVALID, "query: a phrase cannot be fuzzy (%q~%d); make its words fuzzy instead, such as word~1", p.MatchPhrase, p.Fuzziness)
	}
	return newPhrase(p.FieldVal, p.MatchPhrase, a.text), nil
}

// collect adds the analysed words of a match or phrase to c.terms, and a
// prefix or wildcard as a lower-cased pattern (crash*, which oplog.Fragment
// matches against whole words) unless it matches every word.
func (a *analyzers) collect(q query.FieldableQuery, c *compiled, negated bool) {
	if negated {
		return
	}
	var text string
	switch q := q.(type) {
	case *query.MatchQuery:
		text = q.Match
	case *query.MatchPhraseQuery:
		text = q.MatchPhrase
	case *query.PrefixQuery:
		c.pattern(q.Prefix + "*")
		return
	case *query.WildcardQuery:
		c.pattern(q.Wildcard)
		return
	default:
		return
	}
	in := []byte(text)
	for _, tok := range a.text.Analyze(in) {
		t := string(tok.Term)
		if w := cutWord(in, tok); w != "" {
			t = w // fragments look for the whole word
		}
		if !slices.Contains(c.terms, t) {
			c.terms = append(c.terms, t)
		}
	}
}

// pattern adds a prefix's or wildcard's pattern to c.terms, lower-cased as
// fold lower-cases it for the search; not one of only * and ?, which would
// mark any word.
func (c *compiled) pattern(p string) {
	p = strings.ToLower(p)
	if strings.Trim(p, "*?") != "" && !slices.Contains(c.terms, p) {
		c.terms = append(c.terms, p)
	}
}

// phraseOfWord reports whether a query word must be searched as a phrase:
// the analyzer splits it in several (Foo.cs), or its term may stand for
// longer words too (see confirmWord).
func (a *analyzers) phraseOfWord(in []byte) bool {
	toks := a.text.Analyze(in)
	return len(toks) > 1 || len(toks) == 1 && confirmWord(in, toks[0]) != ""
}

// clone copies a leaf query so that it can be given another field.
func clone(q query.FieldableQuery) query.FieldableQuery {
	switch q := q.(type) {
	case *query.MatchQuery:
		c := *q
		return &c
	case *query.MatchPhraseQuery:
		c := *q
		return &c
	case *query.WildcardQuery:
		c := *q
		return &c
	case *query.RegexpQuery:
		c := *q
		return &c
	case *query.FuzzyQuery:
		c := *q
		return &c
	case *query.TermQuery:
		c := *q
		return &c
	case *query.PrefixQuery:
		c := *q
		return &c
	case *query.NumericRangeQuery:
		c := *q
		return &c
	case *query.DateRangeQuery:
		c := *q
		return &c
	}
	return nil
}
