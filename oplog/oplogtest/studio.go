package oplogtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Studio is an oplog.Studio over rows held in memory: the reference for
// package studio's Client, which reads the same rows from VictoriaLogs.
// Each method answers as the Client's does, read from its LogsQL and its
// sums, over a slice of rows scanned whole at every call: an operation's
// newest row (highest Seq) wins, lists page newest first with cursors
// that hold across rows added between pages, crash groups are summed
// across machines, and a query is refused where LogsQL cannot say it
// (see StudioOptions.EveryNode). It is safe for concurrent use.
type Studio struct {
	project string
	opts    StudioOptions

	mu   sync.Mutex
	rows []*studioRow
}

var _ oplog.Studio = (*Studio)(nil)

// StudioOptions configures NewStudio. What a crash group says of itself
// is package crash's, which oplogtest does not import: the caller passes
// it in.
type StudioOptions struct {
	// Describe titles a crash group from its newest row's text and stack:
	// its title, its normalised top frames and its top frames as written
	// (crash.Describe). Nil: the text's first line, no frames.
	Describe func(text, stack string) (title string, frames, lastFrames []string)

	// IsCompile reports whether the crash group whose newest row has name
	// and text is a compile error (crash.IsCompile). Nil: none is.
	IsCompile func(name, text string) bool

	// EveryNode, when true, answers every query tree by the matcher, as
	// the local index does: fuzzy terms, regular expressions over words
	// and number ranges included, and a query of only stop words matches
	// nothing. False (what studio.Client does): those are EINVALID,
	// naming what LogsQL cannot say.
	EveryNode bool
}

// StudioRow is one row as the forwarder sends it: a record of Machine, of
// the machine's log Revision, forwarded at Seq (the machine's forwarding
// order: an operation is forwarded once per state, and its row of the
// highest Seq is what it is now), with the crash signature the forwarder
// computed for it ("" for none).
type StudioRow struct {
	Machine   string
	Revision  uint64
	Seq       uint64
	Record    oplog.Record
	Signature string
}

// studioRow is a StudioRow as VictoriaLogs holds it: rec is what
// studio.Client decodes of it, kind and level as the row spells them,
// the words of its text and stack as the language splits them.
type studioRow struct {
	StudioRow
	rec              oplog.StudioRecord
	kind, level      string
	template, tmText string
	words            [2][]ql.Word // of text, of stack
}

// maxFieldBytes is the forwarder's cut of _msg and stack, and its bound
// on data (studio's forward_rows.go).
const maxFieldBytes = 64 << 10

// NewStudio returns an empty studio of project; nil opts means defaults.
func NewStudio(project string, opts *StudioOptions) *Studio {
	s := &Studio{project: project}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Describe == nil {
		s.opts.Describe = func(text, _ string) (string, []string, []string) {
			title, _, _ := strings.Cut(text, "\n")
			return title, []string{}, nil
		}
	}
	if s.opts.IsCompile == nil {
		s.opts.IsCompile = func(string, string) bool { return false }
	}
	return s
}

// Add stores rows, as VictoriaLogs stores what the forwarder sends.
func (s *Studio) Add(rows ...StudioRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rows {
		s.rows = append(s.rows, newStudioRow(r))
	}
}

// Project names the project the studio answers for.
func (s *Studio) Project() string { return s.project }

// snapshot returns the rows stored so far, in the order they were added.
func (s *Studio) snapshot() []*studioRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clip(s.rows)
}

