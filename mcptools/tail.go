package mcptools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- console_tail ----

type tailIn struct {
	SinceID  idArg  `json:"sinceId,omitempty" jsonschema:"the lastId of your previous call: only lines after it are returned. Omit for the newest limit lines. A number or a string of digits."`
	Revision idArg  `json:"revision,omitempty" jsonschema:"the revision of your previous call; when the log was cleared since, the answer has reset: true and starts over"`
	Limit    int    `json:"limit,omitempty" jsonschema:"most lines to return; capped at 1000"`
	Level    string `json:"level,omitempty" jsonschema:"minimum level: debug, info, warn, error or fatal (Warning, Exception and other common spellings work)"`
	Name     string `json:"name,omitempty" jsonschema:"only this log name"`
	Source   string `json:"source,omitempty" jsonschema:"only this source (game, editor or upstream)"`
	WaitMs   int    `json:"waitMs,omitempty" jsonschema:"with no new line, wait up to this many milliseconds for one (long poll; capped at 30000); 0 answers at once"`
}

type tailOut struct {
	Lines    []tailLine `json:"lines"`
	LastID   uint64     `json:"lastId" jsonschema:"pass as sinceId next time"`
	Revision uint64     `json:"revision" jsonschema:"the log's generation; pass it back with sinceId"`
	Dropped  uint64     `json:"dropped" jsonschema:"lines after sinceId removed by retention before they were read"`
	Reset    bool       `json:"reset" jsonschema:"sinceId was past the newest ID or from another generation: lines start over"`
	More     bool       `json:"more" jsonschema:"more lines are ready: call again at once"`
}

func (t *toolset) consoleTail(ctx context.Context, req *mcp.CallToolRequest, in tailIn) (tailOut, error) {
	f, err := oplog.FilterText{Level: in.Level, Name: in.Name, Source: in.Source}.Parse(time.Now())
	if err != nil {
		return tailOut{}, err
	}
	f.Kind = oplog.KindLine
	q := oplog.TailQuery{Filter: f, Limit: in.Limit, Wait: waitDuration(in.WaitMs)}
	if q.SinceID, q.HasSince, err = parseIDArg("sinceId", in.SinceID, true); err != nil {
		return tailOut{}, err
	}
	if q.Revision, _, err = parseIDArg("revision", in.Revision, true); err != nil {
		return tailOut{}, err
	}
	wctx, cancel := t.opts.Requests.merge(ctx, req)
	defer cancel()
	tail, err := t.log.Tail(wctx, q)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		// The client went away or the server is stopping: answer with what there is.
		q.Wait = 0
		tail, err = t.log.Tail(ctx, q)
	}
	if err != nil {
		return tailOut{}, err
	}
	out := tailOut{Lines: make([]tailLine, len(tail.Lines)), LastID: tail.LastID, Revision: tail.Revision,
		Dropped: tail.Dropped, Reset: tail.Reset, More: tail.More}
	for i := range tail.Lines {
		r := &tail.Lines[i]
		l := tailLine{ID: r.ID, Time: r.Time.Format(listTime), Level: r.Level.String(), Name: r.Name, Source: r.Source, HasStack: r.Stack != ""}
		l.Text, l.Truncated = cut(r.Text, t.opts.MaxTextChars)
		out.Lines[i] = l
	}
	return out, nil
}
