package mcptools

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// The times in results: lists carry milliseconds, details every digit.
const listTime = "2006-01-02T15:04:05.000Z07:00"

// tailLine is one console line in a console_tail answer.
type tailLine struct {
	ID        uint64 `json:"id"`
	Time      string `json:"time" jsonschema:"RFC 3339, UTC, milliseconds"`
	Level     string `json:"level" jsonschema:"debug, info, warn, error or fatal"`
	Name      string `json:"name,omitempty"`
	Source    string `json:"source"`
	Marker    bool   `json:"marker,omitempty" jsonschema:"a marker: name is run, compile.start, compile.ok, compile.failed or exit"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"the text was cut at maxTextChars; get_log_details has all of it"`
	TextChars int    `json:"textChars,omitempty" jsonschema:"the whole text's length when cut"`
	HasStack  bool   `json:"hasStack,omitempty" jsonschema:"the line has a stack trace; get_log_details shows it"`
	stackOut
	Repeat   int    `json:"repeat,omitempty" jsonschema:"this line stands for repeat lines in a row alike but for values (template), IDs id to lastId"`
	LastID   uint64 `json:"lastId,omitempty" jsonschema:"with repeat: the ID of the last repeated line"`
	Template string `json:"template,omitempty" jsonschema:"with repeat, when the texts differ: their template (values blanked as <N>, <HEX>, <UUID>, <IP>, <PATH>, <S>); text is the first's"`

	line string        // the entry's line in the text block
	rec  *oplog.Record // the first record it stands for
}

// last is the highest ID the entry covers.
func (l *tailLine) last() uint64 { return max(l.ID, l.LastID) }

// records is how many records the entry stands for.
func (l *tailLine) records() int { return max(l.Repeat, 1) }

// recordSummary is one record in a list: no stack, no data, text cut.
type recordSummary struct {
	ID        uint64 `json:"id"`
	Kind      string `json:"kind" jsonschema:"line or op"`
	Time      string `json:"time" jsonschema:"RFC 3339, UTC, milliseconds"`
	Level     string `json:"level"`
	Name      string `json:"name,omitempty"`
	Source    string `json:"source"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"the text was cut at maxTextChars"`
	TextChars int    `json:"textChars,omitempty" jsonschema:"the whole text's length when cut"`
	HasStack  bool   `json:"hasStack,omitempty"`
	stackOut
	HasData    bool   `json:"hasData,omitempty"`
	Tool       string `json:"tool,omitempty" jsonschema:"an operation's tool"`
	Status     string `json:"status,omitempty" jsonschema:"an operation's status: pending, success, error, timeout, cancelled or crashed"`
	IsComplete *bool  `json:"isComplete,omitempty"`
	DurationMs *int64 `json:"durationMs,omitempty"`
}

// cut shortens s to max characters (not bytes: the limit agents are told
// of is in characters), reporting whether it did.
func cut(s string, max int) (string, bool) { return oplog.ClipRunes(s, max) }

// summary is r as lists show it; with stacks, its stack cut to
// maxListStack.
func (t *toolset) summary(r *oplog.Record, stacks bool) recordSummary {
	s := recordSummary{ID: r.ID, Kind: r.Kind.String(), Time: listTimeOf(r.Time), Level: r.Level.String(),
		Name: r.Name, Source: r.Source, HasStack: r.Stack != "", HasData: len(r.Data) > 0}
	s.Text, s.Truncated = cut(r.Text, t.opts.MaxTextChars)
	if s.Truncated {
		s.TextChars = utf8.RuneCountInString(r.Text)
	}
	if stacks {
		s.stackOut = listStack(r.Stack)
	}
	if r.Kind == oplog.KindOp {
		complete := r.IsComplete()
		s.Tool, s.Status, s.IsComplete, s.DurationMs = r.Tool, r.Status.String(), &complete, durationMs(r)
	}
	return s
}

func (t *toolset) summaries(recs []oplog.Record) []recordSummary {
	out := make([]recordSummary, len(recs))
	for i := range recs {
		out[i] = t.summary(&recs[i], false)
	}
	return out
}

// maxListStack is the most bytes of a stack a list entry carries when its
// tool's stacks argument asks for them; get_log_details has the rest.
const maxListStack = 2 << 10

// stackOut is a list entry's stack, when the tool was asked for stacks.
type stackOut struct {
	Stack      string `json:"stack,omitempty" jsonschema:"with stacks: its first 2048 bytes"`
	StackBytes int    `json:"stackBytes,omitempty" jsonschema:"the whole stack's bytes when cut"`
}

// listStack cuts s to maxListStack bytes at a UTF-8 boundary.
func listStack(s string) stackOut {
	if len(s) <= maxListStack {
		return stackOut{Stack: s}
	}
	n := maxListStack
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return stackOut{Stack: s[:n], StackBytes: len(s)}
}

// stackLines is the stack's lines in a text block, after its entry's line:
// indented, and saying the whole length when cut. Empty without a stack.
func (s stackOut) stackLines() string {
	if s.Stack == "" {
		return ""
	}
	var b strings.Builder
	for l := range strings.SplitSeq(strings.TrimRight(s.Stack, "\r\n"), "\n") {
		b.WriteString("\n    ")
		b.WriteString(oplog.OneLine(strings.TrimRight(l, "\r"), false))
	}
	if s.StackBytes > 0 {
		fmt.Fprintf(&b, "\n    … [%d bytes]", s.StackBytes)
	}
	return b.String()
}

func durationMs(r *oplog.Record) *int64 {
	if !r.IsComplete() || r.StartTime.IsZero() || r.EndTime.IsZero() {
		return nil
	}
	d := r.EndTime.Sub(r.StartTime).Milliseconds()
	return &d
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}
