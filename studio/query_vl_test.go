package studio_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/studio"
)

var base = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// corpus is the records both sides hold: texts that tell the query
// shapes apart (case, punctuation between a phrase's words, stop words,
// prefixes, Unicode, names that differ by case), and operations, two
// completed, one pending.
func corpus() []oplog.Record {
	line := func(i int, level oplog.Level, src, name, text, stack string) oplog.Record {
		return oplog.Record{Kind: oplog.KindLine, Time: base.Add(time.Duration(i) * time.Second), Source: src,
			Name: name, Level: level, Text: text, Stack: stack}
	}
	return []oplog.Record{
		line(0, oplog.LevelError, "unity", "Physics", "NullReferenceException: Object reference not set to an instance of an object",
			"NullReferenceException\n  at Player.Update () in Assets/Player.cs:42"),
		line(1, oplog.LevelInfo, "unity", "Player", "Player spawned at (3, 4)", ""),
		line(2, oplog.LevelWarn, "unity", "Physics", "null, reference in list", ""),
		line(3, oplog.LevelInfo, "unity", "Loader", "Loading scene Main.unity", ""),
		line(4, oplog.LevelWarn, "unity", "Shader", "Shader error in 'Standard': undefined variable", ""),
		line(5, oplog.LevelInfo, "godot", "physics", "the reference was null", ""),
		line(6, oplog.LevelError, "godot", "Über", "Größe Fehler beim Laden", ""),
		line(7, oplog.LevelDebug, "godot", "Player", "snake_case_word found in Player.cs", ""),
		line(8, oplog.LevelError, "unity", "Net", "errors occurred while connecting", "at Net.Connect () in Net.cs:7"),
		line(9, oplog.LevelError, "unity", "Net", "error occurred: ERROR CODE 42", ""),
		line(10, oplog.LevelFatal, "unity", "Physics", "null a reference exploded", "at Physics.Step ()"),
		line(11, oplog.LevelInfo, "unity", "Spawner", "Spawning SPAWNER spawned spawnpoint", ""),
		{Kind: oplog.KindOp, Time: base.Add(12 * time.Second), Source: "agent", Tool: "spawn", Text: "spawn enemies"},
		{Kind: oplog.KindOp, Time: base.Add(13 * time.Second), Source: "agent", Tool: "build", Text: "build player"},
		{Kind: oplog.KindOp, Time: base.Add(14 * time.Second), Source: "agent", Tool: "wait", Text: "wait for load"},
		line(15, oplog.LevelWarn, "godot", "Player", "Player spawned at (12, -7)", ""),
		line(16, oplog.LevelFatal, "unity", "Crash", "Program crashed with signal 11", "crashing in Main ()"),
		line(17, oplog.LevelInfo, "unity", "Crash", "3 CRASHES today", ""),
		line(18, oplog.LevelInfo, "unity", "Crash", "crashpad uploaded a dump; crash reporter retries", ""),
	}
}

// twin is the same records in a local store with its index and in
// VictoriaLogs as machine "m1" forwarded them (operations: a started row,
// then a completed row with a new seq).
type twin struct {
	local  *oplog.Log
	studio *studio.Client
	url    string
	recs   []oplog.Record
}

