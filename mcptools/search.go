package mcptools

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

type searchIn struct {
	Query    string `json:"query,omitempty" jsonschema:"words (all required), field:value (text stack name level source kind tool status run time), \"phrases\", OR, NOT, -, wildcards: level:error AND name:Physics \"null reference\""`
	Level    string `json:"level,omitempty" jsonschema:"minimum level (debug…fatal)"`
	Name     string `json:"name,omitempty" jsonschema:"only this log name"`
	Source   string `json:"source,omitempty" jsonschema:"only this source"`
	Kind     string `json:"kind,omitempty" jsonschema:"line, op, marker or any"`
	Tool     string `json:"tool,omitempty" jsonschema:"only ops of this tool"`
	Status   string `json:"status,omitempty" jsonschema:"ops with this status: pending, success, error, timeout, cancelled"`
	Since    string `json:"since,omitempty" jsonschema:"RFC 3339, Unix ms, -1h or last_compile"`
	Until    string `json:"until,omitempty" jsonschema:"same forms as since"`
	Run      string `json:"run,omitempty" jsonschema:"current, previous or a run number"`
	Limit    int    `json:"limit,omitempty" jsonschema:"hits per page (max 500)"`
	ReplayOf idArg  `json:"replayOf,omitempty" jsonschema:"only replays of this operation"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"the previous nextCursor"`
	Stacks   bool   `json:"stacks,omitempty" jsonschema:"include stacks (max 2048 bytes each)"`
	scopeArgs
	budgetArg
}

// searchHitOut is one hit: the record as lists show it, and a fragment.
type searchHitOut struct {
	recordSummary
	Fragment string `json:"fragment,omitempty" jsonschema:"the text (or stack) around the first matched word, marked **like this**"`

	line string // the hit's line in the text block
}

type searchOut struct {
	Hits           []searchHitOut `json:"hits" jsonschema:"newest first"`
	Total          int64          `json:"total" jsonschema:"matching records; an estimate unless totalExact"`
	TotalExact     bool           `json:"totalExact"`
	More           bool           `json:"more" jsonschema:"more past this page: call again with cursor nextCursor"`
	NextCursor     string         `json:"nextCursor,omitempty" jsonschema:"pass as cursor for the next (older) page; absent on the last page"`
	IndexedThrough uint64         `json:"indexedThrough" jsonschema:"the search index's watermark; newer records are matched too, without it"`

	studioOf
}

func (o searchOut) text() string {
	total := fmt.Sprint(o.Total)
	if !o.TotalExact {
		total = "about " + total
	}
	h := fmt.Sprintf("search_logs: %d hits of %s, newest first", len(o.Hits), total)
	if o.More {
		h += " more=true: call again with cursor=" + o.NextCursor
	}
	var w textLog
	for i := range o.Hits {
		w.keep(o.Hits[i].line)
	}
	return w.block(h)
}

// text is the arguments as oplog.SearchText reads them, as GET
// /api/v1/search's parameters are.
func (in searchIn) text() oplog.SearchText {
	return oplog.SearchText{FilterText: oplog.FilterText{Level: in.Level, Name: in.Name, Kind: in.Kind, Source: in.Source,
		Since: SinceTime(in.Since), Until: in.Until}, Query: in.Query, Tool: in.Tool, Status: in.Status, ReplayOf: string(in.ReplayOf),
		Limit: in.Limit, Cursor: in.Cursor}
}

func (t *toolset) addSearchTools(srv *mcp.Server) {
	addTool(srv, t, toolSpec{name: "search_logs", title: "Search records",
		description: "Full-text search of lines and operations, newest first, exact for records written a moment ago; " +
			"each hit with a fragment. Page with cursor=nextCursor.",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultSearchLimit},
		example: map[string]any{"query": `level:error AND name:Physics "null reference"`, "since": "-1h", "limit": 20}}, t.searchLogs)
}

func (t *toolset) searchLogs(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (searchOut, error) {
	if s, err := t.studio(in.scopeArgs); err != nil || s != nil {
		if err != nil {
			return searchOut{}, err
		}
		return t.studioSearch(ctx, s, in)
	}
	q, err := in.text().Parse(time.Now())
	if err != nil {
		return searchOut{}, err
	}
	if err := Scope(ctx, t.log, &q.Filter, in.Run, in.Since); err != nil {
		return searchOut{}, err
	}
	p, err := t.log.Search(ctx, q)
	if err != nil {
		return searchOut{}, err
	}
	out := searchOut{Hits: []searchHitOut{}, Total: p.Total, TotalExact: p.TotalExact, More: p.NextCursor != "",
		NextCursor: p.NextCursor, IndexedThrough: p.IndexedThrough}
	// The longest cursor the answer may carry, for its size without hits.
	empty := out
	empty.More, empty.NextCursor = true, oplog.EncodeCursor(^uint64(0), ^uint64(0))
	f := newFitter(in.bytes(DefaultBudget), empty)
	var w textLog
	for i := range p.Hits {
		r := &p.Hits[i].Record
		h := searchHitOut{recordSummary: t.summary(r, in.Stacks), Fragment: p.Hits[i].Fragment}
		if h.Fragment != "" {
			// The line shows the fragment, around the matched word, in place of the text's start.
			h.line = w.line(r, h.Fragment, 0, 1, 0)
		} else {
			h.line = w.line(r, h.Text, h.TextChars, 1, 0)
		}
		h.line += h.stackLines()
		if !f.fits(&h, h.line) {
			// The generation now: were the log cleared since the search, the
			// hits left out are gone, and the cursor finds nothing below them.
			rev := t.log.Stats().Revision
			out.More, out.NextCursor = true, oplog.EncodeCursor(rev, out.Hits[len(out.Hits)-1].ID)
			break
		}
		w.keep(h.line)
		out.Hits = append(out.Hits, h)
	}
	return out, nil
}
