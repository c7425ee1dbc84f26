package querytest

import (
	"slices"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Base is the time of the first record; record i (from 1) is i-1 seconds
// after it, so records 11 and later are at or after the time of
// ql.Samples' time range, 2026-05-01T12:00:00Z.
var Base = time.Date(2026, 5, 1, 11, 59, 50, 0, time.UTC)

// rec is a record of Records: an operation when it has a tool.
type rec struct {
	level        oplog.Level
	source, name string
	text, stack  string
	tool         string       // an operation's
	status       oplog.Status // an operation's, completed in its append
	err          string       // an operation's error
}

// records are the records, ID i at index i-1. What each is for is beside
// it; the words a case looks for are chosen so that no other record holds
// them or a form of them (an inflection, a word within one edit).
var records = []rec{
	/* 1 */ {level: oplog.LevelError, source: "unity", name: "Physics", text: "NullReferenceException: Object reference not set",
		stack: "NullReferenceException\n  at Player.Update () in Assets/Scripts/Player.cs:42"}, // null.* but not null
	/* 2 */ {level: oplog.LevelInfo, source: "unity", name: "Physics", text: "physics step took 12 ms"},
	/* 3 */ {level: oplog.LevelWarn, source: "unity", name: "physics", text: "null reference in Update"}, // not name:Physics nor name:Phys*
	/* 4 */ {level: oplog.LevelInfo, source: "godot", name: "Main Camera", text: "camera moved 3 units"},
	/* 5 */ {level: oplog.LevelError, source: "godot", name: "Main", text: "the reference was null"}, // the words, not the phrase
	/* 6 */ {level: oplog.LevelInfo, source: "unity-editor", name: "PhysX", text: "PhysX scene created"}, // phys*, two edits from physcs
	/* 7 */ {level: oplog.LevelDebug, source: "unity", name: "Loader", text: "Loaded 12 assets in 340 ms"}, // one template
	/* 8 */ {level: oplog.LevelInfo, source: "unity", name: "Loader", text: "Loaded 7 assets in 95 ms"}, // the same template
	/* 9 */ {level: oplog.LevelInfo, source: "unity", name: "Loader", text: "Loaded assets from cache"}, // another
	/* 10 */ {level: oplog.LevelWarn, source: "community-mod", name: "main camera", text: "physcs typo in the mod"}, // uni inside its source, not at the start
	/* 11 */ {level: oplog.LevelError, source: "unity", name: "Net", text: "null, reference while connecting",
		stack: "Null Reference at Net.Connect () in Assets/Net/Client.cs:7"}, // at Base+10s: 12:00:00, the bound itself
	/* 12 */ {level: oplog.LevelInfo, source: "godot", name: "Shader", text: "test shader compiled"},
	/* 13 */ {level: oplog.LevelInfo, source: "godot", name: "Shader", text: "text rendered with a tent filter"},
	/* 14 */ {level: oplog.LevelWarn, source: "godot", name: "Shader", text: "tests and texts passed"}, // te?t is whole words
	/* 15 */ {source: "agent", tool: "spawn_a", text: "spawn_a enemy 3", status: oplog.StatusSuccess},
	/* 16 */ {source: "agent", tool: "spawn_ab", text: "spawn_ab wave 2", status: oplog.StatusError, err: "wave failed"},
	/* 17 */ {source: "agent", tool: "spawn_b", text: "spawn_b boss", status: oplog.StatusSuccess},
	/* 18 */ {source: "agent", tool: "build", text: "build player", status: oplog.StatusSuccess},
	/* 19 */ {level: oplog.LevelFatal, source: "unity", name: "Physics", text: "physical simulation exploded",
		stack: "at Physics.Step () in Assets/Physics/World.cs:88"}, // physics in the stack only
	/* 20 */ {level: oplog.LevelInfo, source: "unity", name: "Player", text: "nullable field reset"},
	/* 21 */ {level: oplog.LevelError, source: "unity", name: "Player", text: "reference null"},
	/* 22 */ {level: oplog.LevelInfo, source: "godot", name: "physics", text: "the physic engine idles"}, // an inflection of physics
	/* 23 */ {level: oplog.LevelError, source: "unity", name: "Render", text: "shader error in Main Camera",
		stack: "at Render.Draw () in Assets/Render/Draw.cs:5"},
	/* 24 */ {level: oplog.LevelWarn, source: "unity", name: "Crash", text: "unhandled exception in Tick",
		stack: "NullReference at Game.Tick ()"},
	/* 25 */ {level: oplog.LevelInfo, source: "unity", name: "AI", text: "path found to Assets/Maps/level_3.map"},
	/* 26 */ {level: oplog.LevelError, source: "godot", name: "Net", text: "connection lost after 30 s"},
	/* 27 */ {level: oplog.LevelError, source: "godot", name: "Net", text: "socket closed",
		stack: "Null Reference at Socket.Read ()"}, // the phrase in the stack only
	/* 28 */ {level: oplog.LevelInfo, source: "unity-editor", name: "Editor", text: "NULL pointer check passed"}, // null without reference
}

// Records returns the records of the cases, new each call: appended in
// order to an empty log, record i gets ID i. Operations are appended
// completed.
func Records() []oplog.Record {
	out := make([]oplog.Record, len(records))
	for i, r := range records {
		out[i] = oplog.Record{Kind: oplog.KindLine, Time: Base.Add(time.Duration(i) * time.Second), Level: r.level,
			Source: r.source, Name: r.name, Text: r.text, Stack: r.stack}
		if r.tool != "" {
			out[i].Kind, out[i].Level, out[i].Tool, out[i].Status, out[i].Error = oplog.KindOp, 0, r.tool, r.status, r.err
		}
	}
	return out
}

// Case is a tree of ql.Samples as a search: a query of its shape and the
// records it matches.
type Case struct {
	// Sample is the tree of ql.Samples the case stands for, as ql.String
	// writes it.
	Sample string

	// Query is the search: a query string whose tree has the sample's
	// shape (node types, fields and fuzziness), with its values unless
	// Stand says why not, and no filter but where Stand says so.
	Query oplog.SearchQuery

	// Stand says why Query's values are not the sample's; "" when they
	// are (the query parses to the sample itself).
	Stand string

	// Want are the IDs of the records (of Records) that match, oldest
	// first: found by reading the records, not by a compiler.
	Want []uint64

	// NoLogsQL is what LogsQL's refusal of the query says; "" when
	// LogsQL says it.
	NoLogsQL string
}

// template is the template ID of records 7 and 8, and of no other record.
var template = oplog.TextTemplateID("Loaded 12 assets in 340 ms")

// stopWord is the Stand of the samples whose word is a, a stop word: the
// parser leaves it out of a query string, so another word stands in.
const stopWord = "a is a stop word, which no query string keeps: another word stands in"

var cases = []Case{
	{Sample: `physics`, Query: q(`physics`), Want: ids(2, 19, 22)}, // physics, in a stack, physic
	{Sample: `stack:NullReference`, Query: q(`stack:NullReference`), Want: ids(24)},
	{Sample: `name:Physics`, Query: q(`name:Physics`), Want: ids(1, 2, 19)},
	{Sample: `physcs~1`, Query: q(`physcs~1`), Want: ids(2, 10, 19), NoLogsQL: "fuzzy terms (~)"},
	{Sample: `"null reference"`, Query: q(`"null reference"`), Want: ids(3, 11, 27)},
	{Sample: `text:"null reference"`, Query: q(`text:"null reference"`), Want: ids(3, 11)},
	{Sample: `name:"Main Camera"`, Query: q(`name:"Main Camera"`), Want: ids(4)},
	{Sample: `phys*`, Query: q(`phys*`), Want: ids(2, 6, 10, 19, 22)},
	{Sample: `name:Phys*`, Query: q(`name:Phys*`), Want: ids(1, 2, 6, 19)},
	{Sample: `wildcard(te?t)`, Query: q(`te?t`), Want: ids(12, 13)},
	{Sample: `tool:wildcard(spawn_?)`, Query: q(`tool:spawn_?`), Want: ids(15, 17)},
	{Sample: `/null.*/`, Query: q(`/null.*/`), Want: ids(1, 3, 5, 11, 20, 21, 24, 27, 28), NoLogsQL: "a regular expression over words"},
	{Sample: `source:/uni.*/`, Query: q(`source:/uni.*/`), Want: ids(1, 2, 3, 6, 7, 8, 9, 11, 19, 20, 21, 23, 24, 25, 28)},
	{Sample: `template:3f2a9c1b7d0e`, Query: q(`template:` + template), Want: ids(7, 8),
		Stand: "no record has the sample's template: that of records 7 and 8 stands in"},
	{Sample: `template:3f2a*`, Query: q(`template:` + template[:4] + `*`), Want: ids(7, 8),
		Stand: "no record's template starts 3f2a: the start of that of records 7 and 8 stands in"},
	{Sample: `run:>=1<2`, Query: q(`run:>=1`), Want: nil, NoLogsQL: "ranges are for time only",
		Stand: "the parser reads one bound a clause; no field holds numbers, so it matches nothing"},
	{Sample: `time:>=2026-05-01T12:00:00Z`, Query: q(`time:>="2026-05-01T12:00:00Z"`),
		Want: ids(11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28)},
	{Sample: `and(a level:error)`, Query: q(`null level:error`), Want: ids(5, 11, 21, 27), Stand: stopWord},
	{Sample: `and(a not(b))`, Query: q(`null -reference`), Want: ids(28), Stand: stopWord},
	{Sample: `or(a kind:op)`, Query: q(`shader OR kind:op`), Want: ids(12, 15, 16, 17, 18, 23), Stand: stopWord},
	{Sample: `not(a)`, Query: q(`-null`), Want: ids(1, 2, 4, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 23, 24, 25, 26),
		Stand: stopWord + "; -x parses as an And of one Not, which every compiler reads as the Not"},
	{Sample: `*`, Query: q(`kind:any`), Want: ids(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28)},
	{Sample: `none`, Query: oplog.SearchQuery{Filter: oplog.Filter{Runs: map[string]uint64{}}}, Want: nil,
		NoLogsQL: "runs are one machine's",
		Stand:    "no query string parses to None: the filter of an empty list of runs compiles to it"},
}

func q(s string) oplog.SearchQuery { return oplog.SearchQuery{Query: s} }

func ids(id ...uint64) []uint64 { return id }

// Cases returns the cases, new each call, after checking them: one for
// each tree of ql.Samples (a sample without one fails tb, so that a new
// node type needs its expected records here too), each query of its
// sample's shape, and the sample itself unless Stand says why not.
func Cases(tb testing.TB) []Case {
	tb.Helper()
	samples := map[string]ql.Node{}
	for _, n := range ql.Samples() {
		samples[ql.String(n)] = n
	}
	seen := map[string]bool{}
	out := make([]Case, len(cases))
	for i, c := range cases {
		n, ok := samples[c.Sample]
		switch {
		case !ok:
			tb.Fatalf("case %s: no tree of ql.Samples is written so", c.Sample)
		case seen[c.Sample]:
			tb.Fatalf("case %s: twice", c.Sample)
		}
		seen[c.Sample] = true
		checkCase(tb, c, n)
		c.Want = slices.Clone(c.Want)
		out[i] = c
	}
	for s := range samples {
		if !seen[s] {
			tb.Errorf("the tree %s of ql.Samples has no case: add one, with the records it matches", s)
		}
	}
	return out
}

// checkCase fails tb when c's query is not of sample n's shape, or not n
// itself while c.Stand is empty.
func checkCase(tb testing.TB, c Case, n ql.Node) {
	tb.Helper()
	if c.Query.Query == "" {
		if c.Stand == "" {
			tb.Fatalf("case %s: no query string, and no Stand saying why", c.Sample)
		}
		return
	}
	got, err := oplog.ParseQuery(c.Query.Query)
	switch {
	case err != nil:
		tb.Fatalf("case %s: %q: %v", c.Sample, c.Query.Query, err)
	case shape(got) != shape(n):
		tb.Fatalf("case %s: %q parses to %s, whose shape %s is not the sample's, %s", c.Sample, c.Query.Query, ql.String(got), shape(got), shape(n))
	case c.Stand == "" && ql.String(got) != c.Sample:
		tb.Fatalf("case %s: %q parses to %s, not the sample, and Stand does not say why", c.Sample, c.Query.Query, ql.String(got))
	}
}

// shape writes n with its values left out: node types, fields and
// fuzziness. A lone Not is written as an And of it, as the parser reads
// -x.
func shape(n ql.Node) string {
	if _, ok := n.(*ql.Not); ok {
		n = &ql.And{Nodes: []ql.Node{n}}
	}
	m, err := ql.Map(n, func(leaf ql.Node) (ql.Node, error) {
		switch l := leaf.(type) {
		case *ql.Term:
			return &ql.Term{Field: l.Field, Text: "x", Fuzzy: l.Fuzzy}, nil
		case *ql.Phrase:
			return &ql.Phrase{Field: l.Field, Text: "x"}, nil
		case *ql.Prefix:
			return &ql.Prefix{Field: l.Field, Prefix: "x"}, nil
		case *ql.Wildcard:
			return &ql.Wildcard{Field: l.Field, Pattern: "x"}, nil
		case *ql.Regexp:
			return &ql.Regexp{Field: l.Field, Pattern: "x"}, nil
		case *ql.NumberRange:
			return &ql.NumberRange{Field: l.Field}, nil
		case *ql.TimeRange:
			return &ql.TimeRange{Field: l.Field}, nil
		}
		return leaf, nil
	})
	if err != nil {
		panic("BUG: querytest: shape: " + err.Error())
	}
	return ql.String(m)
}
