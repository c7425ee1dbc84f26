package search

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
)

// show renders a query tree compactly, for tests: and(...), or(...),
// (must -mustNot) for a boolean query, field:value for leaves, * for
// match-all.
func show(q query.Query) string {
	field := func(f string) string {
		if f == "" {
			return ""
		}
		return f + ":"
	}
	list := func(name string, qs []query.Query) string {
		if len(qs) == 1 {
			return show(qs[0])
		}
		parts := make([]string, len(qs))
		for i, q := range qs {
			parts[i] = show(q)
		}
		return name + "(" + strings.Join(parts, " ") + ")"
	}
	switch q := q.(type) {
	case nil:
		return "<nil>"
	case *cutQuery:
		return show(q.leaf)
	case *query.MatchAllQuery:
		return "*"
	case *query.MatchNoneQuery:
		return "none"
	case *query.ConjunctionQuery:
		return list("and", q.Conjuncts)
	case *query.DisjunctionQuery:
		return list("or", q.Disjuncts)
	case *query.BooleanQuery:
		var parts []string
		if q.Must != nil {
			parts = append(parts, show(q.Must))
		}
		if q.Should != nil {
			parts = append(parts, show(q.Should))
		}
		if q.MustNot != nil {
			parts = append(parts, "-"+show(q.MustNot))
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "(" + strings.Join(parts, " ") + ")"
	case *query.MatchQuery:
		s := field(q.FieldVal) + q.Match
		if q.Fuzziness != 0 {
			s += fmt.Sprintf("~%d", q.Fuzziness)
		}
		if q.BoostVal != nil {
			s += fmt.Sprintf("^%g", float64(*q.BoostVal))
		}
		return s
	case *query.MatchPhraseQuery:
		return field(q.FieldVal) + `"` + q.MatchPhrase + `"`
	case *query.TermQuery:
		return field(q.FieldVal) + "=" + q.Term
	case *query.WildcardQuery:
		return field(q.FieldVal) + q.Wildcard
	case *query.PrefixQuery:
		return field(q.FieldVal) + q.Prefix + "*"
	case *query.RegexpQuery:
		return field(q.FieldVal) + "/" + q.Regexp + "/"
	case *query.NumericRangeQuery:
		s := field(q.FieldVal)
		if q.Min != nil {
			s += fmt.Sprintf(">%s%g", map[bool]string{true: "=", false: ""}[q.InclusiveMin != nil && *q.InclusiveMin], *q.Min)
		}
		if q.Max != nil {
			s += fmt.Sprintf("<%s%g", map[bool]string{true: "=", false: ""}[q.InclusiveMax != nil && *q.InclusiveMax], *q.Max)
		}
		return s
	case *query.DateRangeQuery:
		return field(q.FieldVal) + "range(" + q.Start.Format(time.RFC3339) + ".." + q.End.Format(time.RFC3339) + ")"
	case *phraseQuery:
		words := make([]string, len(q.words))
		for i, w := range q.words {
			words[i] = fmt.Sprintf("%s@%d", w.term, w.at)
		}
		return q.field + `:phrase(` + strings.Join(words, " ") + ")"
	case *inflectQuery:
		return q.field + ":inflect(" + q.forms[0] + ")"
	case *timeRangeQuery:
		return fmt.Sprintf("time(%s %v .. %s %v)", q.start.Format(time.RFC3339), q.inclStart, q.end.Format(time.RFC3339), q.inclEnd)
	}
	return fmt.Sprintf("%T", q)
}

// firstLeaf returns the first query of q's tree that has no others in it.
func firstLeaf(q query.Query) query.Query {
	switch q := q.(type) {
	case *cutQuery:
		return q.leaf
	case *query.BooleanQuery:
		for _, sub := range []query.Query{q.Must, q.Should, q.MustNot} {
			if sub != nil {
				return firstLeaf(sub)
			}
		}
	case *query.ConjunctionQuery:
		if len(q.Conjuncts) > 0 {
			return firstLeaf(q.Conjuncts[0])
		}
	case *query.DisjunctionQuery:
		if len(q.Disjuncts) > 0 {
			return firstLeaf(q.Disjuncts[0])
		}
	}
	return q
}

// TestCompile checks what a query becomes for bleve: fields, values spelled
// as indexed, words for fragments, and the errors of the whole query.
func TestCompile(t *testing.T) {
	an := newAnalyzers(newMapping())
	// f compiles query and checks the tree (want, "" for any) and the
	// words for fragments (terms, nil for any).
	f := func(s, want string, terms []string) {
		t.Helper()
		c, err := an.compile(&oplog.SearchQuery{Query: s})
		if err != nil {
			t.Fatalf("compile(%q): %v", s, err)
		}
		if got := show(c.q); want != "" && got != want {
			t.Fatalf("compile(%q) = %s, want %s", s, got, want)
		}
		if terms != nil && strings.Join(c.terms, ",") != strings.Join(terms, ",") {
			t.Fatalf("compile(%q): terms %v, want %v", s, c.terms, terms)
		}
	}
	f(`level:error AND name:Physics "null reference"`, "", []string{"null", "reference"})
	f(`level:Error name:Physics NOT text:timeout`, "", nil)
	f(`(foo OR bar) AND NOT baz`, "", []string{"foo", "bar"})
	f(`time:>"2026-01-01T00:00:00Z" Physi*`, "", []string{"physi*"})

	// Unqualified words search text and stack; message and msg are text.
	f(`foo`, `or(text:foo stack:foo)`, []string{"foo"})
	f(`message:foo`, `text:foo`, []string{"foo"})
	f(`msg:foo`, `text:foo`, []string{"foo"})
	f(`stack:NullReference`, `stack:inflect(nullreference)`, nil)
	// A bare word of a stem of four letters or more matches its inflections
	// too, and fragments mark them; quoted, fuzzy or short, it is exact.
	f(`Crashed`, `or(text:inflect(crashed) stack:inflect(crashed))`,
		[]string{"crashed", "crash", "crashe", "crashes", "crashing"})
	f(`"crash"`, `or(text:=crash stack:=crash)`, []string{"crash"})
	f(`text:crash~1`, `text:crash~1`, []string{"crash"})
	f(`text:used`, `text:used`, []string{"used"})
	f(`name:crash`, `name:crash`, []string{})
	// Patterns ignore case, as words do; fragments mark the words they match.
	f(`Physi*`, `or(text:physi* stack:physi*)`, []string{"physi*"})
	f(`PHYSI*`, `or(text:physi* stack:physi*)`, []string{"physi*"})
	f(`text:BossFi*`, `text:bossfi*`, []string{"bossfi*"})
	f(`stack:Te?T`, `stack:te?t`, []string{"te?t"})
	f(`crash* "null reference" Te?T*`, "", []string{"crash*", "null", "reference", "te?t*"})
	f(`text:* stack:?*`, "", []string{}) // a pattern of any word marks none
	f(`crash* -crashed*`, "", []string{"crash*"})
	f(`name:Phys* source:Uni*`, "", []string{})
	// word* runs as a prefix, not a wildcard; other patterns stay wildcards.
	for q, prefix := range map[string]bool{`text:BossFi*`: true, `text:a*b*`: false, `text:Te?T*`: false, `text:*`: false} {
		c, err := an.compile(&oplog.SearchQuery{Query: q})
		if err != nil {
			t.Fatalf("compile(%q): %v", q, err)
		}
		if _, ok := firstLeaf(c.q).(*query.PrefixQuery); ok != prefix {
			t.Errorf("compile(%q) = %T (%s), want a prefix query: %v", q, c.q, show(c.q), prefix)
		}
	}
	f(`text:/Null.*EX/`, `text:/(?i)Null.*EX/`, nil)
	f(`/Physi.*/`, `or(text:/(?i)Physi.*/ stack:/(?i)Physi.*/)`, nil)
	// A bare number is a word.
	f(`3`, `or(text:3 stack:3)`, []string{"3"})

	// A word the analyzer splits is a phrase; phrases check word order.
	f(`Foo.cs`, `or(text:phrase(foo@0 cs@1) stack:phrase(foo@0 cs@1))`, []string{"foo", "cs"})
	f(`text:"null reference"`, `text:phrase(null@0 reference@1)`, []string{"null", "reference"})
	f(`text:"the end"`, `text:=end`, []string{"end"}) // stop words drop out
	// A phrase keeps its stop words' places; a bare stop word is left out
	// (oplog/query's stop.go), as are the words and phrases of only them.
	f(`text:"attempt to index"`, `text:phrase(attempt@0 index@2)`, []string{"attempt", "index"})
	f(`text:attempt text:to text:index`, `and(text:inflect(attempt) text:inflect(index))`, nil)
	f(`text:"needle" OR text:"of the"`, `text:=needle`, []string{"needle"})
	f(`to level:error`, `level:error`, []string{})

	// Keyword values are spelled as indexed.
	f(`level:Error`, `level:error`, []string{})
	f(`level:warning`, `level:warn`, nil)
	f(`kind:operation`, `kind:op`, nil)
	f(`status:ok`, `status:success`, nil)
	f(`name:"Main Camera"`, `name:=Main Camera`, []string{})
	f(`name:Phys*`, `name:Phys*`, []string{}) // name, source and tool match exactly: case and all
	f(`source:/Uni.*/`, `source:/Uni.*/`, nil)
	f(`tool:Spawn?`, `tool:Spawn?`, nil)
	f(`level:exception`, `level:error`, nil) // the spellings of oplog.ParseLevel
	f(`level:"Warning"`, `level:=warn`, nil)
	f(`level:ERR*`, `level:err*`, nil) // level, kind and status values are lower case
	f(`status:/Succ.*/`, `status:/(?i)Succ.*/`, nil)
	f(`level:eror~1`, `level:eror~1`, nil) // fuzzy: as written
	f(`kind:any`, `*`, nil)                // as the kind filter reads it
	f(`level:error -kind:all`, `(level:error -*)`, nil)
	f(`replayOf:12`, `replayOf:12`, nil) // a number is a word
	f(`run:2`, `run:2`, nil)
	f(`kind:marker`, `kind:marker`, nil)

	// Excluded words are no fragment words.
	f(`foo -bar`, "", []string{"foo"})
	f(`NOT (foo OR bar)`, "", []string{})

	// A time range in the query string reads the time column.
	c, err := an.compile(&oplog.SearchQuery{Query: `time:>="2026-05-01T12:00:00Z"`})
	if err != nil || !c.times || show(c.q) != `time(2026-05-01T12:00:00Z true .. 0001-01-01T00:00:00Z false)` {
		t.Fatalf("time range: %v, times %v, %s", err, c != nil && c.times, show(c.q))
	}
}

// TestCompile_Filters checks the filters beside the query string.
func TestCompile_Filters(t *testing.T) {
	an := newAnalyzers(newMapping())
	f := func(q oplog.SearchQuery, want string) {
		t.Helper()
		c, err := an.compile(&q)
		if err != nil {
			t.Fatalf("compile(%+v): %v", q, err)
		}
		if got := show(c.q); got != want {
			t.Fatalf("compile(%+v) = %s, want %s", q, got, want)
		}
	}
	f(oplog.SearchQuery{}, `*`)
	f(oplog.SearchQuery{Query: "  "}, `*`)
	f(oplog.SearchQuery{Filter: oplog.Filter{MinLevel: oplog.LevelError}}, `or(level:=error level:=fatal)`)
	f(oplog.SearchQuery{Filter: oplog.Filter{MinLevel: oplog.LevelDebug}}, `*`)
	f(oplog.SearchQuery{Filter: oplog.Filter{Name: "Physics", Source: "game", Kind: oplog.KindOp}}, `and(name:=Physics source:=game kind:=op)`)
	f(oplog.SearchQuery{Tool: "spawn", Status: oplog.StatusError, ReplayOf: 7}, `and(tool:=spawn status:=error replayOf:=7)`)
	f(oplog.SearchQuery{Query: "foo", Filter: oplog.Filter{Name: "Physics"}}, `and(or(text:foo stack:foo) name:=Physics)`)
	// Runs: each source with its run; an empty map matches none.
	f(oplog.SearchQuery{Filter: oplog.Filter{Runs: map[string]uint64{"unity": 2}}}, `and(source:=unity run:=2)`)
	f(oplog.SearchQuery{Filter: oplog.Filter{Runs: map[string]uint64{}}}, `none`)
	// A tail's kind: lines and markers.
	f(oplog.SearchQuery{Filter: oplog.Filter{Kind: oplog.KindLine, WithMarkers: true}}, `or(kind:=line kind:=marker)`)
}

// TestCompile_Errors checks the errors of compile: EINVALID, naming what
// is wrong.
func TestCompile_Errors(t *testing.T) {
	an := newAnalyzers(newMapping())
	f := func(s, want string) {
		t.Helper()
		_, err := an.compile(&oplog.SearchQuery{Query: s})
		if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(oplog.ErrorMessage(err), want) {
			t.Fatalf("compile(%q): got %v, want EINVALID with %q", s, err, want)
		}
	}
	f(`bogus:x`, `unknown field "bogus"`)
	f(`a:1.5`, `unknown field "a"; fields are text, stack, name, level, source, kind, tool, status, replayOf, run, template and time`)
	f(`time:2026`, `time takes a date range`)
	f(`time:>=2026-01-01`, `at character 6: time:>= takes a quoted time, such as time:>="2026-05-01T12:00:00Z"`)
	f(`name:Physics AND (level:error`, "at character 18: '(' is never closed")
	f(`a OR`, "OR needs a term after it")
	f(`AND a`, "AND needs a term before it")
	f(`a ) b`, "')' without a '('")
	f(`text:"open`, "never closed")
	f(`level:`, "at character 7: level: has no value; write one right after the colon, such as level:error")
	f(`name:`, "at character 6: name: has no value; write one right after the colon, such as name:Physics")
	f(`"a b"~1`, "a phrase takes no fuzziness (~)")
	f(`text:"a b"~1`, "a phrase takes no fuzziness (~)")
	f(`to`, "query: `to` is too common to search (it is left out of the index, so alone it matches nothing); add a rarer word or a phrase around it")
	f(`"of the" OR a`, "query: `of`, `the` and `a` are too common to search")
	f(`text:/[/`, `at character 6: regular expression /[/: missing closing ]: [`)

	// An unknown value of level, kind or status lists the values, and
	// points at it.
	g := func(s string, col int, what string) {
		t.Helper()
		_, err := an.compile(&oplog.SearchQuery{Query: s})
		want := fmt.Sprintf("query: bad value at character %d: %s\n  %s\n  %s^", col, what, s, strings.Repeat(" ", col-1))
		if oplog.ErrorCode(err) != oplog.EINVALID || oplog.ErrorMessage(err) != want {
			t.Fatalf("compile(%q): got %v, want EINVALID with\n%s", s, err, want)
		}
	}
	levels := "expected debug, info, warn, error or fatal"
	g(`level:bogus`, 7, `unknown level "bogus"; `+levels)
	g(`name:Physics AND (level:Bogus OR x)`, 25, `unknown level "Bogus"; `+levels)
	g(`a -level:bogus`, 10, `unknown level "bogus"; `+levels)
	g(`é +level:"so bad"`, 10, `unknown level "so bad"; `+levels) // characters, not bytes
	g(`level:exc*`, 7, `unknown level "exc*"; `+levels)           // matches no value as indexed
	g(`level:/x.*/`, 7, `unknown level "/x.*/"; `+levels)
	g(`level:>=3`, 7, `unknown level ">=3"; `+levels)
	g(`kind:x`, 6, `unknown kind "x"; expected line, op, marker or any`)
	g(`status:x`, 8, `unknown status "x"; expected pending, success, error, timeout, cancelled or crashed`)
	g(`status:3`, 8, `unknown status "3"; expected pending, success, error, timeout, cancelled or crashed`)
	g(`NOT status:running OR status:finished`, 30, `unknown status "finished"; expected pending, success, error, timeout, cancelled or crashed`)
	g(`x stack:/a**/`, 9, "regular expression /a**/: invalid nested repetition operator: **")
	f(strings.Repeat("a", maxQueryBytes+1), "query: 4097 bytes is over the limit of 4096")
	f("\xff", "query: not valid UTF-8")
}

func FuzzQuery(f *testing.F) {
	for _, s := range []string{`level:error AND name:Physics "null reference"`, `a OR (b AND NOT c)`, `time:>"2026-01-01"`,
		`text:/ab+c/`, `x~2 y^3 -z +w`, `"unterminated`, `((a)`, `\(a\)`, `name:"a b" OR kind:op`, `a:1.5`, `status:>=3`,
		`level:bogus`, `Physi* text:/N[a-z]+Ex/ level:ERR*`, `kind:any`, `level:"warning"`, `/(a|aa)*b/`, `abc~3`, `/`,
		`a/b/ -/(x)/ name:/(y) z/`} {
		f.Add(s)
	}
	an := newAnalyzers(newMapping())
	f.Fuzz(func(t *testing.T, s string) {
		_, err := an.compile(&oplog.SearchQuery{Query: s})
		if err != nil && (oplog.ErrorCode(err) != oplog.EINVALID || strings.Contains(err.Error(), "runtime error")) {
			t.Fatalf("%q: %v (code %s), want EINVALID saying what is wrong", s, err, oplog.ErrorCode(err))
		}
	})
}
