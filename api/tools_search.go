package api

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

type searchIn struct {
	Query    string `json:"query,omitempty" jsonschema:"words and field:value terms, all required unless joined by OR; NOT or - excludes; \"quoted phrases\"; fields: text, stack, name, level, source, kind, tool, status, time. Example: level:error AND name:Physics \"null reference\""`
	Level    string `json:"level,omitempty" jsonschema:"minimum level: debug, info, warn, error or fatal"`
	Name     string `json:"name,omitempty" jsonschema:"only this log name"`
	Source   string `json:"source,omitempty" jsonschema:"only this source"`
	Kind     string `json:"kind,omitempty" jsonschema:"line, op or any"`
	Tool     string `json:"tool,omitempty" jsonschema:"only operations of this tool"`
	Status   string `json:"status,omitempty" jsonschema:"only operations with this status: pending, success, error, timeout or cancelled"`
	Since    string `json:"since,omitempty" jsonschema:"only records at or after this time: RFC 3339, a date, Unix milliseconds or relative like -1h"`
	Until    string `json:"until,omitempty" jsonschema:"only records before this time, written like since"`
	Limit    int    `json:"limit,omitempty" jsonschema:"hits per page; capped at 500"`
	ReplayOf idArg  `json:"replayOf,omitempty" jsonschema:"only the replays of this operation (its log_id)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page"`
}

// searchHitOut is one hit: the record as lists show it, and a fragment.
type searchHitOut struct {
	recordSummary
	Fragment string `json:"fragment,omitempty" jsonschema:"the text (or stack) around the first matched word, marked **like this**"`
}

type searchOut struct {
	Hits           []searchHitOut `json:"hits" jsonschema:"newest first"`
	Total          int64          `json:"total" jsonschema:"matching records; an estimate unless totalExact"`
	TotalExact     bool           `json:"totalExact"`
	NextCursor     string         `json:"nextCursor,omitempty" jsonschema:"pass as cursor for the next (older) page; absent on the last page"`
	IndexedThrough uint64         `json:"indexedThrough" jsonschema:"the search index's watermark; newer records are matched too, without it"`
}

// searchQuery reads the search arguments the tool and the HTTP route share.
func searchQuery(in searchIn, now time.Time) (oplog.SearchQuery, error) {
	f, err := filterArgs{level: in.Level, name: in.Name, kind: in.Kind, source: in.Source, since: in.Since, until: in.Until}.filter(now)
	if err != nil {
		return oplog.SearchQuery{}, err
	}
	q := oplog.SearchQuery{Query: in.Query, Filter: f, Tool: in.Tool, Limit: in.Limit, Cursor: in.Cursor}
	if q.ReplayOf, _, err = parseIDArg("replayOf", in.ReplayOf, true); err != nil {
		return q, err
	}
	if q.Status, err = oplog.ParseStatus(in.Status); err != nil {
		return q, argError("status", "%s", oplog.ErrorMessage(err))
	}
	if q.Limit < 0 {
		return q, argError("limit", "must be 0 or more, got %d", q.Limit)
	}
	return q, nil
}

func (t *mcpTools) addSearchTools(srv *mcp.Server) {
	addTool(srv, t, toolSpec{name: "search_logs", title: "Search records",
		description: "Full-text search over console lines and operations, newest first, exact even for records written a moment ago. " +
			"query: words (all required), field:value, \"phrases\", OR, NOT, parentheses, wildcards (Physi*); plus the filters. " +
			"Page with nextCursor; each hit has a fragment around the matched word. A query that does not parse is an error showing where.",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultSearchLimit},
		example: map[string]any{"query": `level:error AND name:Physics "null reference"`, "since": "-1h", "limit": 20}}, t.searchLogs)
}

func (t *mcpTools) searchLogs(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (searchOut, error) {
	q, err := searchQuery(in, time.Now())
	if err != nil {
		return searchOut{}, err
	}
	p, err := t.log.Search(ctx, q)
	if err != nil {
		return searchOut{}, err
	}
	out := searchOut{Hits: make([]searchHitOut, len(p.Hits)), Total: p.Total, TotalExact: p.TotalExact,
		NextCursor: p.NextCursor, IndexedThrough: p.IndexedThrough}
	for i := range p.Hits {
		out.Hits[i] = searchHitOut{recordSummary: t.summary(&p.Hits[i].Record), Fragment: p.Hits[i].Fragment}
	}
	return out, nil
}

// indexInfoOut is the search index's part of store_info; absent when the
// log has no index (or is a remote one).
type indexInfoOut struct {
	IndexedThrough *uint64  `json:"indexedThrough,omitempty" jsonschema:"the highest ID in the search index"`
	IndexLag       *uint64  `json:"indexLag,omitempty" jsonschema:"records not yet in the search index (searches match them anyway)"`
	Indexing       string   `json:"indexing,omitempty" jsonschema:"idle, indexing or rebuilding"`
	IndexProgress  *float64 `json:"indexProgress,omitempty" jsonschema:"while rebuilding: the fraction done, 0 to 1"`
	IndexBytes     int64    `json:"indexBytes,omitempty" jsonschema:"size of the search index on disk"`
}

func (t *mcpTools) indexInfo() indexInfoOut {
	l, ok := t.log.(interface {
		IndexStatus() (oplog.IndexStatus, bool)
	})
	if !ok {
		return indexInfoOut{}
	}
	s, ok := l.IndexStatus()
	if !ok {
		return indexInfoOut{}
	}
	o := indexInfoOut{IndexedThrough: &s.IndexedThrough, IndexLag: &s.Lag, Indexing: string(s.State), IndexBytes: s.Bytes}
	if s.State == "rebuilding" {
		o.IndexProgress = &s.Progress
	}
	return o
}
