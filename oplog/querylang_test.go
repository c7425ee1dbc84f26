package oplog

import (
	"fmt"
	"strings"
	"testing"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// TestParseQuery checks the values of level, kind and status: spelled as
// stored, any for every record, a bad one pointed at.
func TestParseQuery(t *testing.T) {
	f := func(s, want string) {
		t.Helper()
		n, err := ParseQuery(s)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", s, err)
		}
		if got := ql.String(n); got != want {
			t.Fatalf("ParseQuery(%q) = %s, want %s", s, got, want)
		}
	}
	f(`level:Warning`, `level:warn`)
	f(`level:exception kind:operation status:ok`, `and(level:error kind:op status:success)`)
	f(`level:"Warning"`, `level:"warn"`)
	f(`kind:any -kind:all`, `and(* not(*))`)
	f(`level:ERR*`, `level:ERR*`) // matches a value: as written, compilers fold its case
	f(`level:eror~1`, `level:eror~1`)
	f(`name:Warning`, `name:Warning`)

	g := func(s string, col int, what string) {
		t.Helper()
		_, err := ParseQuery(s)
		want := fmt.Sprintf("query: bad value at character %d: %s\n  %s\n  %s^", col, what, s, strings.Repeat(" ", col-1))
		if ErrorCode(err) != EINVALID || ErrorMessage(err) != want {
			t.Fatalf("ParseQuery(%q): got %v, want EINVALID with\n%s", s, err, want)
		}
	}
	levels := "expected debug, info, warn, error or fatal"
	g(`level:bogus`, 7, `unknown level "bogus"; `+levels)
	g(`é +level:"so bad"`, 10, `unknown level "so bad"; `+levels)
	g(`level:exc*`, 7, `unknown level "exc*"; `+levels)
	g(`level:/x.*/`, 7, `unknown level "/x.*/"; `+levels)
	g(`level:>=3`, 7, `unknown level ">=3"; `+levels)
	g(`status:3`, 8, `unknown status "3"; expected pending, success, error, timeout, cancelled or crashed`)
	f(`template:3F2A9C1B7D0E`, `template:3f2a9c1b7d0e`)
	f(`template:"3f2a9c1b7d0e"`, `template:3f2a9c1b7d0e`)
	f(`template:123456789012`, `template:123456789012`)
	f(`template:3f2A*`, `template:3f2a*`)
	tmpl := func(v string) string {
		return fmt.Sprintf("template takes a template ID, 12 hex digits (template:3f2a9c1b7d0e), or the start of one (template:3f2a*), not %q", v)
	}
	g(`template:3f2a9c1b7d0`, 10, tmpl("3f2a9c1b7d0"))
	g(`a template:nothex000000`, 12, tmpl("nothex000000"))
	g(`template:3f2a9c1b7d0e~1`, 10, tmpl("3f2a9c1b7d0e~1"))
	g(`template:>=3`, 10, tmpl(">=3"))
	g(`template:xyz*`, 10, tmpl("xyz*"))
	g(`template:*ffff`, 10, tmpl("*ffff"))
	g(`template:3f?a*`, 10, tmpl("3f?a*"))
	g(`template:/3f.*/`, 10, tmpl("/3f.*/"))
	if n, err := ParseQuery(`template:*`); err != nil {
		t.Fatalf("ParseQuery(template:*): %v", err)
	} else if p, ok := n.(*ql.Prefix); !ok || p.Field != ql.TemplateField || p.Prefix != "" {
		t.Fatalf("ParseQuery(template:*) = %#v; want any template, the prefix \"\"", n)
	}
	if _, err := ParseQuery(`a OR`); ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), "OR needs a term after it") {
		t.Fatalf("syntax error: %v", err)
	}
}

// TestHighlightWords: the words fragments mark, in both scopes: text
// terms lower-cased, a bare word with its inflections, a prefix or
// wildcard kept whole as a pattern; excluded terms (NOT, -) and other
// fields left out, a doubly excluded term kept.
func TestHighlightWords(t *testing.T) {
	f := func(q, want string) {
		t.Helper()
		n, err := ParseQuery(q)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", q, err)
		}
		if got := strings.Join(HighlightWords(n), ","); got != want {
			t.Errorf("HighlightWords(%q) = %q, want %q", q, got, want)
		}
	}
	f(`Null Reference`, strings.Join(append(ql.Inflections("null"), ql.Inflections("reference")...), ","))
	f(`Crashed "spawn" text:fail~1`, strings.Join(ql.Inflections("crashed"), ",")+",spawn,fail")
	f(`"object reference" AND name:Spawner`, "object,reference")
	f(`Crash* -crashed`, "crash*")
	f(`crash* AND NOT physics`, "crash*")
	f(`"null" NOT (boom AND NOT "spawn")`, "null,spawn")
	f(`text:cr?sh stack:"Game.Update"`, "cr?sh,game,update")
	f(`(crash* OR fail*) +"wave"`, "crash*,fail*,wave")
	f(`* ?`, "")
	f(`level:error source:unity*`, "")
}

// TestSearchQuery_Node: the query's tree with the filters ANDed to it as
// leaves, read when a target compiles it; Tree, when set, is not parsed
// again.
func TestSearchQuery_Node(t *testing.T) {
	q := SearchQuery{Query: "crash", Filter: Filter{MinLevel: LevelError, Kind: KindLine, WithMarkers: true, Name: "n",
		Runs: map[string]uint64{"unity": 3}}, Tool: "run", Status: StatusSuccess, ReplayOf: 7}
	n, err := q.Node()
	if err != nil {
		t.Fatal(err)
	}
	const want = `and(crash or(level:"error" level:"fatal") or(kind:"line" kind:"marker") name:"n" tool:"run" status:"success" replayOf:"7" or(and(source:"unity" run:"3")))`
	if got := ql.String(n); got != want {
		t.Errorf("Node = %s\n want %s", got, want)
	}
	q = SearchQuery{Query: "(broken", Tree: &ql.Term{Text: "parsed"}}
	if n, err = q.Node(); err != nil || ql.String(n) != "parsed" {
		t.Errorf("Node with Tree = %s, %v; want the Tree, unparsed", ql.String(n), err)
	}
	if n, err = (&SearchQuery{}).Node(); err != nil || ql.String(n) != "*" {
		t.Errorf("Node of nothing = %s, %v; want *", ql.String(n), err)
	}
	if _, err = (&SearchQuery{Query: "(broken"}).Node(); ErrorCode(err) != EINVALID {
		t.Errorf("Node of a bad query: %v, want EINVALID", err)
	}
}

// TestCheckValue_EverySample: every node type of the language
// (ql.Samples) is one the value checks know; a type they do not know
// would be refused, so a new leaf cannot skip its check unseen.
func TestCheckValue_EverySample(t *testing.T) {
	for _, n := range ql.Samples() {
		_, err := ql.Map(n, func(leaf ql.Node) (ql.Node, error) { return checkValue(ql.String(n), leaf) })
		if err != nil && strings.Contains(err.Error(), "cannot check") {
			t.Errorf("%s: %v", ql.String(n), err)
		}
		HighlightWords(n) // walks every node without a panic
	}
}
