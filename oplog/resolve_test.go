package oplog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// TestResolve: every adapter's arguments become a Request here, so each
// case is what a tool, a route and a command all answer.
func TestResolve(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(r oplog.Record, s int) oplog.Record { r.Time = t0.Add(time.Duration(s) * time.Second); return r }
	recs := oplogtest.MustAppend(t, l,
		at(oplog.Record{Source: "unity", Level: oplog.LevelInfo, Text: "first run"}, 0),
		at(oplog.Record{Source: "unity", Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Text: "started"}, 1),
		at(oplog.Record{Source: "unity", Kind: oplog.KindMarker, Name: oplog.MarkerCompileStart, Level: oplog.LevelInfo, Text: "reload"}, 2),
		at(oplog.Record{Source: "godot", Level: oplog.LevelInfo, Text: "no compiles here"}, 3))
	compiled := recs[2].Time
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	text := func(ft oplog.FilterText) oplog.SearchText { return oplog.SearchText{FilterText: ft} }

	for _, c := range []struct {
		name  string
		args  oplog.Args
		check func(r oplog.Request) string // "" when r is right
		err   string                       // the error's code and message start, "invalid: since: ..."
	}{
		{name: "OK/Empty", args: oplog.Args{}, check: func(r oplog.Request) string {
			if r.Studio || r.Filter.Runs != nil || !r.Filter.Since.IsZero() {
				return "the zero Args read everything"
			}
			return ""
		}},
		{name: "OK/Filters", args: oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Level: "warn", Name: "Physics",
			Kind: "op", Source: "unity"}, Query: "null", Tool: "build", Status: "error", ReplayOf: "7", Limit: 5, Cursor: "c"}},
			check: func(r oplog.Request) string {
				q := r.SearchQuery
				if q.MinLevel != oplog.LevelWarn || q.Name != "Physics" || q.Kind != oplog.KindOp || q.Source != "unity" || q.Query != "null" ||
					q.Tool != "build" || q.Status != oplog.StatusError || q.ReplayOf != 7 || q.Limit != 5 || q.Cursor != "c" ||
					q.Tree == nil {
					return fmt.Sprintf("%+v", q)
				}
				return ""
			}},
		{name: "OK/TimeWords", args: oplog.Args{SearchText: text(oplog.FilterText{Since: "yesterday", Until: "-1h"})},
			check: func(r oplog.Request) string {
				if !r.Filter.Since.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) || !r.Filter.Until.Equal(now.Add(-time.Hour)) {
					return fmt.Sprintf("since %s until %s", r.Filter.Since, r.Filter.Until)
				}
				return ""
			}},
		{name: "OK/RunCurrent", args: oplog.Args{Run: "current", SearchText: text(oplog.FilterText{Source: "unity"})},
			check: wantRuns(map[string]uint64{"unity": 2})},
		{name: "OK/RunPrevious", args: oplog.Args{Run: "previous", SearchText: text(oplog.FilterText{Source: "unity"})},
			check: wantRuns(map[string]uint64{"unity": 1})},
		{name: "OK/RunOffsetEverySource", args: oplog.Args{Run: "0"}, check: wantRuns(map[string]uint64{"unity": 2, "godot": 1})},
		{name: "OK/RunReplacesRuns", args: oplog.Args{Run: "1", Runs: map[string]uint64{"x": 9}},
			check: wantRuns(map[string]uint64{"unity": 1, "godot": 1})},
		{name: "OK/ExactRuns", args: oplog.Args{Runs: map[string]uint64{"x": 9}}, check: wantRuns(map[string]uint64{"x": 9})},
		{name: "OK/LastCompile", args: oplog.Args{SearchText: text(oplog.FilterText{Since: " Last_Compile "})},
			check: func(r oplog.Request) string {
				if !r.Filter.Since.Equal(compiled) {
					return fmt.Sprintf("since %s; want the marker's %s", r.Filter.Since, compiled)
				}
				return ""
			}},
		{name: "OK/Studio", args: oplog.Args{Scope: "Studio", Machine: "ci-7", SearchText: text(oplog.FilterText{Since: "-15m"})},
			check: func(r oplog.Request) string {
				if !r.Studio || r.Machine != "ci-7" || !r.Filter.Since.Equal(now.Add(-15*time.Minute)) {
					return fmt.Sprintf("%+v", r)
				}
				return ""
			}},
		{name: "OK/Local", args: oplog.Args{Scope: "local"}, check: func(r oplog.Request) string {
			if r.Studio {
				return "studio"
			}
			return ""
		}},

		{name: "ErrNotFound/LastCompileOfSource", args: oplog.Args{SearchText: text(oplog.FilterText{Source: "godot", Since: "last_compile"})},
			err: "not_found: since: last_compile: source godot has no compile.start marker yet"},
		{name: "OK/Against", args: oplog.Args{Run: "current", Against: "-1", SearchText: text(oplog.FilterText{Source: "unity"})},
			check: func(r oplog.Request) string {
				if fmt.Sprint(r.Filter.Runs, r.Previous) != "map[unity:2] map[unity:1]" {
					return fmt.Sprintf("runs %v against %v; want unity's 2 against its 1", r.Filter.Runs, r.Previous)
				}
				return ""
			}},

		// A run no source has names the selector and the runs there are.
		{name: "ErrNotFound/Run", args: oplog.Args{Run: "previous", SearchText: text(oplog.FilterText{Source: "godot"})},
			err: `not_found: run previous: source "godot" has no previous run (its only run is 1)`},
		{name: "ErrNotFound/RunNumber", args: oplog.Args{Run: "7"}, err: `not_found: run 7: no source has a run 7 (runs go from 1 to 2)`},
		{name: "ErrNotFound/RunNumberOfSource", args: oplog.Args{Run: "7", SearchText: text(oplog.FilterText{Source: "unity"})},
			err: `not_found: run 7: source "unity" has no run 7 (its runs go from 1 to 2)`},
		{name: "ErrNotFound/RunNumberCLI", args: oplog.Args{Run: " 7", RunsWords: "mcplogd runs lists them"},
			err: `not_found: run 7: no source has a run 7 (runs go from 1 to 2); mcplogd runs lists them`},
		{name: "ErrNotFound/RunOffset", args: oplog.Args{Run: "-2"}, err: `not_found: run -2: no source has a run at offset -2 (offsets go from 0 to -1)`},
		{name: "ErrNotFound/RunOfNoSource", args: oplog.Args{Run: "current", SearchText: text(oplog.FilterText{Source: "nobody"})},
			err: `not_found: run current: source "nobody" has no runs`},
		{name: "ErrNotFound/Against", args: oplog.Args{Against: "9", RunsWords: "store_info lists them"},
			err: `not_found: against 9: no source has a run 9 (runs go from 1 to 2); store_info lists them`},
		{name: "ErrInvalid/Against", args: oplog.Args{Against: "latest"}, err: "invalid: against: want current, previous or a run number"},
		{name: "ErrInvalid/StudioAgainst", args: oplog.Args{Scope: "studio", Against: "1"},
			err: "invalid: against: runs are one machine's; with scope studio use since and until"},
		{name: "ErrInvalid/RunSelector", args: oplog.Args{Run: "latest"}, err: "invalid: run: want current, previous or a run number"},
		{name: "ErrInvalid/Since", args: oplog.Args{SearchText: text(oplog.FilterText{Since: "the day before"})}, err: "invalid: since: cannot read time"},
		{name: "ErrInvalid/Until", args: oplog.Args{SearchText: text(oplog.FilterText{Until: "soon"})}, err: "invalid: until: cannot read time"},
		{name: "ErrInvalid/Level", args: oplog.Args{SearchText: text(oplog.FilterText{Level: "loud"})}, err: "invalid: level: "},
		{name: "ErrInvalid/Status", args: oplog.Args{SearchText: oplog.SearchText{Status: "bogus"}}, err: "invalid: status: "},
		{name: "ErrInvalid/Query", args: oplog.Args{SearchText: oplog.SearchText{Query: "level:loud"}}, err: "invalid: query: "},
		{name: "ErrInvalid/Scope", args: oplog.Args{Scope: "team"}, err: `invalid: scope: "team": expected local or studio`},
		{name: "ErrInvalid/MachineLocal", args: oplog.Args{Machine: "ci-7"}, err: "invalid: machine: only with scope studio"},
		{name: "ErrInvalid/MachineLocalCLI", args: oplog.Args{Machine: "ci-7", StudioWords: "--studio"}, err: "invalid: machine: only with --studio"},
		{name: "ErrInvalid/StudioRun", args: oplog.Args{Scope: "studio", Run: "current"},
			err: "invalid: run: runs are one machine's; with scope studio use since and until"},
		{name: "ErrInvalid/StudioRuns", args: oplog.Args{Scope: "studio", Runs: map[string]uint64{}, StudioWords: "scope=studio"},
			err: "invalid: run: runs are one machine's; with scope=studio use since and until"},
		{name: "ErrInvalid/StudioLastCompile", args: oplog.Args{Scope: "studio", SearchText: text(oplog.FilterText{Since: "last_compile"})},
			err: "invalid: since: last_compile is one machine's; with scope studio give a time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := oplog.Resolve(context.Background(), l, c.args, now)
			if c.err != "" {
				if got := oplog.ErrorCode(err) + ": " + oplog.ErrorMessage(err); err == nil || !strings.HasPrefix(got, c.err) {
					t.Fatalf("Resolve(%+v) = %v; want %s…", c.args, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%+v): %v", c.args, err)
			}
			if msg := c.check(r); msg != "" {
				t.Errorf("Resolve(%+v): %s", c.args, msg)
			}
		})
	}
}

