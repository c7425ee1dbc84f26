package search_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// walkableLines are n lines of lines(from, n) where every 40th says
// "walkable" (an info line of Nav), and one (the 45th) "walkabl", as
// close to walkabel as walkable is but held less; it returns them and the
// texts of the walkable ones.
func walkableLines(from, n int) ([]oplog.Record, []string) {
	recs := lines(from, n)
	var want []string
	for i := range recs {
		if (from+i)%40 == 0 {
			recs[i] = oplog.Record{Level: oplog.LevelInfo, Name: "Nav", Text: fmt.Sprintf("tile %d is walkable", from+i)}
			want = append(want, recs[i].Text)
		}
		if from+i == from/40*40+45 {
			recs[i].Text = fmt.Sprintf("tile %d is walkabl", from+i)
		}
	}
	return recs, want
}

// searchArgs sends a hint's arguments as is (the query string, level,
// name, since, until: what these tests' hints carry) and returns the texts
// found, oldest first, and the total.
func searchArgs(t *testing.T, l *oplog.Log, args map[string]string) ([]string, int64) {
	t.Helper()
	q := oplog.SearchQuery{Query: args["query"], Filter: oplog.Filter{Name: args["name"]}, Limit: oplog.MaxSearchLimit}
	var err error
	if q.MinLevel, err = oplog.ParseLevel(args["level"]); err != nil {
		t.Fatal(err)
	}
	if q.Since, err = oplog.ParseBound(args["since"], time.Now()); err != nil {
		t.Fatal(err)
	}
	if q.Until, err = oplog.ParseBound(args["until"], time.Now()); err != nil {
		t.Fatal(err)
	}
	p, err := l.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %v: %v", args, err)
	}
	var texts []string
	for _, h := range p.Hits {
		texts = append(texts, h.Record.Text)
	}
	slices.Reverse(texts)
	return texts, p.Total
}

// checkWordHint searches walkabel and checks that the hint names query
// "walkable" and that sending it finds exactly want.
func checkWordHint(t *testing.T, l *oplog.Log, want []string) {
	t.Helper()
	p, err := l.Search(context.Background(), oplog.SearchQuery{Query: "walkabel", Hint: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hits) != 0 || p.Hint == nil {
		t.Fatalf("walkabel: %d hits, hint %+v; want none and a hint", len(p.Hits), p.Hint)
	}
	h := p.Hint
	wantText := fmt.Sprintf(`0 hits; did you mean query="walkable" (%d records)?`, len(want))
	if h.Text != wantText || h.Args["query"] != "walkable" || h.Records != int64(len(want)) {
		t.Fatalf("hint %+v; want %q", h, wantText)
	}
	got, total := searchArgs(t, l, h.Args)
	if !slices.Equal(got, want) || total != int64(len(want)) {
		t.Fatalf("the hint's request found %d (%q); want %q", total, got, want)
	}
}

// TestLog_Search_Hint_Stored: a misspelt word whose right spelling is in
// the stored sets is corrected, and the correction finds those records.
func TestLog_Search_Hint_Stored(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs, want := walkableLines(1, 2500)
	logtest.MustAppend(t, e.log, recs...)
	last := e.db.Stats().LastID
	logtest.Eventually(t, 30*time.Second, "every whole chunk's set stored", func() bool {
		return e.idx.Status().SegmentsThrough == last
	})
	checkWordHint(t, e.log, want)
}

// TestLog_Search_Hint_Growing: a word appended a moment ago, in a set
// not yet stored, is suggested too.
func TestLog_Search_Hint_Growing(t *testing.T) {
	e := mustOpen(t, t.TempDir(), search.Options{TailChunk: 5000, Changed: nil, Interval: 20 * time.Millisecond}, nil)
	recs, want := walkableLines(1, 3000)
	logtest.MustAppend(t, e.log, recs...)
	last := e.db.Stats().LastID
	logtest.Eventually(t, 20*time.Second, "every record in a term set", func() bool {
		return e.idx.Status().IndexedThrough == last
	})
	if s := e.idx.Status(); s.Segments != 0 {
		t.Fatalf("%d complete sets; want the chunk still growing", s.Segments)
	}
	checkWordHint(t, e.log, want)
}

// TestLog_Search_Hint_Filter: a word held only below the level asked is
// no misspelling; the hint drops the level, and its request finds them.
func TestLog_Search_Hint_Filter(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs, want := walkableLines(1, 500)
	logtest.MustAppend(t, e.log, recs...)
	p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: "walkable", Hint: true, Filter: oplog.Filter{MinLevel: oplog.LevelError, Name: "Nav"}})
	if err != nil {
		t.Fatal(err)
	}
	wantText := fmt.Sprintf(`0 hits; without level="error": query="walkable" name="Nav" (%d records)`, len(want))
	if len(p.Hits) != 0 || p.Hint == nil || p.Hint.Text != wantText {
		t.Fatalf("%d hits, hint %+v; want %q", len(p.Hits), p.Hint, wantText)
	}
	if got, _ := searchArgs(t, e.log, p.Hint.Args); !slices.Equal(got, want) {
		t.Fatalf("the hint's request found %q; want %q", got, want)
	}
}

