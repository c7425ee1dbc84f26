package mcptools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- get_logs and the by-name shapes ----

type getLogsIn struct {
	Count  int    `json:"count,omitempty" jsonschema:"records per page; capped at 1000"`
	Offset int    `json:"offset,omitempty" jsonschema:"records to skip: the previous nextOffset"`
	Level  string `json:"level,omitempty" jsonschema:"minimum level: debug, info, warn, error or fatal"`
	Name   string `json:"name,omitempty" jsonschema:"only this log name (an operation's name is its tool)"`
	Kind   string `json:"kind,omitempty" jsonschema:"line, op or any"`
	Source string `json:"source,omitempty" jsonschema:"only this source"`
	Since  string `json:"since,omitempty" jsonschema:"only records at or after this time: RFC 3339, a date, Unix milliseconds or relative like -15m"`
	Until  string `json:"until,omitempty" jsonschema:"only records before this time, written like since"`
	listArgs
}

type logsOut struct {
	Logs []logEntry `json:"logs" jsonschema:"newest first"`
	logPage
}

func (o logsOut) text() string { return listText(o.header("get_logs", o.Logs), o.Logs) }

func (t *toolset) getLogs(ctx context.Context, _ *mcp.CallToolRequest, in getLogsIn) (logsOut, error) {
	f, err := oplog.FilterText{Level: in.Level, Name: in.Name, Kind: in.Kind, Source: in.Source, Since: in.Since, Until: in.Until}.Parse(time.Now())
	if err != nil {
		return logsOut{}, err
	}
	return t.list(ctx, oplog.Query{Filter: f, Count: in.Count, Offset: in.Offset}, in.listArgs)
}

// list reads a page and fits it to the budget, as get_logs answers it.
func (t *toolset) list(ctx context.Context, q oplog.Query, a listArgs) (logsOut, error) {
	page, err := t.log.List(ctx, q)
	if err != nil {
		return logsOut{}, err
	}
	var out logsOut
	out.Logs, out.logPage = t.fitLogs(&page, q.Offset, a, func(e []logEntry, p logPage) any { return logsOut{e, p} })
	return out, nil
}

type byNameIn struct {
	LogName string `json:"log_name,omitempty" jsonschema:"the log name"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most records to return, newest first; capped at 1000"`
	Offset  int    `json:"offset,omitempty" jsonschema:"records to skip: the previous nextOffset"`
	listArgs
}

func (t *toolset) byName(ctx context.Context, in byNameIn, mk func([]logEntry, logPage) any) ([]logEntry, logPage, error) {
	if in.LogName == "" {
		return nil, logPage{}, argError("log_name", "missing: list_log_names shows the names")
	}
	page, err := t.log.List(ctx, oplog.Query{Filter: oplog.Filter{Name: in.LogName}, Count: in.Limit, Offset: in.Offset})
	if err != nil {
		return nil, logPage{}, err
	}
	e, p := t.fitLogs(&page, in.Offset, in.listArgs, mk)
	return e, p, nil
}

type logsByNameOut struct {
	LogName string     `json:"log_name"`
	Logs    []logEntry `json:"logs" jsonschema:"newest first"`
	logPage
}

func (o logsByNameOut) text() string {
	return listText(o.header("get_logs_by_name "+o.LogName, o.Logs), o.Logs)
}

func (t *toolset) getLogsByName(ctx context.Context, _ *mcp.CallToolRequest, in byNameIn) (logsByNameOut, error) {
	out := logsByNameOut{LogName: in.LogName}
	var err error
	out.Logs, out.logPage, err = t.byName(ctx, in, func(e []logEntry, p logPage) any { return logsByNameOut{in.LogName, e, p} })
	return out, err
}

type logByNameOut struct {
	Name    string     `json:"name"`
	Entries []logEntry `json:"entries" jsonschema:"newest first"`
	logPage
}

func (o logByNameOut) text() string {
	return listText(o.header("get_log_by_name "+o.Name, o.Entries), o.Entries)
}

func (t *toolset) getLogByName(ctx context.Context, _ *mcp.CallToolRequest, in byNameIn) (logByNameOut, error) {
	out := logByNameOut{Name: in.LogName}
	var err error
	out.Entries, out.logPage, err = t.byName(ctx, in, func(e []logEntry, p logPage) any { return logByNameOut{in.LogName, e, p} })
	return out, err
}

