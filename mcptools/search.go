package mcptools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

type searchIn struct {
	Query    string `json:"query,omitempty" jsonschema:"words (all required), field:value (text stack name level source kind tool status run time template), \"phrases\", OR, NOT, -, wildcards: level:error AND name:Physics \"null reference\""`
	Level    string `json:"level,omitempty" jsonschema:"minimum level (debug…fatal)"`
	Name     string `json:"name,omitempty" jsonschema:"only this log name"`
	Source   string `json:"source,omitempty" jsonschema:"only this source"`
	Kind     string `json:"kind,omitempty" jsonschema:"line, op, marker or any"`
	Tool     string `json:"tool,omitempty" jsonschema:"only ops of this tool"`
	Status   string `json:"status,omitempty" jsonschema:"ops with this status: pending, success, error, timeout, cancelled, crashed"`
	Since    string `json:"since,omitempty" jsonschema:"RFC 3339, Unix ms, -1h or last_compile"`
	Until    string `json:"until,omitempty" jsonschema:"same forms as since"`
	Run      string `json:"run,omitempty" jsonschema:"current, previous or a run number"`
	Limit    int    `json:"limit,omitempty" jsonschema:"hits per page (max 500)"`
	ReplayOf idArg  `json:"replayOf,omitempty" jsonschema:"only replays of this operation"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"the previous nextCursor"`
	Stacks   bool   `json:"stacks,omitempty" jsonschema:"include stacks (max 2048 bytes each)"`
	scopeArgs
	budgetArg
	formatArg
}

// searchHitOut is one hit: the record as lists show it, and a fragment.
type searchHitOut struct {
	recordSummary
	Fragment string `json:"fragment,omitempty" jsonschema:"the text (or stack) around the first matched word, marked **like this**"`

	line string // the hit's line in the text block
}

type searchOut struct {
	Hits           []searchHitOut `json:"hits,omitzero" jsonschema:"newest first; with format json, else the text block holds them"`
	Total          int64          `json:"total" jsonschema:"matching records; an estimate unless totalExact"`
	TotalExact     bool           `json:"totalExact"`
	More           bool           `json:"more" jsonschema:"more past this page: call again with cursor nextCursor"`
	NextCursor     string         `json:"nextCursor,omitempty" jsonschema:"pass as cursor for the next (older) page; absent on the last page"`
	IndexedThrough uint64         `json:"indexedThrough" jsonschema:"the search index's watermark; newer records are matched too, without it"`
	Damaged        []string       `json:"damaged,omitempty" jsonschema:"runs of IDs not searched, unreadable: the data file is damaged there (mcplogd salvage)"`
	Hint           *hintOut       `json:"hint,omitempty" jsonschema:"an empty first page: a request that finds records (the text block's last line); call again with args"`

	studioOf
	lean bool // hits in the text block alone (see formatArg)
}

// MarshalJSON leaves the hits out of a lean answer.
func (o searchOut) MarshalJSON() ([]byte, error) {
	type plain searchOut
	if o.lean {
		o.Hits = nil
	}
	return json.Marshal(plain(o))
}

func (o searchOut) text() string {
	total := fmt.Sprint(o.Total)
	if !o.TotalExact {
		total = "about " + total
	}
	h := fmt.Sprintf("search_logs: %d hits of %s, newest first", len(o.Hits), total)
	text := withDamage(cursorBlock(h, o.More, o.NextCursor, len(o.Hits), func(i int) string { return o.Hits[i].line }), o.Damaged)
	if o.Hint != nil {
		text += "\n" + o.Hint.Text
	}
	return text
}

// hintOut is oplog.SearchHint as search_logs answers it.
type hintOut struct {
	Text    string            `json:"text" jsonschema:"the hint on one line"`
	Args    map[string]string `json:"args,omitempty" jsonschema:"search_logs arguments to send as is"`
	Records int64             `json:"records" jsonschema:"how many records args find"`
}

// newHintOut is h as search_logs answers it; nil for nil.
func newHintOut(h *oplog.SearchHint) *hintOut {
	if h == nil {
		return nil
	}
	return &hintOut{Text: h.Text, Args: h.Args, Records: h.Records}
}

// cursorBlock is the text block of an answer paged with a cursor: header
// h, how to read on when more, then the n entries' lines.
func cursorBlock(h string, more bool, cursor string, n int, line func(i int) string) string {
	if more {
		h += " more=true: call again with cursor=" + cursor
	}
	var w textLog
	for i := range n {
		w.keep(line(i))
	}
	return w.block(h)
}

