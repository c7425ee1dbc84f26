package oplog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// DefaultSource is the source of records whose writer named none.
const DefaultSource = "default"

// Bounds on what a record may hold, so one bad writer cannot store a record
// no reader can load.
const (
	MaxTextBytes  = 256 << 10 // text
	MaxStackBytes = 1 << 20   // stack trace
	MaxJSONBytes  = 1 << 20   // data, arguments and result, each
	MaxLabelBytes = 256       // source, name and tool
	summaryRunes  = 200
	minRecordYear = 1971
	maxRecordYear = 2261
)

// LogOptions configures a Log. A nil *LogOptions means defaults.
type LogOptions struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

// Log is the operation log service: it validates and normalises records,
// appends them to its Store, and wakes readers waiting for new records. It is
// safe for concurrent use.
type Log struct {
	store   Store
	now     func() time.Time
	index   Index      // full-text search; nil until SetIndex
	crashes CrashIndex // crash groups; nil until SetCrashes

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	closed  bool
}

// New returns a Log over s. The Log owns s: Close closes it.
func New(s Store, opts *LogOptions) *Log {
	l := &Log{store: s, now: time.Now, changed: make(chan struct{})}
	if opts != nil && opts.Now != nil {
		l.now = opts.Now
	}
	return l
}

// Close wakes every waiting reader and closes the store. Later calls return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closed = true
	close(l.changed)
	index, crashes := l.index, l.crashes
	l.mu.Unlock()
	var errs []error
	if index != nil {
		errs = append(errs, index.Close())
	}
	if crashes != nil {
		errs = append(errs, crashes.Close())
	}
	return errors.Join(append(errs, l.store.Close())...)
}

// Changed returns a channel that is closed at the next append or completion
// (or at Close). Readers take it before reading, then wait on it.
func (l *Log) Changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

func (l *Log) notify() {
	l.mu.Lock()
	if !l.closed {
		close(l.changed)
		l.changed = make(chan struct{})
	}
	l.mu.Unlock()
}

func (l *Log) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// BatchError reports which record of a batch was refused. Nothing of the
// batch was written.
type BatchError struct {
	Index int // 0-based position in the batch
	Err   error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("record %d: %s", e.Index, ErrorMessage(e.Err))
}
func (e *BatchError) Unwrap() error { return e.Err }

// Append validates and normalises recs in place (kind, time, source, level,
// an operation's name and summary) and appends them as one durable batch,
// setting each recs[i].ID. A record that fails validation rejects the whole
// batch with a *BatchError (code EINVALID) and nothing is written.
func (l *Log) Append(ctx context.Context, recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	if l.isClosed() {
		return ErrClosed
	}
	now := l.now().UTC()
	for i := range recs {
		if err := normalize(&recs[i], now); err != nil {
			be := &BatchError{Index: i, Err: err}
			return &Error{Code: EINVALID, Message: be.Error(), Err: be}
		}
	}
	if err := l.store.Append(ctx, recs); err != nil {
		return err
	}
	l.notify()
	return nil
}

// Complete ends the pending operation id. A zero c.Status means success, or
// error when c.Error is set; a zero c.EndTime means now. ENOTFOUND for an
// unknown ID, EINVALID for a line or a bad completion, ECONFLICT when the
// operation already completed.
func (l *Log) Complete(ctx context.Context, id uint64, c Completion) (Record, error) {
	if l.isClosed() {
		return Record{}, ErrClosed
	}
	if err := normalizeCompletion(&c, l.now().UTC()); err != nil {
		return Record{}, err
	}
	r, err := l.store.Complete(ctx, id, c)
	if err != nil {
		return Record{}, err
	}
	l.notify()
	return r, nil
}

// Get returns the record with the given ID; ENOTFOUND when there is none.
func (l *Log) Get(ctx context.Context, id uint64) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	if id == 0 {
		return Record{}, Errorf(EINVALID, "id: must be a positive integer")
	}
	return l.store.Get(id)
}

// List returns records newest first.
func (l *Log) List(ctx context.Context, q Query) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	switch {
	case q.Count < 0:
		return Page{}, Errorf(EINVALID, "count: must not be negative, got %d", q.Count)
	case q.Offset < 0:
		return Page{}, Errorf(EINVALID, "offset: must not be negative, got %d", q.Offset)
	case q.Count == 0:
		q.Count = DefaultListCount
	}
	q.Count = min(q.Count, MaxListCount)
	if err := checkFilter(&q.Filter); err != nil {
		return Page{}, err
	}
	if idx := l.getIndex(); idx != nil && q.Since.IsZero() && q.Until.IsZero() && q.Offset+q.Count <= maxIndexedList {
		if st := l.store.Stats(); !l.dense(&q.Filter, &st) {
			return l.listIndexed(ctx, idx, q, &st)
		}
	}
	return l.store.List(q)
}

// maxIndexedList bounds Offset+Count for List through the index, which
// collects that many IDs; deeper pages walk the store.
const maxIndexedList = 5000

