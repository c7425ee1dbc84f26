package oplog

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// An empty answer is a dead end for an agent: "0 hits" says nothing of
// what to send next. So the first page of a search that finds nothing
// carries a SearchHint, one line with a request that does find records,
// as search engines' "did you mean" and Loki's empty-result help do:
// first the query with its misspelt words corrected (the index's words
// within a few edits, the one most records hold among the closest), else
// the request without the filter that shuts out the most, else the span
// of time the log holds. Every suggestion is searched before it is made,
// and its count is that search's total, so sending it finds them.

// SearchHint is what an empty search suggests sending instead (see
// Log.Search): a request that finds records. The zero SearchHint (no
// Text) is no hint.
type SearchHint struct {
	// Text is the hint on one line, its arguments written name="value":
	// `0 hits; did you mean query="walkable" (37 records)?`.
	Text string `json:"text"`
	// Args are the arguments to send as is, by the names every surface
	// takes (query, level, name, source, kind, tool, status, replayOf,
	// run, since, until; the command line's QUERY and --flags); nil when
	// the log holds no records.
	Args map[string]string `json:"args,omitempty"`
	// Records is how many records Args find (that search's total: an
	// estimate when the index estimated it).
	Records int64 `json:"records"`
}

// WordCount is a word an Index holds, with about how many records hold it.
type WordCount struct {
	Word     string // lower case, as the index holds it
	Records  int64  // records holding it, about (see Index.Words)
	Distance int    // edits from the word asked (Damerau–Levenshtein)
}

// hintPage is how many hits a hint's trial search counts before it
// takes the search's total, which may be an estimate.
const hintPage = 100

// hintCandidates is how many of a word's closest words a hint tries.
const hintCandidates = 3

// hintArgs is the order of a hint's arguments in its text.
var hintArgs = []string{"query", "level", "name", "source", "kind", "tool", "status", "replayOf", "run", "since", "until", "scope", "machine"}

// hintFilters are the arguments a filter hint may drop.
var hintFilters = hintArgs[1:11]

// suggestEdits is how many edits away a word's suggestions may be, by
// its length as Elasticsearch's AUTO fuzziness: none for one or two
// characters (any word is that close), one up to five, else two.
func suggestEdits(w string) int {
	switch n := utf8.RuneCountInString(w); {
	case n <= 2:
		return 0
	case n <= 5:
		return 1
	}
	return 2
}

// hint builds the SearchHint of q, a search whose first page was empty
// (nil when none could be built; a trial search that fails counts as
// finding nothing).
func (l *Log) hint(ctx context.Context, q SearchQuery) *SearchHint {
	q.Cursor = ""
	q.wholeSeconds()
	if h := l.panicHint(ctx, &q); h != nil {
		return h
	}
	if h := l.headerHint(ctx, &q); h != nil {
		return h
	}
	if h := l.lineHint(ctx, &q); h != nil {
		return h
	}
	if h := l.operatorHint(ctx, &q); h != nil {
		return h
	}
	if h := l.wordHint(ctx, &q); h != nil {
		return h
	}
	if h := l.leadHint(ctx, &q); h != nil {
		return h
	}
	if h := filterHint(ctx, &q, l.trial, nil); h != nil {
		return h
	}
	// Both: the words corrected, a filter dropped ("walkabel level:error"
	// where walkable was logged at warn).
	if wrong, cands := l.misspelt(ctx, &q); len(wrong) > 0 {
		c := withClosest(&q, wrong, cands)
		if h := filterHint(ctx, &c, l.trial, nil); h != nil {
			return h
		}
	}
	return l.rangeHint()
}

// wholeSeconds widens q's time bounds outwards to whole seconds: a hint
// is read and sent back as is, its bounds not a time word's nanoseconds,
// and its counts are of those bounds.
func (q *SearchQuery) wholeSeconds() {
	q.Since = q.Since.Truncate(time.Second)
	if u := q.Until.Truncate(time.Second); !u.Equal(q.Until) {
		q.Until = u.Add(time.Second)
	}
}

// trialFunc is how many records q finds where a hint is made, and
// whether that count is exact.
type trialFunc func(ctx context.Context, q *SearchQuery) (n int64, exact bool)

// trial is how many records q finds (zero on an error), counted when
// they are a page's worth (hintPage), else the search's total, which
// exact says it is or an estimate.
func (l *Log) trial(ctx context.Context, q *SearchQuery) (n int64, exact bool) {
	c := *q
	c.Limit = hintPage
	p, err := l.search(ctx, c)
	switch {
	case err != nil || len(p.Hits) == 0:
		return 0, true
	case p.NextCursor == "":
		return int64(len(p.Hits)), true
	}
	return p.Total, p.TotalExact
}