// args are the arguments as oplog.Resolve reads them, as GET
// /api/v1/search's parameters are.
func (in searchIn) args() oplog.Args {
	a := in.scopeArgs.args()
	a.SearchText = oplog.SearchText{FilterText: oplog.FilterText{Level: in.Level, Name: in.Name, Kind: in.Kind, Source: in.Source,
		Since: in.Since, Until: in.Until}, Query: in.Query, Tool: in.Tool, Status: in.Status, ReplayOf: string(in.ReplayOf),
		Limit: in.Limit, Cursor: in.Cursor}
	a.Run = in.Run
	return a
}

func (t *toolset) addSearchTools(srv *mcp.Server) {
	addTool(srv, t, toolSpec{name: "search_logs", title: "Search records",
		description: "Full-text search of lines and operations, newest first, exact even for the newest; " +
			"hits with fragments; page with cursor=nextCursor.",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultSearchLimit},
		example: map[string]any{"query": `level:error AND name:Physics "null reference"`, "since": "-1h", "limit": 20}}, t.searchLogs)
}

func (t *toolset) searchLogs(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (searchOut, error) {
	lean, err := in.lean()
	if err != nil {
		return searchOut{}, err
	}
	q, src, err := t.resolve(ctx, in.args())
	if err != nil {
		return searchOut{}, err
	}
	p, err := src.search(ctx, q)
	if err != nil {
		return searchOut{}, err
	}
	out := searchOut{Hits: []searchHitOut{}, Total: p.Total, TotalExact: p.TotalExact, More: p.NextCursor != "",
		NextCursor: p.NextCursor, IndexedThrough: p.IndexedThrough, Damaged: oplog.DamageText(p.Damaged), Hint: newHintOut(p.Hint), lean: lean}
	st := src.studio()
	studio := studioSearchOut{Scope: "studio", Hits: []studioHitOut{}, More: out.More, NextCursor: out.NextCursor}
	// The answer with the longest cursor it may carry, for its size without hits.
	var empty any = searchOut{Hits: []searchHitOut{}, Total: p.Total, TotalExact: p.TotalExact, More: true,
		NextCursor: oplog.EncodeCursor(^uint64(0), ^uint64(0)), IndexedThrough: p.IndexedThrough, lean: lean}
	if st != nil {
		lean = false // the studio answer carries its hits
		studio.Project = st.Project()
		empty = studioSearchOut{Scope: "studio", Project: studio.Project, Hits: []studioHitOut{}, More: true, NextCursor: "v18446744073709551615"}
	}
	f := newFitter(in.bytes(DefaultBudget), empty)
	f.lean = lean
	var w textLog
	for i := range p.Hits {
		h := t.hitOut(&w, p.Hits, i, in.Stacks, p.machines)
		var entry any = &h.searchHitOut // as the answer carries it
		if st != nil {
			entry = &h
		}
		if !f.fits(entry, h.line) {
			out.More, out.NextCursor = true, p.resume(i)
			break
		}
		w.keep(h.line)
		out.Hits = append(out.Hits, h.searchHitOut)
		studio.Hits = append(studio.Hits, h)
	}
	if st != nil {
		studio.More, studio.NextCursor, studio.Hint = out.More, out.NextCursor, out.Hint
		return searchOut{studioOf: studioOf{studio}}, nil
	}
	return out, nil
}

// hitOut is hit i of a page as search_logs shows it; in studio scope
// (machines given) its line names its machine.
func (t *toolset) hitOut(w *textLog, hits []oplog.SearchHit, i int, stacks bool, machines []string) studioHitOut {
	h := &hits[i]
	o := studioHitOut{searchHitOut: searchHitOut{recordSummary: t.summary(&h.Record, stacks), Fragment: h.Fragment}}
	if o.Fragment != "" {
		// The line shows the fragment, around the matched word, in place of the text's start.
		o.line = w.line(&h.Record, o.Fragment, 0, 1, 0)
	} else {
		o.line = w.line(&h.Record, o.Text, o.TextChars, 1, 0)
	}
	if machines != nil {
		o.Machine = machines[i]
		o.line = withMachine(o.line, o.Machine)
	}
	o.line += o.stackLines()
	return o
}
