package follow

import "github.com/mcplogd/mcplogd/oplog"

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

// plain is the parser of last resort: every line is one info record.
type plain struct{}

// plainParser returns a Parser that makes one info record of each line.
func plainParser() Parser { return plain{} }

func (plain) Line(line string, end int64) []Entry {
	return []Entry{{Record: oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: line}, End: end}}
}

func (plain) Flush() []Entry { return nil }

func (plain) Name() string { return "plain" }