// wordHint corrects the words of q's query that no record holds into the
// index's closest words, and returns the hint if the corrected query finds
// records.
func (l *Log) wordHint(ctx context.Context, q *SearchQuery) *SearchHint {
	wrong, cands := l.misspelt(ctx, q)
	switch len(wrong) {
	case 0:
		return nil
	case 1:
		return l.bestWord(ctx, q, wrong[0], cands[0])
	}
	// Several: the closest word of each, together.
	c := withClosest(q, wrong, cands)
	if n, exact := l.trial(ctx, &c); n > 0 {
		return wordHint(&c, n, exact, nil)
	}
	return nil
}

// misspelt returns the words of q's query that no record holds but the
// index holds words close to, each with those (closest and most held
// first).
func (l *Log) misspelt(ctx context.Context, q *SearchQuery) (wrong []*ql.Term, cands [][]WordCount) {
	idx := l.getIndex()
	if idx == nil || strings.TrimSpace(q.Query) == "" {
		return nil, nil
	}
	tree := q.Tree
	if tree == nil {
		var err error
		if tree, err = ParseQuery(q.Query); err != nil {
			return nil, nil
		}
	}
	for _, t := range fixableTerms(tree, q.Query) {
		w := strings.ToLower(t.Text)
		n := suggestEdits(w)
		if n == 0 {
			continue
		}
		ws, err := idx.Words(ctx, w, n, hintCandidates+1)
		if err != nil || len(ws) == 0 || ws[0].Distance == 0 {
			continue // unknown, or held as written
		}
		wrong, cands = append(wrong, t), append(cands, ws)
	}
	return wrong, cands
}

// withClosest is q with each of the wrong words replaced by its closest.
func withClosest(q *SearchQuery, wrong []*ql.Term, cands [][]WordCount) SearchQuery {
	c := *q
	c.Tree = nil
	for i := len(wrong) - 1; i >= 0; i-- { // from the end: the offsets before stay
		c.Query = c.Query[:wrong[i].At] + cands[i][0].Word + c.Query[wrong[i].At+len(wrong[i].Raw):]
	}
	return c
}

// bestWord tries q with t replaced by each of ws in turn (closest first,
// then the most held, as the index orders them) and returns the hint of
// the first that finds records.
func (l *Log) bestWord(ctx context.Context, q *SearchQuery, t *ql.Term, ws []WordCount) *SearchHint {
	for i := 0; i < len(ws) && i < hintCandidates; i++ {
		c := *q
		c.Query, c.Tree = q.Query[:t.At]+ws[i].Word+q.Query[t.At+len(t.Raw):], nil
		if n, exact := l.trial(ctx, &c); n > 0 {
			return wordHint(&c, n, exact, nil)
		}
	}
	return nil
}

// wordHint is the hint of corrected query c, which finds n records;
// extra are arguments its request carries too.
func wordHint(c *SearchQuery, n int64, exact bool, extra map[string]string) *SearchHint {
	args, _ := c.hintArgs()
	maps.Copy(args, extra)
	return &SearchHint{Text: "0 hits; did you mean " + argsText(args) + " (" + records(n, exact) + ")?", Args: args, Records: n}
}

// fixableTerms returns the leaves of tree a suggestion may replace: one
// plain word (no fuzziness) on text, stack or both, not under a NOT,
// written at its Pos of query as one word; in the order written.
func fixableTerms(tree ql.Node, query string) []*ql.Term {
	var out []*ql.Term
	var walk func(n ql.Node)
	walk = func(n ql.Node) {
		switch n := n.(type) {
		case *ql.And:
			for _, m := range n.Nodes {
				walk(m)
			}
		case *ql.Or:
			for _, m := range n.Nodes {
				walk(m)
			}
		case *ql.Term:
			if (n.Field == "" || slices.Contains(ql.TextFields, n.Field)) && n.Fuzzy == 0 && n.Raw != "" &&
				n.At >= 0 && n.At+len(n.Raw) <= len(query) && query[n.At:n.At+len(n.Raw)] == n.Raw &&
				strings.EqualFold(n.Raw, n.Text) && isOneWord(n.Text) {
				out = append(out, n)
			}
		}
	}
	walk(tree)
	slices.SortFunc(out, func(a, b *ql.Term) int { return a.At - b.At })
	return out
}

// isOneWord reports whether s is one word as the index reads words.
func isOneWord(s string) bool {
	for _, r := range s {
		if !ql.IsWordRune(r) {
			return false
		}
	}
	return s != ""
}

