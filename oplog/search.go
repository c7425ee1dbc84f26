package oplog

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// SearchQuery asks for records matching a query string and filters, newest first.
type SearchQuery struct {
	// Query is a bleve query string over the fields name, level, source,
	// kind, tool, status (exact keywords), text and stack (analysed words;
	// an unqualified term searches both) and time (dates):
	// `level:error AND name:Physics "null reference"`. Empty: every record
	// that passes the filters.
	Query string
	// Tree is Query parsed and checked (ParseQuery), which Resolve sets, so
	// that a request is parsed once; nil: Node parses Query. Query stays
	// for display.
	Tree     ql.Node
	Filter          // MinLevel, Name, Kind, Source, Since, Until
	Tool     string // an operation's exact tool; empty: any
	Status   Status // an operation's status; zero: any
	ReplayOf uint64 // only replays of this operation; zero: any
	Limit    int    // hits per page; DefaultSearchLimit when zero, capped at MaxSearchLimit
	Cursor   string // the NextCursor of the previous page; empty: from the newest
	// Hint asks for SearchPage.Hint on an empty first page: the surfaces
	// people and agents read (search_logs, GET /api/v1/search, mcplogd
	// search) set it; a search made by code, which has no use for one,
	// leaves it false and pays nothing.
	Hint bool
}

// SearchHit is one record that matched, with a fragment of its text (or
// stack) around the first matched word, the word marked **like this**.
type SearchHit struct {
	Record   Record
	Fragment string // empty when the query has no words or they are not in text or stack
}

// SearchPage is the answer to a SearchQuery.
type SearchPage struct {
	Hits           []SearchHit
	Total          int64     // matching records in the store; an estimate unless TotalExact
	TotalExact     bool      // Total was counted, not estimated
	NextCursor     string    // pass as Cursor for the next page; empty when there is none
	IndexedThrough uint64    // the index's watermark; records above it were matched without it, exactly
	Damaged        []Damaged // runs of IDs within the span searched that could not be read (see Damaged)
	// Hint, on an empty first page of this log's search that asked for
	// it (SearchQuery.Hint), is a request that finds records (see
	// SearchHint); nil on any other page.
	Hint *SearchHint
}

// IndexStatus says how far the full-text index has come.
type IndexStatus struct {
	IndexedThrough uint64 // every record up to here is in the index: in its chunk's term set
	Lag            uint64 // records appended after IndexedThrough
	// SegmentsThrough is how far the index is on disk (its sets file);
	// the records above it are in term sets in memory only, up to
	// IndexedThrough, and are built again from the log after a restart.
	// SegmentLag counts the records after it.
	SegmentsThrough uint64
	SegmentLag      uint64
	State           IndexState
	Progress        float64
	Segments        int   // the complete chunks' sets on disk
	Bytes           int64 // on disk
}

// IndexHits is what an Index answers to a search: matching IDs, newest first.
type IndexHits struct {
	IDs            []uint64 // newest first, at most the asked limit
	More           bool     // more matching records exist below the last ID
	Total          int64
	TotalExact     bool
	Terms          []string // the analysed words and the prefix or wildcard patterns (crash*) of the query, for fragments (see Fragment)
	IndexedThrough uint64
	// Resume, when not zero, is where the next page goes on (its before):
	// the search stopped at its time budget with every ID from Resume up
	// searched; More is then true and TotalExact false.
	Resume uint64
}

// Index is the full-text index behind Log.Search (package search).
// It is fed in the background from the store and may lag behind it; Search
// must be exact anyway, matching the records it does not hold yet with the
// same semantics.
type Index interface {
	// Search returns the IDs of the records that match q, below before
	// (zero: no bound), newest first, at most limit of them. A query that
	// cannot be parsed is an EINVALID error that says where it broke.
	Search(ctx context.Context, q *SearchQuery, before uint64, limit int) (IndexHits, error)

	// Status reports the watermark and what the indexer is doing.
	Status() IndexStatus

	// Words returns the words of text and stack within edits edits
	// (1 or 2; a transposition is one) of word, lower case, that the index
	// holds, a word appended a moment ago among them. Closest first, then
	// the most records, at most limit of them (zero: no limit); word
	// itself, when held, at Distance 0. A word's Records is about how many
	// hold it (the newest records each count, and each older chunk whose
	// term set has it once): its order is what counts. Log.Search asks it
	// only for an empty answer.
	Words(ctx context.Context, word string, edits, limit int) ([]WordCount, error)

	// Close stops the indexer and closes the index.
	Close() error
}

// SetIndex gives the Log its full-text index, which it then owns (Close
// closes it). Call it before serving.
func (l *Log) SetIndex(idx Index) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.index = idx
}

func (l *Log) getIndex() Index {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.index
}

// IndexStatus reports the index's state; ok is false when the Log has none.
func (l *Log) IndexStatus() (s IndexStatus, ok bool) {
	idx := l.getIndex()
	if idx == nil {
		return IndexStatus{}, false
	}
	return idx.Status(), true
}

