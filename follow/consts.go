package follow

import "time"

// Defaults of Options.
const (
	// DefaultPoll is how often a follower looks at its file when nothing
	// changed (Options.Poll <= 0).
	DefaultPoll = 250 * time.Millisecond
	// DefaultQuiet is how long a file must be quiet before the entry the
	// parser holds is stored (Options.Quiet <= 0).
	DefaultQuiet = time.Second
)

// Limits of the reading loop.
const (
	// batchSize is the most records one Append carries: each Append is one
	// fsync, so a busy file is stored in batches of this many.
	batchSize = 1000
	// chunkSize is the size of one read.
	chunkSize = 256 << 10
	// passBytes bounds the bytes read before the loop looks at Close again.
	passBytes = 4 << 20
	// maxLine is the longest line held without a newline: a longer one is
	// cut there, so that a file without newlines cannot eat the memory.
	maxLine = 1 << 20
	// maxWireLine is the longest line of records in the wire format that
	// an import reads: a record at its limits (text, stack, data,
	// arguments and result) written as JSON.
	maxWireLine = 8 << 20
	// activePoll is how soon the file is looked at again after a read
	// found new bytes (Options.Poll when that is shorter): a file being
	// written is followed closely, an idle one is looked at every Poll.
	activePoll = 10 * time.Millisecond
	// headSize is how much of a file's beginning its identity hashes, so that
	// a recreated file that reuses the inode is told apart.
	headSize = 256
	// resumeScan bounds the records of the source looked at on Start for the
	// newest one that carries a position (other writers may share the source).
	resumeScan = 10_000
)

// Bounds on one entry, so that a runaway continuation (a file of nothing
// but indented lines) neither holds memory without limit nor makes a
// record the Log refuses: past them the entry is completed and the next
// line starts a new one.
const (
	maxEntryStack = 256 << 10
	maxEntryLines = 4000
)

// detectLines is how many lines auto detection reads at most before it
// chooses.
const detectLines = 20

// Years outside what the Log stores (it refuses the record) make a
// timestamp no timestamp.
const (
	minYear = 1971
	maxYear = 2261
)

// ptyColumns is the width of the pseudo-terminal a game runs on under
// mcplogd run (command_unix.go).
const ptyColumns = 1024

// reportPause is how long the follower and mcplogd run wait, after output
// went quiet, for the rest of a report that pauses between its parts
// (waiter): Wine's debugger starts, and loads the program's symbols,
// between ntdll's line and its report.
const reportPause = 10 * time.Second
