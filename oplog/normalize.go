package oplog

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

func checkFilter(f *Filter) error {
	if f.MinLevel != 0 && !f.MinLevel.Valid() {
		return Errorf(EINVALID, "level: unknown level %d", f.MinLevel)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		return Errorf(EINVALID, "until: %s is not after since %s", f.Until.Format(time.RFC3339Nano), f.Since.Format(time.RFC3339Nano))
	}
	return nil
}

func normalize(r *Record, now time.Time) error {
	r.ID, r.Run = 0, 0 // the Store assigns both
	if r.Kind == 0 {
		r.Kind = KindLine
		if r.Tool != "" {
			r.Kind = KindOp
		}
	}
	if r.Time.IsZero() {
		r.Time = now
	}
	r.Time = r.Time.UTC()
	if y := r.Time.Year(); y < MinRecordYear || y > MaxRecordYear {
		return Errorf(EINVALID, "time: %s is out of range (years %d to %d)", r.Time.Format(time.RFC3339), MinRecordYear, MaxRecordYear)
	}
	if r.Source == "" {
		r.Source = DefaultSource
	}
	if err := checkLabel("source", r.Source); err != nil {
		return err
	}
	if err := checkLabel("name", r.Name); err != nil {
		return err
	}
	if len(r.Text) > MaxTextBytes {
		return Errorf(EINVALID, "text: %d bytes is over the limit of %d", len(r.Text), MaxTextBytes)
	}
	if len(r.Stack) > MaxStackBytes {
		return Errorf(EINVALID, "stack: %d bytes is over the limit of %d", len(r.Stack), MaxStackBytes)
	}
	if err := checkJSON("data", r.Data, true); err != nil {
		return err
	}
	switch r.Kind {
	case KindLine:
		return normalizeLine(r)
	case KindMarker:
		return normalizeMarker(r)
	}
	return normalizeOp(r, now)
}

func normalizeLine(r *Record) error {
	switch {
	case r.Level == 0:
		return Errorf(EINVALID, "level: missing; expected debug, info, warn, error or fatal")
	case !r.Level.Valid():
		return Errorf(EINVALID, "level: unknown level %d", r.Level)
	case r.Tool != "" || r.Arguments != nil || r.Status != 0 || r.Result != nil || r.Error != "" ||
		!r.StartTime.IsZero() || !r.EndTime.IsZero() || r.ReplayOf != 0:
		return Errorf(EINVALID, "kind: a line cannot carry operation fields (tool, arguments, status, result, error, startTime, endTime, replayOf)")
	}
	return nil
}

// normalizeMarker checks a marker: one of the Markers names, a text like a
// line's (required), no operation fields; its level defaults to info (error for
// compile.failed).
func normalizeMarker(r *Record) error {
	if !slices.Contains(Markers, r.Name) {
		return Errorf(EINVALID, "name: a marker is named %s, not %q", strings.Join(Markers, ", "), r.Name)
	}
	if r.Text == "" {
		return Errorf(EINVALID, "text: missing; a %s marker needs a text saying what happened", r.Name)
	}
	if r.Level == 0 {
		r.Level = LevelInfo
		if r.Name == MarkerCompileFailed {
			r.Level = LevelError
		}
	}
	if err := normalizeLine(r); err != nil {
		return Errorf(EINVALID, "%s", strings.Replace(ErrorMessage(err), "a line", "a marker", 1))
	}
	return nil
}