// listIndexed answers a List whose filters keep few records through the
// index: the store's backward walk would read about a record in denseShare
// or fewer per hit, the index only the hits. Total comes from the counters.
func (l *Log) listIndexed(ctx context.Context, idx Index, q Query, st *Stats) (Page, error) {
	total, err := l.count(&q.Filter, st)
	if err != nil {
		return Page{}, err
	}
	h, err := idx.Search(ctx, &SearchQuery{Filter: q.Filter}, q.Before, q.Offset+q.Count)
	if err != nil {
		if ctx.Err() != nil {
			return Page{}, ctx.Err()
		}
		return l.store.List(q) // the store alone is exact too, only slower here
	}
	ids := h.IDs[min(q.Offset, len(h.IDs)):]
	p := Page{Records: make([]Record, 0, len(ids)), Total: int64(total), More: h.More}
	for _, id := range ids {
		r, err := l.store.Get(id)
		if ErrorCode(err) == ENOTFOUND {
			continue // trimmed by retention since the index answered
		} else if err != nil {
			return Page{}, err
		}
		p.Records = append(p.Records, r)
	}
	return p, nil
}

// Tail returns records oldest first after q.SinceID (see TailQuery). With
// q.Wait > 0 and nothing to return, it waits until a record arrives, the
// wait ends (an empty answer, not an error), or ctx is done (ctx's error).
func (l *Log) Tail(ctx context.Context, q TailQuery) (Tail, error) {
	switch {
	case q.Limit < 0:
		return Tail{}, Errorf(EINVALID, "limit: must not be negative, got %d", q.Limit)
	case q.Wait < 0:
		return Tail{}, Errorf(EINVALID, "wait: must not be negative, got %s", q.Wait)
	case q.Limit == 0:
		q.Limit = DefaultTailLimit
	}
	q.Limit = min(q.Limit, MaxTailLimit)
	if err := checkFilter(&q.Filter); err != nil {
		return Tail{}, err
	}
	var deadline <-chan time.Time
	if q.Wait > 0 {
		timer := time.NewTimer(min(q.Wait, MaxWait))
		defer timer.Stop()
		deadline = timer.C
	}
	var dropped uint64
	for {
		changed := l.Changed()
		if err := ctx.Err(); err != nil {
			return Tail{}, err
		}
		t, err := l.store.Tail(q)
		if err != nil {
			return Tail{}, err
		}
		t.Dropped += dropped
		if len(t.Lines) > 0 || t.Reset || t.More || t.Dropped > 0 || deadline == nil || l.isClosed() {
			return t, nil
		}
		// Nothing yet: wait past what was scanned, keeping the generation.
		dropped = t.Dropped
		q.SinceID, q.HasSince, q.Revision = t.LastID, true, t.Revision
		select {
		case <-changed:
		case <-deadline:
			return t, nil
		case <-ctx.Done():
			return Tail{}, ctx.Err()
		}
	}
}

// Wait returns nil once a record with an ID above afterID exists, or ctx's
// error when ctx ends first, or ErrClosed.
func (l *Log) Wait(ctx context.Context, afterID uint64) error {
	for {
		changed := l.Changed()
		if l.isClosed() {
			return ErrClosed
		}
		if l.store.Stats().LastID > afterID {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Stats returns the store's counters.
func (l *Log) Stats() Stats { return l.store.Stats() }

// Names returns every (source, name) with its counts, ordered by source
// then name; source "" means every source.
func (l *Log) Names(ctx context.Context, source string) ([]NameInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.store.Names(source)
}

// Neighbors returns the IDs of the records just before and after id (0 when
// there is none); ENOTFOUND when id is not stored.
func (l *Log) Neighbors(ctx context.Context, id uint64) (prev, next uint64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	return l.store.Neighbors(id)
}

// Clear removes every record and starts a new generation (a new Revision),
// so that every tailer gets reset: true. IDs go on from the last one.
func (l *Log) Clear(ctx context.Context) (Stats, error) {
	if l.isClosed() {
		return Stats{}, ErrClosed
	}
	s, err := l.store.Clear(ctx)
	if err != nil {
		return Stats{}, err
	}
	l.notify()
	return s, nil
}

// AwaitComplete returns operation id once it has completed. When ctx ends
// first it returns the record as it stands with ctx's error; a line is
// returned at once.
func (l *Log) AwaitComplete(ctx context.Context, id uint64) (Record, error) {
	for {
		changed := l.Changed()
		r, err := l.Get(context.Background(), id)
		if err != nil || r.Kind != KindOp || r.IsComplete() {
			return r, err
		}
		if l.isClosed() {
			return r, ErrClosed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return r, ctx.Err()
		}
	}
}

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
	r.ID = 0
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
	if y := r.Time.Year(); y < minRecordYear || y > maxRecordYear {
		return Errorf(EINVALID, "time: %s is out of range (years %d to %d)", r.Time.Format(time.RFC3339), minRecordYear, maxRecordYear)
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
	if r.Kind == KindLine {
		return normalizeLine(r)
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
	if c.Status == StatusPending || c.Status > StatusCancelled {
		return Errorf(EINVALID, "status: %q does not end an operation; expected success, error, timeout or cancelled", c.Status)
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
// EINVALID for a line, ECONFLICT when r has already completed.
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
	if strings.ContainsAny(s, "\x00\n\r") {
		return Errorf(EINVALID, "%s: must not contain NUL or line breaks", field)
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

// IsBatchError reports whether err says which record of a batch was refused,
// and returns that error.
func IsBatchError(err error) (*BatchError, bool) {
	var be *BatchError
	ok := errors.As(err, &be)
	return be, ok
}
