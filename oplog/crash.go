package oplog

import (
	"context"
	"slices"
	"time"
)

// CrashIndex groups error records with stack traces by a normalised stack
// signature, behind Log.FindCrashes. It is fed in the background from the
// store and may lag behind it, but its answers must be exact: what it has
// not read yet it reads at query time. Package crash implements it.
type CrashIndex interface {
	// FindCrashes answers q, already validated, with Limit in
	// 1..MaxCrashLimit.
	FindCrashes(ctx context.Context, q CrashQuery) (CrashPage, error)

	// Close stops the background work.
	Close() error
}

// CrashLastFrames is how many frames of its newest occurrence's stack a
// CrashGroup carries in LastFrames.
const CrashLastFrames = 5

// CrashQuery selects crashes. The zero CrashQuery asks for the newest
// DefaultCrashLimit groups of every retained crash.
type CrashQuery struct {
	Since  time.Time         // only occurrences with Time >= Since; zero: no bound
	Until  time.Time         // only occurrences with Time < Until; zero: no bound
	Source string            // only occurrences from this source; empty: any
	Runs   map[string]uint64 // only occurrences of these sources' runs (Filter.Runs); nil: any
	Limit  int               // most groups to return; DefaultCrashLimit when zero, capped at MaxCrashLimit

	// Classes keeps only groups of these classes (CrashClasses); nil or
	// empty: crashes and errors, not compile diagnostics.
	Classes []string
	// MinLevel keeps only occurrences at this level or above (LevelFatal:
	// the fatal ones); zero: error and fatal alike.
	MinLevel Level

	// Buckets, when positive, asks for each group's occurrences counted in
	// Buckets equal slices of time (CrashGroup.Histogram), for a sparkline.
	// The span is [Since, Until), a zero bound standing for the earliest
	// matching occurrence of any group, or just after the latest. Capped at
	// MaxCrashBuckets; zero: no histogram.
	Buckets int
}

// The classes of crash groups.
const (
	// ClassCrash: a group with a fatal occurrence (an engine's crash
	// handler, an uncaught error that stopped the game) or one that ended
	// a run (RunInfo.CrashID), a script's compile error the game gave up
	// on too.
	ClassCrash = "crash"
	// ClassError: an exception or error with a stack, logged while the
	// game went on.
	ClassError = "error"
	// ClassCompile: compiler and script-parser diagnostics that ended no
	// run.
	ClassCompile = "compile"
)

// CrashClasses lists the classes, in the order find_crashes ranks them.
var CrashClasses = []string{ClassCrash, ClassError, ClassCompile}

