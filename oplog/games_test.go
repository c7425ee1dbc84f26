package oplog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// TestLog_SetGames: records of a game's other sources are stored as the
// game, so that its calls and its lines share its runs, and a read that
// names another source of the game reads the game's.
func TestLog_SetGames(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	ctx := context.Background()
	if err := l.SetGames(map[string][]string{"game": {"Game", "game-console"}}); err != nil {
		t.Fatal(err)
	}
	recs := []oplog.Record{
		{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "Game", Text: "run started"},
		{Kind: oplog.KindOp, Source: "game", Tool: "spawn_enemy", Arguments: []byte(`{"count":5}`)},
		{Source: "game-console", Level: oplog.LevelInfo, Text: "spawned 5"},
		{Source: "editor", Level: oplog.LevelInfo, Text: "not the game"},
	}
	oplogtest.MustAppend(t, l, recs...)
	for i, want := range []string{"game", "game", "game", "editor"} {
		if recs[i].Source != want {
			t.Errorf("record %d: source %q, want %q", i, recs[i].Source, want)
		}
	}
	runs, err := l.Runs(ctx, "Game")
	if err != nil || len(runs) != 1 || runs[0].Source != "game" || runs[0].Records != 3 {
		t.Fatalf("Runs(Game): %+v, %v; want the game's one run of 3 records", runs, err)
	}
	p, err := l.List(ctx, oplog.Query{Filter: oplog.Filter{Source: "game-console", Runs: map[string]uint64{"Game": 1}}})
	if err != nil || len(p.Records) != 3 {
		t.Fatalf("List(source game-console, run 1 of Game): %d records, %v; want the game's 3", len(p.Records), err)
	}
	if d, err := l.Digest(ctx, oplog.DigestQuery{Filter: oplog.Filter{Source: "Game"}}); err != nil || d.Records != 3 {
		t.Errorf("Digest(source Game): %d records, %v; want the game's 3", d.Records, err)
	}
	if l.Game("editor") != "editor" || l.Game("Game") != "game" {
		t.Errorf("Game: editor %q, Game %q", l.Game("editor"), l.Game("Game"))
	}
}

func TestLog_SetGames_Refused(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	for name, games := range map[string]map[string][]string{
		"TwoGames":   {"a": {"x"}, "b": {"x"}},
		"GameOfGame": {"a": {"b"}, "b": {"c"}},
		"BadSource":  {"a": {"two\nlines"}},
		"NoGame":     {"": {"x"}},
	} {
		if err := l.SetGames(games); err == nil || oplog.ErrorCode(err) != oplog.EINVALID {
			t.Errorf("%s: %v, want EINVALID", name, err)
		}
	}
	for _, s := range []string{"game", "=Game", "game=", "game= , "} {
		if _, _, err := oplog.ParseGame(s); err == nil || !strings.Contains(err.Error(), "GAME=SOURCE") {
			t.Errorf("ParseGame(%q): %v, want an error saying the form", s, err)
		}
	}
	if g, src, err := oplog.ParseGame(" game = Game, game-console "); err != nil || g != "game" || len(src) != 2 || src[1] != "game-console" {
		t.Errorf("ParseGame: %q %q %v", g, src, err)
	}
}

// TestAddComeback: a crashed call says, once its game has come back, as
// which run; not before.
func TestAddComeback(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	ctx := context.Background()
	_, inFlight, _, _ := crashedRun(t, l)
	r, _ := l.Get(ctx, inFlight)
	oplog.AddComeback(ctx, l, &r)
	if strings.Contains(r.Error, "came back") {
		t.Fatalf("before the game came back: %q", r.Error)
	}
	next := []oplog.Record{{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Text: "run started: python3 game.py"}}
	oplogtest.MustAppend(t, l, next...)
	r, _ = l.Get(ctx, inFlight)
	oplog.AddComeback(ctx, l, &r)
	if want := "; game came back as run 2 (record #" + itoa(next[0].ID) + ")"; !strings.HasSuffix(r.Error, want) || len(r.Error) > oplog.MaxCrashedErrorBytes {
		t.Fatalf("after: %q, want it to end %q", r.Error, want)
	}
	again := r
	oplog.AddComeback(ctx, l, &again)
	if again.Error != r.Error {
		t.Errorf("said twice: %q", again.Error)
	}
}