// newStudioRow keeps in a row what the forwarder writes of its record,
// decoded as studio.Client decodes it (its row.record).
func newStudioRow(in StudioRow) *studioRow {
	r := &in.Record
	out := &studioRow{StudioRow: in, kind: r.Kind.String(), level: r.Level.String()}
	rec := oplog.Record{ID: r.ID, Time: r.Time.UTC(), Source: r.Source, Name: r.Name, Text: oplog.ClipBytes(r.Text, maxFieldBytes),
		Stack: oplog.ClipBytes(r.Stack, maxFieldBytes), Run: r.Run, Tool: r.Tool}
	rec.Kind, _ = oplog.ParseKind(out.kind)
	if rec.Kind == 0 {
		rec.Kind = oplog.KindLine
	}
	rec.Level, _ = oplog.ParseLevel(out.level)
	if rec.Level == 0 {
		rec.Level = oplog.LevelInfo
	}
	rec.Status, _ = oplog.ParseStatus(r.Status.String())
	if rec.Kind == oplog.KindOp {
		rec.StartTime = rec.Time
		if r.IsComplete() && !r.EndTime.IsZero() {
			rec.EndTime = r.EndTime.UTC()
		}
		if args, ok := strings.CutPrefix(rec.Text, rec.Tool+" "); ok && json.Valid([]byte(args)) && strings.HasPrefix(args, "{") {
			rec.Arguments = json.RawMessage(args)
		}
	}
	if len(r.Data) > 0 && len(r.Data) <= maxFieldBytes && r.Data[0] == '{' {
		data := map[string]string{}
		flattenData(data, "", r.Data)
		if len(data) > 0 {
			rec.Data, _ = json.Marshal(data)
		}
	}
	if t := oplog.RecordTemplate(r); t != "" {
		out.template, out.tmText = oplog.TemplateID(t), t
	}
	out.rec = oplog.StudioRecord{Machine: in.Machine, Revision: in.Revision, Record: rec}
	out.words = [2][]ql.Word{ql.Words(rec.Text), ql.Words(rec.Stack)}
	return out
}

// flattenData sets the fields VictoriaLogs makes of a JSON object, as
// Client reads them back: nested objects' keys joined with dots, every
// value as a string (a string's own text, others as JSON), empty values
// left out.
func flattenData(out map[string]string, prefix string, raw json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return
	}
	for k, v := range obj {
		name := prefix + k
		v = bytes.TrimSpace(v)
		var str string
		switch {
		case len(v) > 0 && v[0] == '{':
			flattenData(out, name+".", v)
			continue
		case json.Unmarshal(v, &str) == nil:
		case string(v) == "null":
		default:
			var b bytes.Buffer
			if json.Compact(&b, v) == nil {
				str = b.String()
			}
		}
		if str != "" {
			out[name] = str
		}
	}
}

// keyword is the value of a keyword field as the row holds it ("": the
// row has none).
func (r *studioRow) keyword(field string) string {
	switch field {
	case "name":
		return r.Record.Name
	case "source":
		return r.Record.Source
	case "kind":
		return r.kind
	case "level":
		return r.level
	case "tool":
		return r.Record.Tool
	case "status":
		return r.Record.Status.String()
	case "run":
		if r.Record.Run == 0 {
			return ""
		}
		return strconv.FormatUint(r.Record.Run, 10)
	case ql.TemplateField:
		return r.template
	}
	return "" // replayOf is not forwarded
}

// inStream reports whether r is of machine and source (empty: any), as
// Client's stream filter selects.
func (r *studioRow) inStream(machine, source string) bool {
	return (machine == "" || r.Machine == machine) && (source == "" || r.Record.Source == source)
}

// inTime reports whether r's time is in [since, until) (zero: no bound).
func (r *studioRow) inTime(since, until time.Time) bool {
	t := r.rec.Time
	return (since.IsZero() || !t.Before(since)) && (until.IsZero() || t.Before(until))
}

// isOp reports whether r is an operation's row.
func (r *studioRow) isOp() bool { return r.rec.Kind == oplog.KindOp }

// opKey names an operation across machines and revisions.
type opKey struct {
	machine      string
	revision, id uint64
}

func (r *studioRow) opKey() opKey { return opKey{r.Machine, r.Revision, r.Record.ID} }

// lastBySeq keeps, of each operation's rows among rows, the one of the
// highest seq (LogsQL's last 1 by (seq) partition by (machine, revision,
// id)), in the order of rows.
func lastBySeq(rows []*studioRow) []*studioRow {
	top := map[opKey]*studioRow{}
	for _, r := range rows {
		if t := top[r.opKey()]; t == nil || r.Seq > t.Seq {
			top[r.opKey()] = r
		}
	}
	var out []*studioRow
	for _, r := range rows {
		if top[r.opKey()] == r {
			out = append(out, r)
		}
	}
	return out
}