// TestLog_Search_Hint_WholeSeconds: a time bound a hint keeps (a time
// word's "-1h", resolved to the nanosecond) is written to the second,
// widened outwards, and the hint's count is what its request finds.
func TestLog_Search_Hint_WholeSeconds(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs, want := walkableLines(1, 500)
	logtest.MustAppend(t, e.log, recs...)
	since := time.Now().Add(-time.Hour).Add(123456789 * time.Nanosecond)
	until := time.Now().Add(time.Hour).Add(987654321 * time.Nanosecond)
	p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: "walkable", Hint: true,
		Filter: oplog.Filter{MinLevel: oplog.LevelError, Since: since, Until: until}})
	if err != nil {
		t.Fatal(err)
	}
	h := p.Hint
	wantSince, wantUntil := since.UTC().Truncate(time.Second).Format(time.RFC3339), until.UTC().Truncate(time.Second).Add(time.Second).Format(time.RFC3339)
	if h == nil || h.Args["since"] != wantSince || h.Args["until"] != wantUntil || h.Records != int64(len(want)) {
		t.Fatalf("hint %+v; want since=%s until=%s and %d records", h, wantSince, wantUntil, len(want))
	}
	if !strings.Contains(h.Text, `since="`+wantSince+`"`) {
		t.Fatalf("hint text %q", h.Text)
	}
	if got, total := searchArgs(t, e.log, h.Args); !slices.Equal(got, want) || total != h.Records {
		t.Fatalf("the hint's request found %d (%q); want %q", total, got, want)
	}
}

// TestLog_Search_Hint_FilterInQuery: a filter written in the query
// (level:error, name:Nav) is dropped from it as a filter argument is, the
// rest of the query kept as written; with a misspelt word too, that word
// is corrected as well.
func TestLog_Search_Hint_FilterInQuery(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs, want := walkableLines(1, 500)
	logtest.MustAppend(t, e.log, recs...)
	for _, c := range []struct{ query, hint string }{
		{"walkable level:error", `0 hits; without level:error: query="walkable" (%d records)`},
		{"level:error AND walkable name:Nav", `0 hits; without level:error: query="walkable name:Nav" (%d records)`},
		// Two fixes: the word corrected and the filter dropped.
		{"walkabel name:Render", `0 hits; without name:Render: query="walkable" (%d records)`},
	} {
		p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: c.query, Hint: true})
		if err != nil {
			t.Fatal(err)
		}
		wantText := fmt.Sprintf(c.hint, len(want))
		if len(p.Hits) != 0 || p.Hint == nil || p.Hint.Text != wantText {
			t.Fatalf("%q: %d hits, hint %+v; want %q", c.query, len(p.Hits), p.Hint, wantText)
		}
		if got, _ := searchArgs(t, e.log, p.Hint.Args); !slices.Equal(got, want) {
			t.Fatalf("%q: the hint's request found %q; want %q", c.query, got, want)
		}
	}
}

