package follow

import (
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Entry is a record a parser completed, with the file offset just after its last line.
type Entry struct {
	Record oplog.Record // Kind line; Source is set by the follower
	End    int64        // offset just past the newline of the entry's last line
}

// Parser turns a file's lines into records. It may hold lines until it knows
// an entry has ended (a multi-line stack trace).
type Parser interface {
	// Line takes one complete line (without its newline, \r trimmed) that
	// ends at offset end, and returns the entries it completed (usually the
	// one held before it).
	Line(line string, end int64) []Entry
	// Flush returns the entry held, if any: called when the file has been
	// quiet for a moment (Options.Quiet), before a rotation or truncation is
	// followed, and at stop.
	Flush() []Entry
	// Name is the parser's name ("unity", "log4j", "godot", "unreal", "generic", "plain").
	Name() string
}

// waiter is a Parser that can say it holds a report whose parts come with
// pauses between them (Wine's: ntdll's line, then winedbg's report a second
// or more later, once the debugger started; AddressSanitizer's, which stops
// after its first line to symbolize the frames): a quiet moment is not its end,
// and the follower and mcplogd run wait up to reportPause for the rest
// before they flush it.
type waiter interface {
	waiting() bool
}

// waitingFor reports whether p holds such a report.
func waitingFor(p Parser) bool {
	w, ok := p.(waiter)
	return ok && w.waiting()
}

// settler is a Parser that may hold lines it has not parsed yet (the
// autoParser, until the format is clear): settle parses them, as a flush
// would, and returns their entries but the one the parser then holds.
// Called once output went quiet, before waitingFor: a report that pauses
// after its first line among a file's first lines is waited for too.
type settler interface {
	settle() []Entry
}

// settle returns the entries of the lines p held unparsed, if any.
func settle(p Parser) []Entry {
	if s, ok := p.(settler); ok {
		return s.settle()
	}
	return nil
}

// quietFor reports whether output that has been quiet for quiet since its
// last bytes ends the entry p holds: after quiet, or reportPause when p
// waits for the rest of a report.
func quietFor(p Parser, quiet, since time.Duration) bool {
	return since >= quiet && (since >= reportPause || !waitingFor(p))
}

// plain is the parser of last resort: every line is one info record.
type plain struct{}

// plainParser returns a Parser that makes one info record of each line.
func plainParser() Parser { return plain{} }

func (plain) Line(line string, end int64) []Entry {
	return []Entry{{Record: oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: line}, End: end}}
}

func (plain) Flush() []Entry { return nil }

func (plain) Name() string { return "plain" }

// layer is a parser others are put in front of: each reads the lines of
// its own shape and hands every other line to the layer below it, so that
// one parser reads a format's lines and, say, a Rust panic or a Lua error
// printed among them. At most one entry is held in a stack of layers: a
// layer completes the entries below it (take) before it starts one, and
// its own before it hands a line down.
type layer interface {
	Parser
	// take completes the entry held by the layer or the ones below it, if
	// any, appending it to out.
	take(out []Entry) []Entry
	// isHeader reports whether s starts an entry of its own in this
	// layer or one below it.
	isHeader(s string) bool
}

// newGeneric returns the generic parser: Lua's uncaught errors in front of
// Rust's panics in front of genericParser, named name.
func newGeneric(c *clock, name string) *luaParser {
	return &luaParser{name: name, g: &panicParser{g: &genericParser{clk: c}}}
}

// join returns out followed by more: more itself when out is empty, so
// that a layer that adds nothing hands on the slice the layer below made
// (an entry's allocation is a tenth of a parser's time).
func join(out, more []Entry) []Entry {
	if len(out) == 0 {
		return more
	}
	return append(out, more...)
}
