package oplog

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Runs and markers. Each source's records belong to runs: one launch of the
// game or editor that writes them. A marker record (KindMarker) marks a
// moment of a source's life; its Name says which:
//
//	run             a new run started (the engine's start banner, a truncated
//	                log file, an upstream's console reset); it and the
//	                source's later records belong to the next run
//	compile.start   a compile (Unity script compilation, a Godot script
//	                reload) started
//	compile.ok      it succeeded (synthesised when the engine prints
//	                nothing on success)
//	compile.failed  it failed (level error)
//	exit            the process a run launched (mcplogd run) ended; its
//	                Data says how: "exitCode", or "signal" and
//	                "signalNumber" (level info for status 0, error for
//	                another status or a stop from outside, fatal for a
//	                crash's signal)
//
// The Store sets every record's Run as it appends it: the source's current
// run, counted from 1 (a source's first record starts run 1 when it is not
// a run marker itself). Markers are what an agent polls for after changing
// a script: tails show them beside the lines (Filter.WithMarkers).
const (
	MarkerRun           = "run"
	MarkerCompileStart  = "compile.start"
	MarkerCompileOK     = "compile.ok"
	MarkerCompileFailed = "compile.failed"
	MarkerExit          = "exit"
)

// Markers lists the marker names.
var Markers = []string{MarkerRun, MarkerCompileStart, MarkerCompileOK, MarkerCompileFailed, MarkerExit}

// RunInfo describes one run of one source.
type RunInfo struct {
	Source  string    `json:"source"`
	Run     uint64    `json:"run"`
	Start   time.Time `json:"start"`   // its first record's time
	FirstID uint64    `json:"firstId"` // its first record
	LastID  uint64    `json:"lastId"`  // its newest record
	Records uint64    `json:"records"` // records appended in it (retention does not lower it)
	Errors  uint64    `json:"errors"`  // of them at level error or fatal
}

// RunStore is what a Store that keeps runs adds (package store and the
// memory store of oplogtest do).
type RunStore interface {
	// Runs returns the runs of source ("" every source), by source then
	// run, oldest first.
	Runs(source string) ([]RunInfo, error)
}

// Runs returns the runs of source ("" every source), by source then run;
// EUNAVAILABLE when the Store keeps none.
func (l *Log) Runs(ctx context.Context, source string) ([]RunInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rs, ok := l.store.(RunStore)
	if !ok {
		return nil, Errorf(EUNAVAILABLE, "run: this log keeps no runs")
	}
	return rs.Runs(source)
}

// ResolveRun turns a run selector as callers write it into Filter.Runs:
// "current" or "" (each source's newest run), "previous" (the one before
// it), or a run number; source "" means every source (a number then
// selects that run of each source that had it). "" gives nil: any run.
// EINVALID for another selector, ENOTFOUND when no source has that run.
func (l *Log) ResolveRun(ctx context.Context, source, sel string) (map[string]uint64, error) {
	sel = strings.ToLower(strings.TrimSpace(sel))
	if sel == "" {
		return nil, nil
	}
	n, err := strconv.ParseUint(sel, 10, 64)
	if sel != "current" && sel != "previous" && (err != nil || n == 0) {
		return nil, Errorf(EINVALID, "run: want current, previous or a run number, got %q", sel)
	}
	runs, err := l.Runs(ctx, source)
	if err != nil {
		return nil, err
	}
	newest := map[string]uint64{}
	has := map[string]map[uint64]bool{}
	for _, r := range runs {
		newest[r.Source] = max(newest[r.Source], r.Run)
		if has[r.Source] == nil {
			has[r.Source] = map[uint64]bool{}
		}
		has[r.Source][r.Run] = true
	}
	out := map[string]uint64{}
	for src, cur := range newest {
		switch {
		case sel == "current":
			out[src] = cur
		case sel == "previous" && cur > 1:
			out[src] = cur - 1
		case n > 0 && has[src][n]:
			out[src] = n
		}
	}
	if len(out) == 0 {
		what := "source " + strconv.Quote(source)
		if source == "" {
			what = "any source"
		}
		return nil, Errorf(ENOTFOUND, "run: %s has no %s run", what, sel)
	}
	return out, nil
}

// LastMarker returns the newest marker of one of the names (of source, ""
// any), and whether there is one.
func (l *Log) LastMarker(ctx context.Context, source string, names ...string) (Record, bool, error) {
	var best Record
	for _, name := range names {
		p, err := l.List(ctx, Query{Filter: Filter{Kind: KindMarker, Name: name, Source: source}, Count: 1})
		if err != nil {
			return Record{}, false, err
		}
		if len(p.Records) > 0 && p.Records[0].ID > best.ID {
			best = p.Records[0]
		}
	}
	return best, best.ID != 0, nil
}