func mustTwin(t *testing.T) *twin {
	t.Helper()
	ctx := context.Background()
	l, db := logtest.MustOpenLog(t, nil)
	idx, err := search.Open(filepath.Join(t.TempDir(), "index"), db, &search.Options{Changed: l.Changed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	l.SetIndex(idx)
	recs := logtest.MustAppend(t, l, corpus()...)
	rev := l.Stats().Revision
	var rows []map[string]any
	seq := uint64(0)
	row := func(r *oplog.Record) {
		seq++
		rows = append(rows, studiotest.Row("game", "m1", rev, seq, r, ""))
	}
	for i := range recs {
		row(&recs[i]) // operations as they started: pending
	}
	for _, c := range []struct {
		tool string
		c    oplog.Completion
	}{{"spawn", oplog.Completion{Status: oplog.StatusSuccess}}, {"build", oplog.Completion{Error: "linker failed"}},
		{"wait", oplog.Completion{Status: oplog.StatusCrashed, Error: "the game crashed during this call: SIGSEGV (record #16); game killed by signal 11"}}} {
		i := slices.IndexFunc(recs, func(r oplog.Record) bool { return r.Tool == c.tool })
		done, err := l.Complete(ctx, recs[i].ID, c.c)
		if err != nil {
			t.Fatal(err)
		}
		recs[i] = done
		row(&done)
	}
	url := studiotest.Start(t)
	studiotest.Ingest(t, url, rows)
	c, err := studio.NewClient(studio.ClientOptions{URL: url, Project: "game"})
	if err != nil {
		t.Fatal(err)
	}
	return &twin{local: l, studio: c, url: url, recs: recs}
}

// localIDs pages through the local search's every hit.
func (w *twin) localIDs(t *testing.T, q oplog.SearchQuery) []uint64 {
	t.Helper()
	var ids []uint64
	q.Limit = 3 // several pages: the cursor is part of the answer
	for {
		p, err := w.local.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("local %q: %v", q.Query, err)
		}
		for _, h := range p.Hits {
			ids = append(ids, h.Record.ID)
		}
		if p.NextCursor == "" {
			return ids
		}
		q.Cursor = p.NextCursor
	}
}

// studioIDs pages through the studio search's every hit.
func (w *twin) studioIDs(t *testing.T, q oplog.SearchQuery) ([]uint64, error) {
	t.Helper()
	var ids []uint64
	sq := oplog.StudioSearchQuery{SearchQuery: q}
	sq.Limit = 3
	for {
		p, err := w.studio.Search(context.Background(), sq)
		if err != nil {
			return nil, err
		}
		for _, h := range p.Hits {
			if h.Machine != "m1" {
				t.Errorf("%q: hit %d names machine %q, want m1", q.Query, h.ID, h.Machine)
			}
			ids = append(ids, h.ID)
		}
		if p.NextCursor == "" {
			return ids, nil
		}
		sq.Cursor = p.NextCursor
	}
}

// TestClient_Search_SameAsLocal asks every query shape of the language of
// the local index and of VictoriaLogs through the translation: the same
// records, in the same order (newest first), must come back.
func TestClient_Search_SameAsLocal(t *testing.T) {
	w := mustTwin(t)
	at := func(s int) string { return `"` + base.Add(time.Duration(s)*time.Second).Format(time.RFC3339) + `"` }
	queries := []string{
		`null`, `NULL`, `reference`, `"null reference"`, `"Null Reference"`, `"null the reference"`, `"reference null"`,
		`Player.cs`, `player`, `spawn*`, `SPAWN*`, `sp?wn*`, `*awned`, `error`, `errors`, `error*`, `42`,
		`größe`, `GRÖSSE`, `snake_case_word`, `snake`,
		`null AND reference`, `null OR loading`, `null -reference`, `null NOT exploded`, `NOT null`, `(null OR shader) AND -exploded`,
		`text:null`, `message:null`, `stack:player`, `stack:Update`, `text:update`,
		`name:Physics`, `name:physics`, `name:Phys*`, `name:Über`, `source:godot`, `-source:unity`,
		`level:error`, `level:Warning`, `level:err*`, `kind:op`, `kind:line`, `kind:any`,
		`tool:spawn`, `status:pending`, `status:success`, `status:error`, `status:ok OR status:failed`, `status:crashed`, `status:crash OR status:pending`,
		`time:>=` + at(5), `time:<` + at(5), `time:>` + at(5), `time:>=` + at(3) + ` AND time:<=` + at(9),
		`level:error AND name:Physics "null reference"`, `run:1`,
		// templates: two records of one ("error occurred…" and "errors
		// occurred…" are not), one of another, a prefix, none
		`template:` + oplog.TextTemplateID("Player spawned at (1, 2)"), `template:` + oplog.RecordTemplateID(&oplog.Record{Kind: oplog.KindOp, Tool: "spawn"}),
		`error* -template:` + oplog.TextTemplateID("error occurred: ERROR CODE 7"), `template:` + oplog.TextTemplateID("no such message"),
		`template:` + oplog.TextTemplateID("Player spawned at (1, 2)")[:4] + `*`,
		`crash`, `CRASHED`, `crashes`, `"crash"`, `text:crash`, `stack:crash`, `crashpad`, `crash -"crash"`, `crash*`,
		`spawn`, `spawning`, `Spawned`, `retry`, `load`, `connect`, `name:crash`, `name:Crash`,
		// messages pasted as printed
		`Player.Update ()`, `main.main()`, `std::out_of_range`, `Player.cs:42`, `AddressSanitizer:DEADLYSIGNAL`,
		`(run with --verbose for details)`, `SyntaxError: '(' was never closed`, `==1234==ABORTING`,
	}
	for _, q := range queries {
		sq := oplog.SearchQuery{Query: q}
		want := w.localIDs(t, sq)
		got, err := w.studioIDs(t, sq)
		if err != nil {
			t.Errorf("%-40q studio: %v", q, err)
			continue
		}
		if !slices.Equal(got, want) {
			lq, _ := studio.LogsQL(q)
			t.Errorf("%-40q studio %v, local %v\n  LogsQL: %s", q, got, want, lq)
		}
	}
	// The filters beside the query string.
	for name, sq := range map[string]oplog.SearchQuery{
		"MinLevel": {Filter: oplog.Filter{MinLevel: oplog.LevelWarn}},
		"Name":     {Query: "null", Filter: oplog.Filter{Name: "Physics"}},
		"Source":   {Filter: oplog.Filter{Source: "godot"}},
		"Kind":     {Filter: oplog.Filter{Kind: oplog.KindOp}},
		"Since":    {Filter: oplog.Filter{Since: base.Add(4 * time.Second), Until: base.Add(10 * time.Second)}},
		"Status":   {Status: oplog.StatusPending},
		"Crashed":  {Status: oplog.StatusCrashed},
		"Tool":     {Tool: "build"},
	} {
		want := w.localIDs(t, sq)
		got, err := w.studioIDs(t, sq)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("filter %s: studio %v (%v), local %v", name, got, err, want)
		}
	}
}

// TestClient_Search_Untranslatable: what LogsQL cannot say the same way is
// a clear EINVALID error, never a different query.
func TestClient_Search_Untranslatable(t *testing.T) {
	w := mustTwin(t)
	for q, want := range map[string]string{
		`nul~1`:        "fuzzy",
		`/nu.l/`:       "regular expression",
		`replayOf:3`:   "replayOf is not forwarded",
		`the`:          "matches nothing",
		`run:>3`:       "ranges are for time only",
		`null AND (`:   "never closed",
		`level:loud`:   "unknown level",
		`foo.bar*`:     "not a word character",
		`unknown:word`: "unknown field",
	} {
		_, err := w.studio.Search(context.Background(), oplog.StudioSearchQuery{SearchQuery: oplog.SearchQuery{Query: q}})
		if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v (%s), want EINVALID saying %q", q, err, oplog.ErrorCode(err), want)
		}
	}
	_, err := w.studio.Search(context.Background(), oplog.StudioSearchQuery{SearchQuery: oplog.SearchQuery{
		Filter: oplog.Filter{Runs: map[string]uint64{"unity": 1}}}})
	if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), "run") {
		t.Errorf("runs: got %v, want EINVALID naming run", err)
	}
}