// ---- get_log_details and get_result ----

type logIDIn struct {
	LogID  idArg `json:"log_id,omitempty" jsonschema:"the record's ID (a number or a string of digits); logId works too"`
	LogID2 idArg `json:"logId,omitempty" jsonschema:"the same as log_id, as the Unity seed's examples spell it"`
}

type detailsOut struct {
	ID         uint64          `json:"id"`
	Kind       string          `json:"kind" jsonschema:"line or op"`
	Time       string          `json:"time" jsonschema:"RFC 3339, UTC"`
	Level      string          `json:"level"`
	Name       string          `json:"name,omitempty"`
	Source     string          `json:"source"`
	Text       string          `json:"text" jsonschema:"the message, whole"`
	Stack      string          `json:"stack,omitempty" jsonschema:"the stack trace"`
	Data       json.RawMessage `json:"data,omitempty" jsonschema:"the record's data (Unity's context)"`
	Tool       string          `json:"tool,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Status     string          `json:"status,omitempty"`
	IsComplete *bool           `json:"isComplete,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	StartTime  string          `json:"startTime,omitempty"`
	EndTime    string          `json:"endTime,omitempty"`
	DurationMs *int64          `json:"durationMs,omitempty"`
	ReplayOf   uint64          `json:"replayOf,omitempty"`
	Prev       uint64          `json:"prev" jsonschema:"the ID of the record before; 0: none"`
	Next       uint64          `json:"next" jsonschema:"the ID of the record after; 0: none"`
}

func (t *toolset) getLogDetails(ctx context.Context, _ *mcp.CallToolRequest, in logIDIn) (detailsOut, error) {
	id, err := logID(in.LogID, in.LogID2)
	if err != nil {
		return detailsOut{}, err
	}
	return t.details(ctx, id)
}

func (t *toolset) details(ctx context.Context, id uint64) (detailsOut, error) {
	r, err := t.log.Get(ctx, id)
	if err != nil {
		return detailsOut{}, err
	}
	d := detailsOut{ID: r.ID, Kind: r.Kind.String(), Time: formatTime(r.Time), Level: r.Level.String(), Name: r.Name,
		Source: r.Source, Text: r.Text, Stack: r.Stack, Data: r.Data}
	if r.Kind == oplog.KindOp {
		complete := r.IsComplete()
		d.Tool, d.Arguments, d.Status, d.IsComplete, d.Result, d.Error = r.Tool, r.Arguments, r.Status.String(), &complete, r.Result, r.Error
		d.StartTime, d.EndTime, d.DurationMs, d.ReplayOf = formatTime(r.StartTime), formatTime(r.EndTime), durationMs(&r), r.ReplayOf
	}
	d.Prev, d.Next, err = t.log.Neighbors(ctx, id)
	return d, err
}

type resultIn struct {
	logIDIn
	WaitMs int `json:"waitMs,omitempty" jsonschema:"while the operation is pending, wait up to this many milliseconds for it to complete (capped at 30000)"`
}

type resultOut struct {
	ID         uint64          `json:"id"`
	Tool       string          `json:"tool"`
	Status     string          `json:"status" jsonschema:"pending, success, error, timeout or cancelled"`
	IsComplete bool            `json:"isComplete"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	StartTime  string          `json:"startTime"`
	EndTime    string          `json:"endTime,omitempty"`
	DurationMs *int64          `json:"durationMs,omitempty"`
}

func (t *toolset) getResult(ctx context.Context, req *mcp.CallToolRequest, in resultIn) (resultOut, error) {
	id, err := logID(in.LogID, in.LogID2)
	if err != nil {
		return resultOut{}, err
	}
	wctx, cancel := t.opts.Requests.merge(ctx, req)
	defer cancel()
	wctx, cancelWait := context.WithTimeout(wctx, waitDuration(in.WaitMs))
	defer cancelWait()
	r, err := t.log.AwaitComplete(wctx, id)
	if err != nil && (r.ID == 0 || wctx.Err() == nil) {
		return resultOut{}, err
	}
	if r.Kind != oplog.KindOp {
		return resultOut{}, argError("log_id", "record %d is a console line, not an operation; get_log_details shows it", id)
	}
	return resultOf(&r), nil
}