// filterHint drops each of q's filters in turn and returns the hint of
// the one whose removal finds the most records, counted by trial; extra
// are arguments every request of the hint carries (a studio's scope).
func filterHint(ctx context.Context, q *SearchQuery, trial trialFunc, extra map[string]string) *SearchHint {
	var best SearchQuery
	var bestName, bestValue string
	var bestN int64
	var bestExact bool
	all, _ := q.hintArgs()
	for _, name := range hintFilters {
		c := *q
		if !c.drop(name) {
			continue
		}
		if _, ok := c.hintArgs(); !ok {
			continue
		}
		if n, exact := trial(ctx, &c); n > bestN {
			best, bestName, bestValue, bestN, bestExact = c, name, all[name], n, exact
		}
	}
	// A filter may be written in the query too: level:error.
	for _, leaf := range queryFilters(q) {
		c := *q
		var ok bool
		if c.Query, ok = withoutLeaf(q.Query, leaf); !ok {
			continue
		}
		c.Tree = nil
		if n, exact := trial(ctx, &c); n > bestN {
			best, bestName, bestValue, bestN, bestExact = c, leafText(q.Query, leaf), "", n, exact
		}
	}
	if bestN == 0 {
		return nil
	}
	args, _ := best.hintArgs()
	maps.Copy(args, extra)
	without := bestName
	if bestValue != "" {
		without += "=" + strconv.Quote(bestValue)
	}
	if bestName == "run" && len(q.Runs) != 1 {
		without = "run"
	}
	text := "0 hits; without " + without + ": " + argsText(args) + " (" + records(bestN, bestExact) + ")"
	if len(args) == 0 {
		text = "0 hits; without " + without + ", with no arguments (" + records(bestN, bestExact) + ")"
	}
	return &SearchHint{Text: text, Args: args, Records: bestN}
}

// queryFilters returns the leaves of q's query on a field that is not
// text nor stack (level:error, name:Player), written in it, that an AND
// at its top (or the query alone) holds: what dropping from the query
// widens it as dropping a filter argument does.
func queryFilters(q *SearchQuery) []ql.Node {
	tree := q.Tree
	if tree == nil {
		var err error
		if tree, err = ParseQuery(q.Query); err != nil {
			return nil
		}
	}
	nodes := []ql.Node{tree}
	if and, ok := tree.(*ql.And); ok {
		nodes = and.Nodes
	}
	var out []ql.Node
	for _, n := range nodes {
		if f, ok := ql.Field(n); ok && f != "" && !slices.Contains(ql.TextFields, f) && leafText(q.Query, n) != "" {
			out = append(out, n)
		}
	}
	return out
}

// leafText is leaf as written in query, field: and all ("" when its
// position does not say where).
func leafText(query string, leaf ql.Node) string {
	f, _ := ql.Field(leaf)
	p := ql.PosOf(leaf)
	from, to := p.At-len(f)-1, p.At+len(p.Raw)
	if p.Raw == "" || from < 0 || to > len(query) || !strings.EqualFold(query[from:p.At], f+":") {
		return ""
	}
	return query[from:to]
}

// withoutLeaf is query without leaf (see leafText) and an AND it leaves
// dangling; false when what is left does not parse, or is empty.
func withoutLeaf(query string, leaf ql.Node) (string, bool) {
	text := leafText(query, leaf)
	if text == "" {
		return "", false
	}
	f, _ := ql.Field(leaf)
	at := ql.PosOf(leaf).At - len(f) - 1
	words := strings.Fields(query[:at] + " " + query[at+len(text):])
	var kept []string
	for i, w := range words {
		and := w == "AND"
		if and && (len(kept) == 0 || kept[len(kept)-1] == "AND" || i == len(words)-1) {
			continue
		}
		kept = append(kept, w)
	}
	out := strings.Join(kept, " ")
	if out == "" {
		return "", false
	}
	if _, err := ParseQuery(out); err != nil {
		return "", false
	}
	return out, true
}

// drop removes filter name from q, reporting whether q had it.
func (q *SearchQuery) drop(name string) bool {
	f := &q.Filter
	had := true
	switch name {
	case "level":
		had, f.MinLevel = f.MinLevel != 0, 0
	case "name":
		had, f.Name = f.Name != "", ""
	case "source":
		had, f.Source = f.Source != "", ""
	case "kind":
		had, f.Kind = f.Kind != 0, 0
	case "tool":
		had, q.Tool = q.Tool != "", ""
	case "status":
		had, q.Status = q.Status != 0, 0
	case "replayOf":
		had, q.ReplayOf = q.ReplayOf != 0, 0
	case "run":
		had, f.Runs = f.Runs != nil, nil
	case "since":
		had, f.Since = !f.Since.IsZero(), time.Time{}
	case "until":
		had, f.Until = !f.Until.IsZero(), time.Time{}
	default:
		panic("BUG: no filter " + name)
	}
	return had
}