// TestLog_Search_Hint_Range: a word near no word, in a time range that
// holds nothing, is answered with the span the log holds, which finds
// every record.
func TestLog_Search_Hint_Range(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs, _ := walkableLines(1, 300)
	logtest.MustAppend(t, e.log, recs...)
	// (the hint is the log's span: the time range asked holds nothing, and no filter's removal finds qzxjvwpk)
	since := time.Now().Add(-48 * time.Hour)
	p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: "qzxjvwpk", Hint: true,
		Filter: oplog.Filter{Since: since, Until: since.Add(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hits) != 0 || p.Hint == nil || !strings.HasPrefix(p.Hint.Text, `0 hits; the log's records span since="`) ||
		!strings.HasSuffix(p.Hint.Text, " (300 records)") || p.Hint.Args["query"] != "" {
		t.Fatalf("%d hits, hint %+v; want the log's span", len(p.Hits), p.Hint)
	}
	if got, total := searchArgs(t, e.log, p.Hint.Args); len(got) != 300 || total != 300 {
		t.Fatalf("the hint's request found %d of %d; want all 300", len(got), total)
	}
}

// TestLog_Search_Hint_None: an answer with hits has no hint, nor an
// empty one that did not ask for it.
func TestLog_Search_Hint_None(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs, _ := walkableLines(1, 300)
	logtest.MustAppend(t, e.log, recs...)
	p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: "walkable", Hint: true})
	if err != nil || len(p.Hits) == 0 || p.Hint != nil {
		t.Fatalf("walkable: %d hits, hint %+v, %v; want hits and no hint", len(p.Hits), p.Hint, err)
	}
	// A search that does not ask for one (code's) gets none.
	p, err = e.log.Search(context.Background(), oplog.SearchQuery{Query: "walkabel"})
	if err != nil || len(p.Hits) != 0 || p.Hint != nil {
		t.Fatalf("walkabel without Hint: %d hits, hint %+v, %v; want none", len(p.Hits), p.Hint, err)
	}
}

// TestIndex_Words: the words within the edits asked, closest first, then
// the most held.
func TestIndex_Words(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs, _ := walkableLines(1, 300)
	logtest.MustAppend(t, e.log, recs...)
	last := e.db.Stats().LastID
	logtest.Eventually(t, 20*time.Second, "every record in a set", func() bool { return e.idx.Status().IndexedThrough == last })
	ws, err := e.idx.Words(context.Background(), "walkabel", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Word != "walkable" || ws[0].Distance != 1 || ws[1].Word != "walkabl" || ws[1].Distance != 1 ||
		ws[0].Records <= ws[1].Records {
		t.Fatalf("words %+v; want walkable then walkabl, one edit away, walkable held more", ws)
	}
	if ws, err := e.idx.Words(context.Background(), "walkabel", 1, 0); err != nil || len(ws) != 2 {
		t.Fatalf("one edit: %+v, %v; want walkable and walkabl (a transposition, a deletion)", ws, err)
	}
}

// TestLog_Search_Pasted: the message an agent or a person saw, pasted as
// it was printed, finds its record: an exception's name and colon, a
// file and line, a sign between numbers; before, the first two were read
// as a field ("unknown field \"ZeroDivisionError\"") and the third as a
// sign without a term.
func TestLog_Search_Pasted(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	texts := []string{
		"ZeroDivisionError: division by zero",
		"main.lua:7: attempt to index field 'grass' (a nil value)",
		"game.c:4:14: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'",
		"TypeError: Cannot read properties of undefined (reading 'width')",
		"panic: runtime error: index out of range [3] with length 1",
		// What the language cannot read is read as words.
		"game: game.c:4: check: Assertion `n < 64' failed.",
		"==77==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010",
		"SCRIPT ERROR: Invalid get index 'combo' (on base: 'Nil'). At: res://main.gd:6",
		"System.TypeInitializationException: The type initializer for 'Config' threw an exception. ---> System.FormatException: Input string was not in a correct format.",
		// A C++ scope, words on either side of a colon, a parenthesis quoted
		// or left open by a range, a command line's option.
		"vector::_M_range_check: __n (which is 7) >= this->size() (which is 3)",
		"Caught fatal signal - signo:11 code:1 errno:0 addr:(nil)",
		"SyntaxError: '(' was never closed",
		"Mod brandonscore (Brandon's Core) requires [codechickenlib@[3.2.0,)]",
		"ObjectDB instances leaked at exit (run with --verbose for details).",
	}
	recs := lines(1, 600)
	for i, s := range texts {
		recs[40*i+7] = oplog.Record{Level: oplog.LevelError, Name: "Game", Text: s}
	}
	logtest.MustAppend(t, e.log, recs...)
	for _, s := range texts {
		p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: s, Limit: 10})
		if err != nil || len(p.Hits) != 1 || p.Hits[0].Record.Text != s {
			t.Errorf("search %q: %d hits, %v", s, len(p.Hits), err)
		}
	}
	// A phrase never closed: the phrase, not its words anywhere (the
	// second record holds them in another order).
	logtest.MustAppend(t, e.log, oplog.Record{Level: oplog.LevelInfo, Name: "Game", Text: "wave spawn enemy soon"},
		oplog.Record{Level: oplog.LevelError, Name: "Game", Text: "could not spawn enemy wave 3"})
	p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: `"spawn enemy wave`, Limit: 10})
	if err != nil || len(p.Hits) != 1 || p.Hits[0].Record.Text != "could not spawn enemy wave 3" {
		t.Errorf(`search "spawn enemy wave: %+v, %v`, p.Hits, err)
	}
}

