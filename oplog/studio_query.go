package oplog

import (
	"context"
	"time"
)

// Studio is every machine of a project in one place: the records each
// machine's mcplogd forwarded (package studio reads them from
// VictoriaLogs). The tools' scope "studio" asks it instead of the local
// Log. Every answer names each record's machine; records are newest first
// by time. An operation's newest row wins: a filter matches an operation
// as it is now, not as it was when it started.
type Studio interface {
	// Search answers q over every machine (or q.Machine). Query strings
	// that LogsQL cannot say the same way are EINVALID, naming why;
	// ReplayOf and run selectors are EINVALID too (not in the studio).
	Search(ctx context.Context, q StudioSearchQuery) (StudioSearchPage, error)

	// List pages the records that pass q's filter, newest first.
	List(ctx context.Context, q StudioListQuery) (StudioPage, error)

	// Get returns the newest row of record id of machine (of its newest
	// revision); ENOTFOUND when the studio has none.
	Get(ctx context.Context, machine string, id uint64) (StudioRecord, error)

	// FindCrashes groups crashes by signature across machines, newest
	// group first.
	FindCrashes(ctx context.Context, q StudioCrashQuery) (StudioCrashPage, error)

	// Names lists the log names of every machine (or machine), of source
	// (empty: any), with counts per level.
	Names(ctx context.Context, source, machine string) ([]StudioNameInfo, error)

	// Digest counts the rows q keeps across machines (see
	// StudioDigestQuery); EINVALID for runs (one machine's).
	Digest(ctx context.Context, q StudioDigestQuery) (Digest, error)

	// Compare compares two windows of every machine's rows (see
	// StudioCompareQuery).
	Compare(ctx context.Context, q StudioCompareQuery) (StudioComparison, error)

	// Project names the project the studio answers for.
	Project() string
}

// StudioDigestQuery asks the studio for a digest of the records Filter
// keeps (no Runs: they are one machine's), of Machine (empty: every
// machine). Levels, names, the record count and the templates of rows
// that carry one are exact; errors over time are counted in the newest
// Sample rows and Digest.Capped says when that was fewer than all, as are
// the templates of rows forwarded without one (Digest.Untemplated); no
// templates are called new.
type StudioDigestQuery struct {
	Filter
	Machine string
	// Sample is how many of the newest rows errors over time (and the
	// templates of rows without one) are counted in;
	// StudioDigestSample when zero.
	Sample int
}

// StudioDigestSample is StudioDigestQuery.Sample's default.
const StudioDigestSample = 10_000

// StudioRecord is a record as one machine forwarded it.
type StudioRecord struct {
	Machine  string
	Revision uint64 // the machine's log revision the ID belongs to
	Record
}

// StudioSearchQuery is a SearchQuery over the studio: Machine narrows it to
// one machine (empty: every machine). Cursor is the previous page's
// StudioSearchPage.NextCursor.
type StudioSearchQuery struct {
	SearchQuery
	Machine string
}

// StudioHit is one record that matched, with a fragment as SearchHit's.
type StudioHit struct {
	StudioRecord
	Fragment string
}

// StudioSearchPage is the answer to a StudioSearchQuery; it has no total.
type StudioSearchPage struct {
	Hits       []StudioHit
	NextCursor string   // empty on the last page
	Cursors    []string // Cursors[i] reads on from Hits[i], for an answer cut short
}

// StudioListQuery asks for records newest first: Count per page
// (DefaultListCount when zero, capped at MaxListCount), from Cursor (the
// previous NextCursor; empty: the newest).
type StudioListQuery struct {
	Filter  // but Runs
	Machine string
	// Run, when not zero, keeps the records of that run of Filter.Source
	// on Machine (runs are each machine's source's); EINVALID without
	// both. Zero: any run.
	Run    uint64
	Count  int
	Cursor string
}

// StudioPage is the answer to a StudioListQuery; it has no total.
type StudioPage struct {
	Records    []StudioRecord
	NextCursor string   // empty on the last page
	Cursors    []string // Cursors[i] reads on from Records[i], for an answer cut short
}

// StudioCrashQuery selects crashes over the studio: Since, Until, Source
// and Limit as in CrashQuery (Runs and Buckets are not supported), Machine
// narrows to one machine.
type StudioCrashQuery struct {
	Since, Until time.Time
	Source       string
	Machine      string
	Limit        int
	Classes      []string // as CrashQuery.Classes; a crash is a group with a fatal occurrence (runs are each machine's)
	MinLevel     Level    // as CrashQuery.MinLevel
}

// MachineCount is how often something happened on one machine.
type MachineCount struct {
	Machine string `json:"machine"`
	Count   int    `json:"count"`
}

// StudioCrashGroup is one crash across machines: CrashGroup's fields over
// every machine (LastID and ExampleID are IDs of LastMachine and
// FirstMachine), and the machines it happened on, most often first.
type StudioCrashGroup struct {
	CrashGroup
	FirstMachine string
	LastMachine  string
	Machines     []MachineCount
}

// StudioCrashPage is the answer to a StudioCrashQuery.
type StudioCrashPage struct {
	Groups []StudioCrashGroup
	Total  int // every matching group, whatever Limit says
}

// StudioNameInfo is a NameInfo of one machine.
type StudioNameInfo struct {
	Machine string
	NameInfo
}
