package mcptools

import (
	"time"

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
	Text      string `json:"text"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"the text was cut at maxTextChars; get_log_details has all of it"`
	TextChars int    `json:"textChars,omitempty" jsonschema:"when truncated: the whole text's length in characters"`
	HasStack  bool   `json:"hasStack,omitempty" jsonschema:"the line has a stack trace; get_log_details shows it"`
	Repeat    int    `json:"repeat,omitempty" jsonschema:"this line stands for repeat identical lines in a row, IDs id to lastId"`
	LastID    uint64 `json:"lastId,omitempty" jsonschema:"with repeat: the ID of the last repeated line"`

	line string        // the entry's line in the text block
	rec  *oplog.Record // the first record it stands for
}

// last is the highest ID the entry covers.
func (l *tailLine) last() uint64 { return max(l.ID, l.LastID) }

// records is how many records the entry stands for.
func (l *tailLine) records() int { return max(l.Repeat, 1) }

// recordSummary is one record in a list: no stack, no data, text cut.
type recordSummary struct {
	ID         uint64 `json:"id"`
	Kind       string `json:"kind" jsonschema:"line or op"`
	Time       string `json:"time" jsonschema:"RFC 3339, UTC, milliseconds"`
	Level      string `json:"level"`
	Name       string `json:"name,omitempty"`
	Source     string `json:"source"`
	Text       string `json:"text"`
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"the text was cut at maxTextChars"`
	HasStack   bool   `json:"hasStack,omitempty"`
	HasData    bool   `json:"hasData,omitempty"`
	Tool       string `json:"tool,omitempty" jsonschema:"an operation's tool"`
	Status     string `json:"status,omitempty" jsonschema:"an operation's status: pending, success, error, timeout or cancelled"`
	IsComplete *bool  `json:"isComplete,omitempty"`
	DurationMs *int64 `json:"durationMs,omitempty"`
}

// cut shortens s to max characters (not bytes: the limit agents are told
// of is in characters), reporting whether it did.
func cut(s string, max int) (string, bool) { return oplog.ClipRunes(s, max) }

func (t *toolset) summary(r *oplog.Record) recordSummary {
	s := recordSummary{ID: r.ID, Kind: r.Kind.String(), Time: r.Time.Format(listTime), Level: r.Level.String(),
		Name: r.Name, Source: r.Source, HasStack: r.Stack != "", HasData: len(r.Data) > 0}
	s.Text, s.Truncated = cut(r.Text, t.opts.MaxTextChars)
	if r.Kind == oplog.KindOp {
		complete := r.IsComplete()
		s.Tool, s.Status, s.IsComplete, s.DurationMs = r.Tool, r.Status.String(), &complete, durationMs(r)
	}
	return s
}

func (t *toolset) summaries(recs []oplog.Record) []recordSummary {
	out := make([]recordSummary, len(recs))
	for i := range recs {
		out[i] = t.summary(&recs[i])
	}
	return out
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
