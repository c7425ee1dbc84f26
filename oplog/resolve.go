package oplog

import (
	"context"
	"strings"
	"time"
)

// sinceLastCompile is the since value that stands for the time of the
// newest compile.start marker (of the source, or of any source).
const sinceLastCompile = "last_compile"

// RunSource is what Resolve needs of a log to read run selectors and
// since=last_compile: its runs and its markers. *Log is one; package
// client's Client asks a running server.
type RunSource interface {
	// ResolveRun turns a run selector of source ("" every source) into
	// Filter.Runs, as Log.ResolveRun does.
	ResolveRun(ctx context.Context, source, sel string) (map[string]uint64, error)
	// LastMarker returns the newest marker of one of the names (of
	// source, "" any), and whether there is one.
	LastMarker(ctx context.Context, source string, names ...string) (Record, bool, error)
}

// Args are the arguments of a read as a tool, an HTTP route or a command
// takes them, written as their callers write them. The zero Args reads
// every record of this machine's log.
type Args struct {
	// SearchText holds the filters (since may be last_compile), the query
	// string, tool, status, replayOf, cursor and limit.
	SearchText

	// Run is a run selector of Source's runs (current, previous, a run
	// number or an offset, see Log.ResolveRun); "" any run.
	Run string
	// Runs are exact runs (source → run), as package client sends a
	// resolved Filter.Runs; nil: not given. Run, when given, replaces them.
	Runs map[string]uint64
	// Against is the run a comparison compares Run with, a selector as
	// Run is (Request.Previous); "" none.
	Against string

	// Scope is "local" (or "": this machine's log) or "studio" (every
	// machine of the project); Machine narrows studio scope to one machine.
	Scope, Machine string

	// StudioWords is how the caller's users ask for studio scope, for
	// the messages that refuse one machine's arguments there: "scope
	// studio" when empty, "scope=studio" over HTTP, "--studio" on the
	// command line.
	StudioWords string
	// RunsWords is where the caller's users see the runs there are,
	// added to the message of a run no source has: "mcplogd runs lists
	// them" on the command line; "" adds nothing.
	RunsWords string
}

// Request is Args resolved: the records to read and where to read them.
type Request struct {
	SearchQuery // Filter.Runs and Filter.Since hold the resolved run and last_compile

	Studio  bool   // read the studio (every machine of the project), not this log
	Machine string // studio scope: only this machine; empty: every machine

	// Previous is Args.Against resolved (source → run), the runs a
	// comparison compares against; nil without Against.
	Previous map[string]uint64
}

// Resolve turns a read's arguments into a Request, with relative times
// counted from now (dates and times without a zone in now's location; see
// ParseBound). It reads runs and markers from src, which may be nil in
// studio scope or when neither Run nor since=last_compile is given.
//
// The query string is parsed and checked here, once (ParseQuery), into
// Request.Tree; the targets compile that tree (SearchQuery.Node).
//
// Errors name the argument as the message's first word ("since: ...",
// "run 7: ...", "query: ..."); the command line puts "--" before it but
// the query's. EINVALID for a bad value (a query that does not parse is
// ParseQuery's error, the same on every surface), for a machine outside
// studio scope and for run, runs, against or since=last_compile in studio
// scope (they are one machine's); ENOTFOUND when no source has the run
// (saying which runs there are, then RunsWords) or no compile.start marker
// exists. Errors of src pass through.
// With an error, the Request still says whether studio scope was asked
// for, so that a caller without a studio can say that first.
func Resolve(ctx context.Context, src RunSource, a Args, now time.Time) (Request, error) {
	var r Request
	switch strings.ToLower(strings.TrimSpace(a.Scope)) {
	case "", "local":
	case "studio":
		r.Studio, r.Machine = true, a.Machine
	default:
		return r, Errorf(EINVALID, "scope: %q: expected local or studio", a.Scope)
	}
	words := a.StudioWords
	if words == "" {
		words = "scope studio"
	}
	lastCompile := isLastCompile(a.Since)
	switch {
	case !r.Studio && a.Machine != "":
		return r, Errorf(EINVALID, "machine: only with %s", words)
	case r.Studio && (strings.TrimSpace(a.Run) != "" || a.Runs != nil):
		return r, Errorf(EINVALID, "run: runs are one machine's; with %s use since and until", words)
	case r.Studio && strings.TrimSpace(a.Against) != "":
		return r, Errorf(EINVALID, "against: runs are one machine's; with %s use since and until", words)
	case r.Studio && lastCompile:
		return r, Errorf(EINVALID, "since: last_compile is one machine's; with %s give a time", words)
	}
	text := a.SearchText
	if lastCompile {
		text.Since = "" // the marker's time, below
	}
	var err error
	if r.SearchQuery, err = text.Parse(now); err != nil {
		return r, err
	}
	if strings.TrimSpace(r.Query) != "" {
		if r.Tree, err = ParseQuery(r.Query); err != nil {
			return r, err
		}
	}
	f := &r.Filter
	f.Runs = a.Runs
	if strings.TrimSpace(a.Run) != "" {
		if f.Runs, err = src.ResolveRun(ctx, f.Source, a.Run); err != nil {
			return r, runError(err, "run", a.RunsWords)
		}
	}
	if strings.TrimSpace(a.Against) != "" {
		if r.Previous, err = src.ResolveRun(ctx, f.Source, a.Against); err != nil {
			return r, runError(err, "against", a.RunsWords)
		}
	}
	if lastCompile {
		f.Since, err = lastCompileTime(ctx, src, f.Source)
	}
	return r, err
}

// runError words an error of ResolveRun for the argument name (run or
// against) and adds words, where the runs are seen, to a run no source
// has; other errors pass.
func runError(err error, name, words string) error {
	code := ErrorCode(err)
	if code != EINVALID && code != ENOTFOUND {
		return err
	}
	msg := ErrorMessage(err)
	if rest, ok := strings.CutPrefix(msg, "run"); ok {
		msg = name + rest
	}
	if code == ENOTFOUND && words != "" {
		msg += "; " + words
	}
	return Errorf(code, "%s", msg)
}

// isLastCompile reports whether a since argument is last_compile.
func isLastCompile(since string) bool {
	return strings.EqualFold(strings.TrimSpace(since), sinceLastCompile)
}

// lastCompileTime is the time of the newest compile.start marker of source
// ("" any source); ENOTFOUND when there is none.
func lastCompileTime(ctx context.Context, src RunSource, source string) (time.Time, error) {
	m, ok, err := src.LastMarker(ctx, source, MarkerCompileStart)
	if err != nil || ok {
		return m.Time, err
	}
	where := "any source"
	if source != "" {
		where = "source " + source
	}
	return time.Time{}, Errorf(ENOTFOUND, "since: last_compile: %s has no compile.start marker yet", where)
}