// CrashGroup is one crash, however often it happened: the occurrences
// (records) that share a stack signature and match the query.
type CrashGroup struct {
	Signature string `json:"signature"` // 16 hex digits, stable across restarts for the same trace
	// Title is one line: the newest occurrence's message and the game's
	// own top frame, "NullReferenceException: Object reference not set
	// to an instance of an object in Player.Update () (at
	// Assets/Player.cs:42)".
	Title string `json:"title"`
	// Class is ClassCrash, ClassError or ClassCompile.
	Class string `json:"class"`
	// Level is the highest level among the matching occurrences.
	Level Level `json:"level"`
	// RunsEnded counts the runs whose crash (RunInfo.CrashID) is one of
	// the matching occurrences.
	RunsEnded int `json:"runsEnded"`
	// Message is the newest occurrence's message, as written; "" when
	// that record is gone.
	Message string `json:"message,omitempty"`
	// Frame is the first frame of the newest occurrence's stack that
	// belongs to the game (its project, scripts, mods or crate), file and
	// line kept; "" when none does.
	Frame string `json:"frame,omitempty"`
	// LastRun is the run of the newest matching occurrence (of its first
	// source).
	LastRun uint64 `json:"lastRun,omitempty"`
	// FramesAt is where the frames of the newest occurrence's stack begin,
	// in bytes: past a native dump's preamble (symbol paths, loaded
	// modules), so that an excerpt of the stack can show frames.
	FramesAt  int       `json:"framesAt,omitempty"`
	Frames    []string  `json:"frames"`    // the normalised top frames that make the signature
	Count     int       `json:"count"`     // matching occurrences
	FirstSeen time.Time `json:"firstSeen"` // the earliest matching occurrence's time
	LastSeen  time.Time `json:"lastSeen"`  // the latest matching occurrence's time
	Sources   []string  `json:"sources"`   // the sources it happened in, sorted
	ExampleID uint64    `json:"exampleId"` // the oldest matching occurrence still retained: where it started
	LastID    uint64    `json:"lastId"`    // the newest matching occurrence
	// CauseID is the exception the newest occurrence, a game's own fatal
	// line without a stack, gave up on (a thread's uncaught exception just
	// before "FATAL: … exiting"): its title and frames are the group's; or
	// the failed assertion the newest occurrence, a crash dump, was for:
	// its message titles the group, the dump's frames place it. 0 for
	// none.
	CauseID uint64 `json:"causeId,omitempty"`

	// LastFrames are the top frames of the newest occurrence's stack as it
	// writes them, file and line kept ("at Spawner.Update () in
	// Assets/Scripts/Spawner.cs:42"), at most CrashLastFrames; nil when
	// that record is gone or past the first groups an index fills.
	LastFrames []string `json:"lastFrames,omitempty"`

	// Histogram counts the matching occurrences per slice of
	// [CrashPage.HistogramFrom, CrashPage.HistogramUntil), oldest first,
	// when the query asked for Buckets; else nil.
	Histogram []int `json:"histogram,omitempty"`
}

// CrashPage is the answer to a CrashQuery: first the groups that ended
// runs, by their newest run-ending occurrence, newest first; then the
// other crashes, errors and compile diagnostics (in that order), each
// newest first by LastSeen, then LastID.
type CrashPage struct {
	Groups []CrashGroup
	Total  int    // every matching group, whatever Limit says
	LastID uint64 // the newest record ID the answer covers

	// HistogramFrom and HistogramUntil bound the groups' histograms; zero
	// without one.
	HistogramFrom, HistogramUntil time.Time
}

// FindCrashes returns error and fatal records with stack traces (and
// operations that failed with one), grouped by stack signature, newest
// group first. EINVALID for a negative limit or until not after since;
// EUNAVAILABLE when the Log has no crash index.
func (l *Log) FindCrashes(ctx context.Context, q CrashQuery) (CrashPage, error) {
	if err := ctx.Err(); err != nil {
		return CrashPage{}, err
	}
	var err error
	if q.Limit, err = CheckLimit("limit", q.Limit, DefaultCrashLimit, MaxCrashLimit); err != nil {
		return CrashPage{}, err
	}
	if q.Buckets, err = CheckLimit("buckets", q.Buckets, 0, MaxCrashBuckets); err != nil {
		return CrashPage{}, err
	}
	if err := checkFilter(&Filter{Since: q.Since, Until: q.Until}); err != nil {
		return CrashPage{}, err
	}
	q.Source, q.Runs = l.Game(q.Source), l.gameRuns(q.Runs)
	for _, c := range q.Classes {
		if !slices.Contains(CrashClasses, c) {
			return CrashPage{}, Errorf(EINVALID, "class: want crash, error or compile, got %q", c)
		}
	}
	if q.MinLevel != 0 && q.MinLevel < LevelError {
		return CrashPage{}, Errorf(EINVALID, "level: crashes are at level error or fatal, got %s", q.MinLevel)
	}
	l.mu.Lock()
	c, closed := l.crashes, l.closed
	l.mu.Unlock()
	switch {
	case closed:
		return CrashPage{}, ErrClosed
	case c == nil:
		return CrashPage{}, Errorf(EUNAVAILABLE, "crash triage is not set up on this log (no crash index)")
	}
	return c.FindCrashes(ctx, q)
}

// SetCrashes gives the Log its crash index, which it then owns (Close
// closes it). Call it before serving.
func (l *Log) SetCrashes(c CrashIndex) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.crashes = c
}