// rangeHint is the hint of the time the log's records span.
func (l *Log) rangeHint() *SearchHint {
	st := l.store.Stats()
	if st.Records == 0 {
		return &SearchHint{Text: "0 hits; the log holds no records yet"}
	}
	newest, err := l.store.List(Query{Count: 1})
	if err != nil || len(newest.Records) == 0 {
		return nil
	}
	oldest, err := l.store.Get(st.FirstID)
	if err != nil {
		return nil
	}
	// (The oldest ID's time and the newest's; a clock that went back puts them the other way round.)
	a, b := oldest.Time.UTC(), newest.Records[0].Time.UTC()
	if b.Before(a) {
		a, b = b, a
	}
	since, until := a.Truncate(time.Second), b.Truncate(time.Second).Add(time.Second)
	args := map[string]string{"since": since.Format(time.RFC3339), "until": until.Format(time.RFC3339)}
	return &SearchHint{Text: "0 hits; the log's records span " + argsText(args) + " (" + records(int64(st.Records), true) + ")",
		Args: args, Records: int64(st.Records)}
}

// hintArgs writes q as the arguments of a request; ok is false when its
// runs cannot be written so (several sources' runs, or none).
func (q *SearchQuery) hintArgs() (args map[string]string, ok bool) {
	args = map[string]string{}
	set := func(name, v string) {
		if v != "" {
			args[name] = v
		}
	}
	f := &q.Filter
	set("query", q.Query)
	if f.MinLevel != 0 {
		set("level", f.MinLevel.String())
	}
	set("name", f.Name)
	set("source", f.Source)
	if f.Kind != 0 {
		set("kind", f.Kind.String())
	}
	set("tool", q.Tool)
	if q.Status != 0 {
		set("status", q.Status.String())
	}
	if q.ReplayOf != 0 {
		set("replayOf", strconv.FormatUint(q.ReplayOf, 10))
	}
	ok = true
	if f.Runs != nil {
		// One source's run is that source's run number; several are no one argument.
		if ok = len(f.Runs) == 1; ok {
			for s, n := range f.Runs {
				set("source", s)
				set("run", strconv.FormatUint(n, 10))
			}
		}
	}
	if !f.Since.IsZero() {
		set("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	if !f.Until.IsZero() {
		set("until", f.Until.UTC().Format(time.RFC3339Nano))
	}
	return args, ok
}

// argsText writes args name="value", in hintArgs' order.
func argsText(args map[string]string) string {
	var b strings.Builder
	for _, name := range hintArgs {
		if v, ok := args[name]; ok {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(name + "=" + strconv.Quote(v))
		}
	}
	return b.String()
}

// records is "1 record" or "n records", "about n records" when not
// exact.
func records(n int64, exact bool) string {
	s := strconv.FormatInt(n, 10) + " records"
	if n == 1 {
		s = "1 record"
	}
	if !exact {
		s = "about " + s
	}
	return s
}

// Searcher is what FilterHint asks: a *Log, or a client of one.
type Searcher interface {
	Search(ctx context.Context, q SearchQuery) (SearchPage, error)
}

// FilterHint is the hint of a list of f's records (a read without a
// query: get_logs, GET /api/v1/records, mcplogd tail) whose first page
// came back empty: s's Search hint for f alone, its text saying "0
// records". Nil when f has no condition (an empty log is no mistake of
// the reader's) or the search fails.
func FilterHint(ctx context.Context, s Searcher, f Filter) *SearchHint {
	if !f.Narrows() {
		return nil
	}
	f.WithMarkers = false // a search's kind line is lines only: dropping kind is a suggestion of its own
	p, err := s.Search(ctx, SearchQuery{Filter: f, Limit: 1, Hint: true})
	if err != nil {
		return nil
	}
	return listHint(p.Hint)
}

// listHint is h, a search's hint, as a list's: its text says "0 records".
func listHint(h *SearchHint) *SearchHint {
	if h == nil {
		return nil
	}
	c := *h
	if rest, ok := strings.CutPrefix(c.Text, "0 hits;"); ok {
		c.Text = "0 records;" + rest
	}
	return &c
}
