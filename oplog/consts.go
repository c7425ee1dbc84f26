package oplog

import "time"

// DefaultSource is the source of records whose writer named none.
const DefaultSource = "default"

// Bounds on what a record may hold, so one bad writer cannot store a record
// no reader can load.
const (
	MaxTextBytes  = 256 << 10 // text
	MaxStackBytes = 1 << 20   // stack trace
	MaxJSONBytes  = 1 << 20   // data, arguments and result, each
	MaxLabelBytes = 256       // source, name and tool
	summaryRunes  = 200       // an operation's one-line summary
)

// Record times outside these years are refused.
const (
	MinRecordYear = 1971
	MaxRecordYear = 2261
)

// The records one request may become are held to MaxExpansion times the
// server's body limit, each record counted RecordCost bytes besides its
// own text, stack, labels and JSON (about the oplog.Record that holds it,
// 288 bytes, and its share of the commit), so that the memory a request
// takes follows its size: a body of many tiny lines, or OTLP's resource
// attributes copied into each of many log records, is refused with 413.
const (
	MaxExpansion = 8
	RecordCost   = 512
)

// Limits of one read. Larger requested limits are capped, not refused, as the
// seeds' console_tail caps at its buffer.
const (
	DefaultTailLimit = 200
	MaxTailLimit     = 1000
	DefaultListCount = 10
	MaxListCount     = 1000
	MaxWait          = 30 * time.Second // the longest long poll
)

// Limits of one search page. Larger requested limits are capped, not refused.
const (
	DefaultSearchLimit = 50
	MaxSearchLimit     = 500
	fragmentBytes      = 160 // a hit's fragment around the matched word
)

// A traceback that a failing exit status (or the next run's start) comes
// after within exitAfterErrorRecords records of its run and
// exitAfterErrorTime is the crash that ended the run: Python prints a line
// or two more after an uncaught exception (its notes, "settings saved" of
// an exit handler, "Exception ignored in" of a destructor) as it exits.
const (
	exitAfterErrorRecords = 3
	exitAfterErrorTime    = 2 * time.Second
)

// Bounds of a crash query.
const (
	DefaultCrashLimit = 20
	MaxCrashLimit     = 1000
	MaxCrashBuckets   = 200
)

// maxIndexedList bounds Offset+Count for List through the index, which
// collects that many IDs; deeper pages walk the store.
const maxIndexedList = 5000

// denseShare: filters that keep at least one record in this many are
// answered by walking the store backwards (about denseShare records read per
// hit); sparser ones by the index, whose cost follows the hits.
const denseShare = 200

// cursorVersion is the first byte of a search cursor, so that a cursor of
// an older format is refused rather than misread.
const cursorVersion = 1