// TestLog_Search_PastedLine: a line pasted with the level and time the
// log keeps apart from its text is answered without them, and says so;
// its cursor goes on without them and is refused with a query shorter
// than what it leaves out. The words of a message first are a hint.
func TestLog_Search_PastedLine(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs := lines(1, 300)
	recs[50] = oplog.Record{Level: oplog.LevelError, Name: "Nav", Text: "no path from spawn to gate 3"}
	recs[250] = oplog.Record{Level: oplog.LevelError, Name: "Nav", Text: "no path from spawn to gate 4"}
	logtest.MustAppend(t, e.log, recs...)
	ctx := context.Background()
	q := oplog.SearchQuery{Query: "12:00:01 [Nav/ERROR] no path from spawn to gate", Limit: 1, Hint: true}
	p, err := e.log.Search(ctx, q)
	if err != nil || len(p.Hits) != 1 || p.Hits[0].Record.ID != recs[250].ID || p.Hint == nil ||
		!strings.Contains(p.Hint.Text, `shown without "12:00:01 [Nav/ERROR]"`) || p.Hint.Args["query"] != "no path from spawn to gate" || p.NextCursor == "" {
		t.Fatalf("first page: %+v, %v", p, err)
	}
	q.Cursor = p.NextCursor
	if p, err = e.log.Search(ctx, q); err != nil || len(p.Hits) != 1 || p.Hits[0].Record.ID != recs[50].ID || p.Hint != nil {
		t.Fatalf("second page: %+v, %v", p, err)
	}
	if p.NextCursor != "" {
		if p, err = e.log.Search(ctx, oplog.SearchQuery{Query: q.Query, Limit: 1, Cursor: p.NextCursor}); err != nil || len(p.Hits) != 0 {
			t.Fatalf("third page: %+v, %v", p, err)
		}
	}
	if _, err := e.log.Search(ctx, oplog.SearchQuery{Query: "gate", Cursor: q.Cursor}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Fatalf("the cursor with a shorter query: %v; want EINVALID", err)
	}
	// A level marked as Godot 3 prints it, and one of two words whose second
	// alone leaves a query that finds the record too: the line's beginning
	// is left out whole.
	logtest.MustAppend(t, e.log, oplog.Record{Level: oplog.LevelError, Name: "script", Text: "GDScript::reload: Parse Error: ':' expected at end of line."},
		oplog.Record{Level: oplog.LevelError, Text: "Unsupported locale 'C', falling back to 'en'."})
	for q, lead := range map[string]string{
		"SCRIPT ERROR: GDScript::reload: Parse Error: ':' expected at end of line.": "SCRIPT ERROR:",
		"**ERROR**: Unsupported locale 'C', falling back to 'en'.":                  "**ERROR**:",
	} {
		p, err := e.log.Search(ctx, oplog.SearchQuery{Query: q, Hint: true})
		if err != nil || len(p.Hits) != 1 || p.Hint == nil || !strings.Contains(p.Hint.Text, "shown without "+strconv.Quote(lead)+" ") {
			t.Errorf("search %q: %+v, %v; want its record, shown without %q", q, p, err, lead)
		}
	}
	p, err = e.log.Search(ctx, oplog.SearchQuery{Query: "walk no path from spawn", Hint: true})
	if err != nil || len(p.Hits) != 0 || p.Hint == nil || p.Hint.Text != `0 hits; without "walk": query="no path from spawn" (2 records)` {
		t.Fatalf("the words of a message first: %+v, %v; want a hint", p, err)
	}
}