// TestResolve_RunOfEmptyLog: before any record, a run selector says that
// no source has a run yet.
func TestResolve_RunOfEmptyLog(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	_, err := oplog.Resolve(context.Background(), l, oplog.Args{Run: "3"}, time.Now())
	if got := oplog.ErrorCode(err) + ": " + oplog.ErrorMessage(err); got != "not_found: run 3: no source has any run yet" {
		t.Errorf("run 3 of an empty log: %s", got)
	}
}

func wantRuns(want map[string]uint64) func(oplog.Request) string {
	return func(r oplog.Request) string {
		if fmt.Sprint(r.Filter.Runs) != fmt.Sprint(want) {
			return fmt.Sprintf("runs %v; want %v", r.Filter.Runs, want)
		}
		return ""
	}
}

// TestResolve_StudioNeedsNoRuns: studio scope and arguments without run or
// last_compile never ask for runs, so a caller without a log may resolve them.
func TestResolve_StudioNeedsNoRuns(t *testing.T) {
	for _, a := range []oplog.Args{{Scope: "studio"}, {SearchText: oplog.SearchText{Query: "x"}}} {
		if _, err := oplog.Resolve(context.Background(), nil, a, time.Now()); err != nil {
			t.Errorf("Resolve(nil, %+v): %v", a, err)
		}
	}
}

