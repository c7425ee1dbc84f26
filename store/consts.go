package store

import "time"

// Defaults of Options: a zero field means these. The file's format version
// is the schema version of package migrations (migrations.Latest); the
// record format is codec.Format.
const (
	// DefaultTimeout is how long Open waits for another process's lock.
	DefaultTimeout = time.Second

	// DefaultRetentionInterval is how often MaxAge is checked, unless
	// MaxAge/10 is shorter (but never under minRetentionInterval).
	DefaultRetentionInterval = time.Minute

	// DefaultTrimBatch is how many records one retention transaction
	// removes at most, so that trimming never holds the writer lock long.
	DefaultTrimBatch = 10_000

	// DefaultMaxCommitRecords is how many records one group commit takes
	// at most; a single larger batch still commits whole.
	DefaultMaxCommitRecords = 20_000
)

const (
	// minRetentionInterval keeps a tiny MaxAge from checking in a busy loop.
	minRetentionInterval = 10 * time.Millisecond

	// requestQueue is how many appends and completions may wait for the
	// committer before senders block: enough for every writer of a busy
	// server to queue behind the transaction that is syncing.
	requestQueue = 1024
)