func normalizeOp(r *Record, now time.Time) error {
	if r.Kind != KindOp {
		return Errorf(EINVALID, "kind: unknown kind %d", r.Kind)
	}
	if r.Tool == "" {
		return Errorf(EINVALID, "tool: missing; an operation needs the tool's name")
	}
	if err := checkLabel("tool", r.Tool); err != nil {
		return err
	}
	if err := checkJSON("arguments", r.Arguments, false); err != nil {
		return err
	}
	if r.Name == "" {
		r.Name = r.Tool
	}
	if r.StartTime.IsZero() {
		r.StartTime = r.Time
	}
	r.StartTime = r.StartTime.UTC()
	if r.Text == "" {
		r.Text = summarize(r.Tool, r.Arguments)
	}
	if r.Status == 0 {
		r.Status = StatusPending
	}
	if r.Status != StatusPending {
		// A call recorded after it ended: complete it in the same append.
		c := Completion{Status: r.Status, Result: r.Result, Error: r.Error, EndTime: r.EndTime}
		r.Status, r.Result, r.Error, r.EndTime = StatusPending, nil, "", time.Time{}
		if err := normalizeCompletion(&c, now); err != nil {
			return err
		}
		return r.ApplyCompletion(c)
	}
	if r.Result != nil || r.Error != "" || !r.EndTime.IsZero() {
		return Errorf(EINVALID, "status: a pending operation cannot carry result, error or endTime")
	}
	r.Level = StatusPending.Level()
	return nil
}

func normalizeCompletion(c *Completion, now time.Time) error {
	if c.Status == 0 {
		c.Status = StatusSuccess
		if c.Error != "" {
			c.Status = StatusError
		}
	}
	if c.Status == StatusPending || c.Status > statusLast {
		return Errorf(EINVALID, "status: %q does not end an operation; expected success, error, timeout, cancelled or crashed", c.Status)
	}
	if c.EndTime.IsZero() {
		c.EndTime = now
	}
	c.EndTime = c.EndTime.UTC()
	if len(c.Error) > MaxTextBytes {
		return Errorf(EINVALID, "error: %d bytes is over the limit of %d", len(c.Error), MaxTextBytes)
	}
	return checkJSON("result", c.Result, false)
}

// ApplyCompletion ends the pending operation r with c (already normalised):
// status, result, error, end time and the level that follows the status.
// EINVALID for a line, ECONFLICT when r has already completed, crashed
// included: an operation completes once (the search index reads an
// operation again only while it is pending), and crashed is settled only
// for calls still pending when their run's crash was recorded (crashed.go).
func (r *Record) ApplyCompletion(c Completion) error {
	if r.Kind != KindOp {
		return Errorf(EINVALID, "id: record %d is a %s, not an operation", r.ID, r.Kind)
	}
	if r.IsComplete() {
		return Errorf(ECONFLICT, "operation %d already completed with status %s", r.ID, r.Status)
	}
	if c.EndTime.Before(r.StartTime) {
		c.EndTime = r.StartTime // clocks disagree; a negative duration helps no one
	}
	r.Status, r.Result, r.Error, r.EndTime = c.Status, c.Result, c.Error, c.EndTime
	r.Level = c.Status.Level()
	return nil
}

func checkLabel(field, s string) error {
	if len(s) > MaxLabelBytes {
		return Errorf(EINVALID, "%s: %d bytes is over the limit of %d", field, len(s), MaxLabelBytes)
	}
	for i := 0; i < len(s); i++ { // strings.ContainsAny took ~140 ns a name
		if c := s[i]; c == 0 || c == '\n' || c == '\r' {
			return Errorf(EINVALID, "%s: must not contain NUL or line breaks", field)
		}
	}
	return nil
}

func checkJSON(field string, v json.RawMessage, objectOnly bool) error {
	if v == nil {
		return nil
	}
	if len(v) > MaxJSONBytes {
		return Errorf(EINVALID, "%s: %d bytes is over the limit of %d", field, len(v), MaxJSONBytes)
	}
	if !json.Valid(v) {
		return Errorf(EINVALID, "%s: not valid JSON", field)
	}
	if objectOnly {
		if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '{' {
			return Errorf(EINVALID, "%s: must be a JSON object", field)
		}
	}
	return nil
}

// summarize makes an operation's one-line text: the tool and its arguments,
// cut to a readable length.
func summarize(tool string, args json.RawMessage) string {
	if len(args) == 0 {
		return tool
	}
	var buf bytes.Buffer
	if json.Compact(&buf, args) != nil {
		return tool
	}
	s := tool + " " + buf.String()
	if utf8.RuneCountInString(s) <= summaryRunes {
		return s
	}
	runes := []rune(s)
	return string(runes[:summaryRunes-1]) + "…"
}