// Search answers q newest first. A query without words and without tool or
// status is answered by the store's backward walk (exact, and fast when the
// filters match often); every other query goes through the index. A first
// page without hits carries a Hint (hint.go) when q.Hint asks for one.
// EINVALID for a bad query string (naming where it broke), a bad cursor or
// bad filters; EUNAVAILABLE when a query needs the index and there is none.
func (l *Log) Search(ctx context.Context, q SearchQuery) (SearchPage, error) {
	if q.Cursor != "" {
		if _, _, lead, err := decodeCursor(q.Cursor); err == nil && lead > 0 {
			// A page of a pasted line's hits without its first words (pasted).
			if lead > uint64(len(q.Query)) {
				return SearchPage{}, Errorf(EINVALID, "cursor: not a cursor of this query; search again without a cursor")
			}
			q.Query, q.Tree = q.Query[lead:], nil
			p, err := l.search(ctx, q)
			p.NextCursor = leadCursor(p.NextCursor, lead)
			return p, err
		}
	}
	p, err := l.search(ctx, q)
	if err == nil && q.Hint && len(p.Hits) == 0 && p.NextCursor == "" && q.Cursor == "" {
		if lp, ok := l.pasted(ctx, &q); ok {
			return lp, nil
		}
		p.Hint = l.hint(ctx, q)
	}
	return p, err
}

// search is Search without its hint.
func (l *Log) search(ctx context.Context, q SearchQuery) (SearchPage, error) {
	if err := ctx.Err(); err != nil {
		return SearchPage{}, err
	}
	var err error
	if q.Limit, err = CheckLimit("limit", q.Limit, DefaultSearchLimit, MaxSearchLimit); err != nil {
		return SearchPage{}, err
	}
	if err := l.gameFilter(&q.Filter); err != nil {
		return SearchPage{}, err
	}
	if q.Status != 0 && q.Status > statusLast {
		return SearchPage{}, Errorf(EINVALID, "status: unknown status %d", q.Status)
	}
	q.Query = strings.TrimSpace(q.Query)
	st := l.store.Stats()
	var before uint64
	if q.Cursor != "" {
		rev, last, _, err := decodeCursor(q.Cursor)
		if err != nil {
			return SearchPage{}, err
		}
		if rev != st.Revision {
			return SearchPage{}, Errorf(EINVALID, "cursor: the log was cleared since that page; search again without a cursor")
		}
		before = last
	}
	idx := l.getIndex()
	if q.Query == "" && q.Tool == "" && q.Status == 0 && q.ReplayOf == 0 && (idx == nil || q.Since.IsZero() && q.Until.IsZero() && l.dense(&q.Filter, &st)) {
		return l.searchList(&q, before, st, idx)
	}
	if idx == nil {
		return SearchPage{}, Errorf(EUNAVAILABLE, "search: this log has no full-text index")
	}
	h, err := idx.Search(ctx, &q, before, q.Limit)
	if err != nil {
		return SearchPage{}, err
	}
	recs, err := l.loadHits(h.IDs)
	if err != nil {
		return SearchPage{}, err
	}
	p := SearchPage{Hits: make([]SearchHit, len(recs)), Total: h.Total, TotalExact: h.TotalExact, IndexedThrough: h.IndexedThrough}
	for i := range recs {
		p.Hits[i] = SearchHit{Record: recs[i], Fragment: Fragment(&recs[i], h.Terms)}
	}
	var last uint64 // the page reached down to here; zero: to the oldest
	switch {
	case h.Resume > 0:
		p.NextCursor, last = EncodeCursor(st.Revision, h.Resume), h.Resume
	case h.More && len(h.IDs) > 0:
		last = h.IDs[len(h.IDs)-1]
		p.NextCursor = EncodeCursor(st.Revision, last)
	}
	p.Damaged = l.damageIn(before, last)
	return p, nil
}

// dense reports whether f keeps many records (see count; a source filter
// without a name is not counted apart, so it can make dense optimistic by
// up to the number of sources).
func (l *Log) dense(f *Filter, st *Stats) bool {
	if st.Records == 0 {
		return true
	}
	g := *f
	if g.Name == "" {
		g.Source = ""
	}
	n, err := l.count(&g, st)
	return err != nil || n*denseShare >= st.Records
}

// count is how many records pass f's kind, level, name and source (not its
// time bounds), from the counters: per name when f names a name or source,
// else per kind and level.
func (l *Log) count(f *Filter, st *Stats) (uint64, error) {
	if f.Name == "" && f.Source == "" {
		return st.Count(f.Kind, f.MinLevel), nil
	}
	names, err := l.store.Names(f.Source)
	if err != nil {
		return 0, err
	}
	var n uint64
	for i := range names {
		if f.Name == "" || names[i].Name == f.Name {
			n += names[i].Count(f.Kind, f.MinLevel)
		}
	}
	return n, nil
}

