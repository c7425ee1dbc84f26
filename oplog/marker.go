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
//	exit            the run's process ended: mcplogd run saw it end (its
//	                Data says how: "exitCode", or "signal" and
//	                "signalNumber"; level info for status 0 or a stop
//	                mcplogd asked for, error for another status or signal,
//	                fatal for a crash's signal), or a parser read the
//	                engine's own clean-shutdown line (Data "reason":
//	                "shutdown", level info)
//	end             mcplogd stopped reading the run with no sign of how it
//	                ended: an import reached the end of its file, a
//	                follower stopped or its file was rotated (Data
//	                "reason")
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
	MarkerEnd           = "end"
)

// ReasonImportEnded is the "reason" of the end marker an import appends
// when it reached the end of its input: the log as written, to its end.
const ReasonImportEnded = "import ended"

// Markers lists the marker names.
var Markers = []string{MarkerRun, MarkerCompileStart, MarkerCompileOK, MarkerCompileFailed, MarkerExit, MarkerEnd}

// RunInfo describes one run of one source: its records and how it ended
// (outcome.go says how the outcome is decided).
type RunInfo struct {
	Source  string    `json:"source"`
	Run     uint64    `json:"run"`
	Start   time.Time `json:"start"`   // its first record's time
	Last    time.Time `json:"last"`    // its latest record's time
	FirstID uint64    `json:"firstId"` // its first record
	LastID  uint64    `json:"lastId"`  // its newest record
	Records uint64    `json:"records"` // records appended in it (retention does not lower it)
	Errors  uint64    `json:"errors"`  // of them at level error or fatal

	// Outcome is how the run ended: OutcomeCrashed, OutcomeExited,
	// OutcomeEnded or OutcomeRunning.
	Outcome string `json:"outcome"`
	// EndID is the record that decided Outcome (the crash, the exit
	// marker or shutdown line, the end marker, the next run's first
	// record); 0 while it is running.
	EndID uint64 `json:"endId,omitempty"`
	// End is EndID's time (for OutcomeEnded, the run's last record's);
	// zero while it is running.
	End time.Time `json:"end,omitzero"`
	// CrashID is the crash that ended a crashed run: its first fatal
	// record; when a failing exit status ended it, the error with a stack
	// printed just before the exit marker (else the exit marker); when
	// the next run began just after an error with a stack, that error
	// (outcome.go).
	CrashID uint64 `json:"crashId,omitempty"`
	// ErrorID is the run's newest error or fatal record with a stack.
	ErrorID uint64 `json:"errorId,omitempty"`
	// AfterError counts the run's records after ErrorID, and ErrorTime
	// is ErrorID's time when it is a traceback (zero otherwise): whether
	// the run ended just after it.
	AfterError uint64    `json:"-"`
	ErrorTime  time.Time `json:"-"`
	// InFlight counts the run's operations still pending: whether a call
	// was unanswered when the next run began.
	InFlight uint64 `json:"-"`
}

// RunStore is what a Store that keeps runs adds (package store and the
// memory store of oplogtest do).
type RunStore interface {
	// Runs returns the runs of source ("" every source), by source then
	// run, oldest first.
	Runs(source string) ([]RunInfo, error)
	// Run returns run of source, or for run 0 its newest (which appends
	// go to); false when there is none. It costs the same however many
	// runs the source has.
	Run(source string, run uint64) (RunInfo, bool, error)
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
	runs, err := rs.Runs(l.Game(source))
	if err != nil {
		return nil, err
	}
	// Runs stored before outcomes were kept: the newest of a source is
	// running, the others ended when the next began.
	for i := range runs {
		if r := &runs[i]; r.Outcome == "" {
			r.Outcome = OutcomeRunning
			if i+1 < len(runs) && runs[i+1].Source == r.Source {
				r.Outcome, r.End = OutcomeEnded, r.Start
			}
		}
		if r := &runs[i]; r.Last.IsZero() {
			r.Last = r.Start
		}
	}
	return runs, nil
}

// Latest returns the indexes into runs (by source, then run, as Runs
// returns them) of each source's newest and previous run, by time: the
// run with the latest start is a source's current one, whatever its
// number (an old log imported late has high run numbers and old times).
// previous is -1 when the source has one run.
func Latest(runs []RunInfo) map[string][2]int {
	out := map[string][2]int{}
	for i := range runs {
		r := &runs[i]
		p, ok := out[r.Source]
		if !ok {
			out[r.Source] = [2]int{i, -1}
			continue
		}
		switch {
		case later(r, &runs[p[0]]):
			out[r.Source] = [2]int{i, p[0]}
		case p[1] < 0 || later(r, &runs[p[1]]):
			out[r.Source] = [2]int{p[0], i}
		}
	}
	return out
}

// later reports whether run a started after run b (the higher run first
// at the same time).
func later(a, b *RunInfo) bool {
	if !a.Start.Equal(b.Start) {
		return a.Start.After(b.Start)
	}
	return a.Run > b.Run
}

// ResolveRun turns a run selector as callers write it into Filter.Runs:
// "current" or "" (each source's newest run by time, see Latest),
// "previous" (the one before it), a run number, or an offset as
// journalctl's -b takes it and `mcplogd runs` prints it ("0" the current
// run, "-1" the previous, "-2" the one before); source "" means every
// source (a number or an offset then selects that run of each source that
// had it). "" gives nil: any run. EINVALID for another selector,
// ENOTFOUND when no source has that run, its message saying which runs
// there are: "run 7: no source has a run 7 (runs go from 1 to 3)".
func (l *Log) ResolveRun(ctx context.Context, source, sel string) (map[string]uint64, error) {
	sel = strings.ToLower(strings.TrimSpace(sel))
	if sel == "" {
		return nil, nil
	}
	n, err := strconv.ParseUint(sel, 10, 64)
	back, isOffset := runOffset(sel)
	if sel != "current" && sel != "previous" && !isOffset && (err != nil || n == 0) {
		return nil, Errorf(EINVALID, "run: want current, previous or a run number, or an offset as mcplogd runs prints it (0, -1, ...), got %q", sel)
	}
	runs, err := l.Runs(ctx, source)
	if err != nil {
		return nil, err
	}
	if isOffset {
		return runsBack(runs, source, sel, back)
	}
	out := map[string]uint64{}
	for src, p := range Latest(runs) {
		switch {
		case sel == "current":
			out[src] = runs[p[0]].Run
		case sel == "previous" && p[1] >= 0:
			out[src] = runs[p[1]].Run
		}
	}
	for _, r := range runs {
		if n > 0 && r.Run == n {
			out[r.Source] = n
		}
	}
	if len(out) == 0 {
		return nil, noSuchRun(runs, source, sel, 0)
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