// TestResolve_StudioAskedOnError: a refused argument still says studio
// scope was asked for, so that a server without a studio says that first.
func TestResolve_StudioAskedOnError(t *testing.T) {
	r, err := oplog.Resolve(context.Background(), nil, oplog.Args{Scope: "studio", Run: "current"}, time.Now())
	if err == nil || !r.Studio {
		t.Errorf("Resolve(studio, run) = %+v, %v; want an error and Studio", r, err)
	}
}

// TestResolve_SourceErrors: an error of the log passes through as it is.
func TestResolve_SourceErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := oplog.Resolve(context.Background(), failing{boom}, oplog.Args{Run: "current"}, time.Now())
	if !errors.Is(err, boom) {
		t.Errorf("run: %v; want %v", err, boom)
	}
	_, err = oplog.Resolve(context.Background(), failing{boom}, oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Since: "last_compile"}}}, time.Now())
	if !errors.Is(err, boom) {
		t.Errorf("last_compile: %v; want %v", err, boom)
	}
}

type failing struct{ err error }

func (f failing) ResolveRun(context.Context, string, string) (map[string]uint64, error) {
	return nil, f.err
}
func (f failing) LastMarker(context.Context, string, ...string) (oplog.Record, bool, error) {
	return oplog.Record{}, false, f.err
}