// TestLog_Search_PastedShapes: what a pasted error holds that reads as the
// language finds its record: a negative number (a minus sign, not NOT), a
// file, line and column (every part, not any); a block of lines that no
// record holds whole (a message and the runtime's note after it) hints at its
// line that finds records, a Rust panic's header at the panics at its place; words that read as operators ("Shader NOT
// compiled") hint at the phrase.
func TestLog_Search_PastedShapes(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs := lines(1, 300)
	recs[40] = oplog.Record{Level: oplog.LevelError, Name: "Net", Text: "net: peer -1 refused: bad handshake (code -32600)"}
	recs[80] = oplog.Record{Level: oplog.LevelFatal, Name: "panic", Text: "index out of bounds: the len is 3 but the index is 7", Stack: "at src/main.rs:7:5"}
	recs[120] = oplog.Record{Level: oplog.LevelError, Name: "Game", Text: "spawn_enemy(count=-5): count must be in 0..100, not 7"}
	recs[160] = oplog.Record{Level: oplog.LevelError, Name: "Render", Text: "Shader NOT compiled: missing OR invalid uniform u_time"}
	recs[240] = oplog.Record{Level: oplog.LevelFatal, Name: "Game", Text: "fatal error: all goroutines are asleep - deadlock!", Stack: "goroutine 1 [chan receive]:\nmain.main()\n\t/game/main.go:3 +0x5b\nPlayer.Update ()"}
	recs[200] = oplog.Record{Level: oplog.LevelFatal, Name: "Game", Text: "System.NullReferenceException: Object reference not set to an instance of an object", Stack: "at Game.Update () [0x0000b] in Game.cs:12"}
	logtest.MustAppend(t, e.log, recs...)
	ctx := context.Background()
	for q, want := range map[string]uint64{
		"bad handshake (code -32600)": recs[40].ID,
		"-32600":                      recs[40].ID,
		"src/main.rs:7:5":             recs[80].ID,
		"main.main()":                 recs[240].ID, // a call's empty parentheses group nothing
		"Player.Update ()":            recs[240].ID,
	} {
		p, err := e.log.Search(ctx, oplog.SearchQuery{Query: q, Limit: 10})
		if err != nil || len(p.Hits) != 1 || p.Hits[0].Record.ID != want {
			t.Errorf("search %q: %+v, %v; want #%d alone", q, p.Hits, err, want)
		}
	}
	for q, want := range map[string]string{
		"thread 'main' panicked at src/main.rs:7:5:\nindex out of bounds: the len is 3 but the index is 7\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace": `0 hits; a Rust panic's header is no record's text: the panics at src/main.rs:7:5, query="name:panic src/main.rs:7:5" (1 record)`,
		"thread 'main' (1234) panicked at src/main.rs:7:5:": `0 hits; a Rust panic's header is no record's text: the panics at src/main.rs:7:5, query="name:panic src/main.rs:7:5" (1 record)`,
		"index out of bounds: the len is 3 but the index is 7\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace": `0 hits for the 2 lines as one; line 1 finds records: query="index out of bounds: the len is 3 but the index is 7" (1 record)`,
		"Shader NOT compiled": `0 hits; NOT, AND, OR and a word's leading - are operators: as the words they are, query="\"Shader NOT compiled\"" (1 record)`,
		// A runtime's header before a crash, alone or after a line's time and name.
		"Unhandled Exception:": `0 hits; "Unhandled Exception:" is what a runtime prints before a crash, no record's text: the crashes, query="level:fatal" (3 records)`,
		"[2026.03.21-09.17.53:742][  3]LogWindows: Error: === Critical error: ===": `0 hits; "=== Critical error: ===" is what a runtime prints before a crash, no record's text: the crashes, query="level:fatal" (3 records)`,
		"12-06 10:00:20.500  4700  4700 E AndroidRuntime: FATAL EXCEPTION: main":   `0 hits; "FATAL EXCEPTION:" is what a runtime prints before a crash, no record's text: the crashes, query="level:fatal" (3 records)`,
		"---- Minecraft Crash Report ----":                                         `0 hits; "---- Minecraft Crash Report ----" is what a runtime prints before a crash, no record's text: the crashes, query="level:fatal" (3 records)`,
	} {
		p, err := e.log.Search(ctx, oplog.SearchQuery{Query: q, Hint: true})
		if err != nil || len(p.Hits) != 0 || p.Hint == nil || p.Hint.Text != want {
			t.Errorf("search %q: %+v, %v; want the hint %s", q, p, err, want)
			continue
		}
		if got, total := searchArgs(t, e.log, p.Hint.Args); total != p.Hint.Records || total == 0 {
			t.Errorf("the hint of %q found %q", q, got)
		}
	}
}
