package mcptools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- get_logs and the by-name shapes ----

type getLogsIn struct {
	Count  int    `json:"count,omitempty" jsonschema:"records per page (max 1000)"`
	Offset int    `json:"offset,omitempty" jsonschema:"records to skip (the previous nextOffset)"`
	Level  string `json:"level,omitempty" jsonschema:"minimum level (debug…fatal)"`
	Name   string `json:"name,omitempty" jsonschema:"only this log name (an op's is its tool)"`
	Kind   string `json:"kind,omitempty" jsonschema:"line, op, marker or any"`
	Source string `json:"source,omitempty" jsonschema:"only this source"`
	Since  string `json:"since,omitempty" jsonschema:"RFC 3339, Unix ms, -15m or last_compile"`
	Until  string `json:"until,omitempty" jsonschema:"same forms as since"`
	Run    string `json:"run,omitempty" jsonschema:"current, previous or a run number"`
	Cursor string `json:"cursor,omitempty" jsonschema:"studio: nextCursor"`
	scopeArgs
	listArgs
}

type logsOut struct {
	Logs []logEntry `json:"logs" jsonschema:"newest first"`
	logPage

	studioOf
}

func (o logsOut) text() string { return listText(o.header("get_logs", o.Logs), o.Logs) }

func (t *toolset) getLogs(ctx context.Context, _ *mcp.CallToolRequest, in getLogsIn) (logsOut, error) {
	if s, err := t.studio(in.scopeArgs); err != nil || s != nil {
		if err != nil {
			return logsOut{}, err
		}
		return t.studioLogs(ctx, s, in)
	}
	if in.Cursor != "" {
		return logsOut{}, argError("cursor", "only with scope studio; local scope pages with offset")
	}
	f, err := oplog.FilterText{Level: in.Level, Name: in.Name, Kind: in.Kind, Source: in.Source, Since: SinceTime(in.Since), Until: in.Until}.Parse(time.Now())
	if err != nil {
		return logsOut{}, err
	}
	if err := Scope(ctx, t.log, &f, in.Run, in.Since); err != nil {
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
	out.Logs, out.logPage = t.fitLogs(&page, q.Offset, a, func(e []logEntry, p logPage) any { return logsOut{Logs: e, logPage: p} })
	return out, nil
}

type byNameIn struct {
	LogName string `json:"log_name,omitempty" jsonschema:"the log name"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most records (max 1000)"`
	Offset  int    `json:"offset,omitempty" jsonschema:"records to skip (the previous nextOffset)"`
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