// searchList answers a query of filters only through the store's List.
func (l *Log) searchList(q *SearchQuery, before uint64, st Stats, idx Index) (SearchPage, error) {
	pg, err := l.store.List(Query{Filter: q.Filter, Count: q.Limit, Before: before})
	if err != nil {
		return SearchPage{}, err
	}
	p := SearchPage{Hits: make([]SearchHit, len(pg.Records)), Total: pg.Total, TotalExact: true, Damaged: pg.Damaged}
	for i := range pg.Records {
		p.Hits[i].Record = pg.Records[i]
	}
	if idx != nil {
		p.IndexedThrough = idx.Status().IndexedThrough
	}
	if pg.More && len(pg.Records) > 0 {
		p.NextCursor = EncodeCursor(st.Revision, pg.Records[len(pg.Records)-1].ID)
	}
	return p, nil
}

// MatchSearch checks the structured conditions of q (its Filter, Tool and
// Status, not its query string) against r.
func (q *SearchQuery) MatchSearch(r *Record) bool {
	return q.Filter.Match(r) && (q.Tool == "" || r.Tool == q.Tool) && (q.Status == 0 || r.Status == q.Status) &&
		(q.ReplayOf == 0 || r.ReplayOf == q.ReplayOf)
}

// EncodeCursor is the cursor of a search page that goes on below lastID
// (the last hit a reader was shown) in the log's generation revision: a
// SearchQuery with it as Cursor answers the hits after lastID. A reader
// that shows fewer hits than a page holds continues with it instead of
// the page's NextCursor.
func EncodeCursor(revision, lastID uint64) string {
	b := []byte{cursorVersion}
	b = binary.AppendUvarint(b, revision)
	b = binary.AppendUvarint(b, lastID)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor: its log's revision, the last ID shown, and
// how many bytes of the query its pages leave out (pasted).
func decodeCursor(s string) (revision, lastID, lead uint64, err error) {
	bad := Errorf(EINVALID, "cursor: not a cursor of this server; pass nextCursor as it came")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 3 || b[0] != cursorVersion {
		return 0, 0, 0, bad
	}
	revision, n := binary.Uvarint(b[1:])
	if n <= 0 {
		return 0, 0, 0, bad
	}
	lastID, m := binary.Uvarint(b[1+n:])
	if m <= 0 || lastID == 0 {
		return 0, 0, 0, bad
	}
	if rest := b[1+n+m:]; len(rest) > 0 {
		var k int
		if lead, k = binary.Uvarint(rest); k != len(rest) || lead == 0 {
			return 0, 0, 0, bad
		}
	}
	return revision, lastID, lead, nil
}

// leadCursor is cursor c ("" for none) of pages that leave out the first
// lead bytes of their query.
func leadCursor(c string, lead uint64) string {
	if c == "" {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		panic("BUG: a cursor of this server does not decode: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(binary.AppendUvarint(b, lead))
}

// Fragment returns up to about 160 bytes of r's text (else its stack)
// around the first word that one of terms matches, with that word marked
// **like this**; "" when none is there. A word is a run of letters, digits
// and underscores, and a term matches a whole word, never a part of one:
// a term is a lower-case word, equal to the word in lower case, or a
// pattern (a prefix search's crash* among them) where * stands for any run
// of characters and ? for one, matched against the whole lower-cased word.
func Fragment(r *Record, terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	// Words and patterns apart, once: a word's inflections make many terms.
	var words []string
	var patterns []*regexp.Regexp
	for _, t := range terms {
		if !strings.ContainsAny(t, "*?") {
			words = append(words, t)
		} else if re, err := regexp.Compile(`^(?s:` + ql.WildcardRegexp(t) + `)$`); err == nil {
			patterns = append(patterns, re)
		}
	}
	for _, s := range []string{r.Text, r.Stack} {
		if f := fragment(s, words, patterns); f != "" {
			return f
		}
	}
	return ""
}

// fragment cuts s around its first word that words or patterns match (see
// Fragment); a word is a run of query.IsWordRune, as the index reads them.
func fragment(s string, words []string, patterns []*regexp.Regexp) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !ql.IsWordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !ql.IsWordRune(r) {
				break
			}
			j += n
		}
		if matchesWord(words, patterns, strings.ToLower(s[i:j])) {
			return around(s, i, j)
		}
		i = j
	}
	return ""
}

// around is s[i:j] marked **like this**, with what surrounds it within
// fragmentBytes, on one line.
func around(s string, i, j int) string {
	from, to := max(0, i-fragmentBytes/3), min(len(s), j+fragmentBytes*2/3)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	b.WriteString(OneLine(s[from:i], false))
	b.WriteString("**" + s[i:j] + "**")
	b.WriteString(OneLine(s[j:to], false))
	if to < len(s) {
		b.WriteString("…")
	}
	return b.String()
}

// matchesWord reports whether one of words or patterns (see Fragment)
// matches the lower-cased word w.
func matchesWord(words []string, patterns []*regexp.Regexp, w string) bool {
	if slices.Contains(words, w) {
		return true
	}
	for _, p := range patterns {
		if p.MatchString(w) {
			return true
		}
	}
	return false
}