// Get returns the newest row of record id of machine, of the newest
// revision that has it.
func (s *Studio) Get(ctx context.Context, machine string, id uint64) (oplog.StudioRecord, error) {
	if machine == "" {
		return oplog.StudioRecord{}, oplog.Errorf(oplog.EINVALID, "machine: missing: studio scope needs the record's machine with its ID")
	}
	if err := ctx.Err(); err != nil {
		return oplog.StudioRecord{}, err
	}
	var best *studioRow
	for _, r := range s.snapshot() {
		if r.Machine != machine || r.Record.ID != id {
			continue
		}
		if best == nil || cmp.Or(cmp.Compare(r.Revision, best.Revision), cmp.Compare(r.Seq, best.Seq)) > 0 {
			best = r
		}
	}
	if best == nil {
		return oplog.StudioRecord{}, oplog.Errorf(oplog.ENOTFOUND, "machine %s has no record %d in the studio (project %s)", machine, id, s.project)
	}
	return best.rec, nil
}

// List pages the records that pass q's filter, newest first.
func (s *Studio) List(ctx context.Context, q oplog.StudioListQuery) (oplog.StudioPage, error) {
	n, err := oplog.CheckLimit("count", q.Count, oplog.DefaultListCount, oplog.MaxListCount)
	if err != nil {
		return oplog.StudioPage{}, err
	}
	cur, err := oplog.ParseStudioCursor(q.Cursor)
	if err != nil {
		return oplog.StudioPage{}, err
	}
	match, _, err := s.compileSearch(oplog.SearchQuery{Filter: q.Filter})
	if err != nil {
		return oplog.StudioPage{}, err
	}
	if q.Run != 0 && (q.Machine == "" || q.Source == "") {
		return oplog.StudioPage{}, oplog.Errorf(oplog.EINVALID, "run: a run is one machine's source's: name the machine and the source")
	}
	if err := ctx.Err(); err != nil {
		return oplog.StudioPage{}, err
	}
	recs, next, at := s.page(func(r *studioRow) bool {
		return r.inStream(q.Machine, q.Source) && (q.Run == 0 || r.Record.Run == q.Run) && match(r)
	}, cur, n)
	return oplog.StudioPage{Records: recs, NextCursor: next, Cursors: at}, nil
}

// Search answers q over every machine of the project (or q.Machine).
func (s *Studio) Search(ctx context.Context, q oplog.StudioSearchQuery) (oplog.StudioSearchPage, error) {
	n, err := oplog.CheckLimit("limit", q.Limit, oplog.DefaultSearchLimit, oplog.MaxSearchLimit)
	if err != nil {
		return oplog.StudioSearchPage{}, err
	}
	if q.ReplayOf != 0 {
		return oplog.StudioSearchPage{}, oplog.Errorf(oplog.EINVALID, "replayOf: replays are one machine's; not in studio scope")
	}
	cur, err := oplog.ParseStudioCursor(q.Cursor)
	if err != nil {
		return oplog.StudioSearchPage{}, err
	}
	match, tree, err := s.compileSearch(q.SearchQuery)
	if err != nil {
		return oplog.StudioSearchPage{}, err
	}
	if err := ctx.Err(); err != nil {
		return oplog.StudioSearchPage{}, err
	}
	recs, next, at := s.page(func(r *studioRow) bool { return r.inStream(q.Machine, q.Source) && match(r) }, cur, n)
	terms := oplog.HighlightWords(tree)
	out := oplog.StudioSearchPage{Hits: make([]oplog.StudioHit, len(recs)), NextCursor: next, Cursors: at}
	for i := range recs {
		out.Hits[i] = oplog.StudioHit{StudioRecord: recs[i], Fragment: oplog.Fragment(&recs[i].Record, terms)}
	}
	return out, nil
}

// compileSearch is q's test of a row but its source (the caller's, with
// the machine): its tree (oplog.SearchQuery.Node) matched, and its time
// range. The tree comes back too, for the fragments' words. Runs are a
// machine's: EINVALID; so is a tree LogsQL cannot say, but with
// EveryNode.
func (s *Studio) compileSearch(q oplog.SearchQuery) (func(*studioRow) bool, ql.Node, error) {
	if q.Runs != nil {
		return nil, nil, oplog.Errorf(oplog.EINVALID, "run: runs are one machine's; studio scope takes since and until instead")
	}
	q.Source = ""
	tree, err := q.Node()
	if err != nil {
		return nil, nil, err
	}
	if !s.opts.EveryNode {
		if err := refuse(tree); err != nil {
			return nil, nil, err
		}
	}
	p, err := compile(tree)
	if err != nil {
		return nil, nil, err
	}
	return func(r *studioRow) bool { return r.inTime(q.Since, q.Until) && p(r) }, tree, nil
}
