package mcptools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- get_logs and the by-name shapes ----

type getLogsIn struct {
	Count  int    `json:"count,omitempty" jsonschema:"records per page; capped at 1000"`
	Offset int    `json:"offset,omitempty" jsonschema:"matching records to skip (paging)"`
	Level  string `json:"level,omitempty" jsonschema:"minimum level: debug, info, warn, error or fatal"`
	Name   string `json:"name,omitempty" jsonschema:"only this log name (an operation's name is its tool)"`
	Kind   string `json:"kind,omitempty" jsonschema:"line, op or any"`
	Source string `json:"source,omitempty" jsonschema:"only this source"`
	Since  string `json:"since,omitempty" jsonschema:"only records at or after this time: RFC 3339, a date, Unix milliseconds or relative like -15m"`
	Until  string `json:"until,omitempty" jsonschema:"only records before this time, written like since"`
}

type logsOut struct {
	Logs  []recordSummary `json:"logs"`
	Total int64           `json:"total" jsonschema:"every matching record"`
	More  bool            `json:"more" jsonschema:"more matching records exist past this page"`
}

func (t *toolset) getLogs(ctx context.Context, _ *mcp.CallToolRequest, in getLogsIn) (logsOut, error) {
	f, err := oplog.FilterText{Level: in.Level, Name: in.Name, Kind: in.Kind, Source: in.Source, Since: in.Since, Until: in.Until}.Parse(time.Now())
	if err != nil {
		return logsOut{}, err
	}
	return t.list(ctx, oplog.Query{Filter: f, Count: in.Count, Offset: in.Offset})
}

func (t *toolset) list(ctx context.Context, q oplog.Query) (logsOut, error) {
	page, err := t.log.List(ctx, q)
	if err != nil {
		return logsOut{}, err
	}
	return logsOut{Logs: t.summaries(page.Records), Total: page.Total, More: page.More}, nil
}

type byNameIn struct {
	LogName string `json:"log_name,omitempty" jsonschema:"the log name"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most records to return, newest first; capped at 1000"`
}

func (t *toolset) byName(ctx context.Context, in byNameIn) (logsOut, error) {
	if in.LogName == "" {
		return logsOut{}, argError("log_name", "missing: list_log_names shows the names")
	}
	return t.list(ctx, oplog.Query{Filter: oplog.Filter{Name: in.LogName}, Count: in.Limit})
}

type logsByNameOut struct {
	LogName string          `json:"log_name"`
	Logs    []recordSummary `json:"logs"`
	Total   int64           `json:"total"`
	More    bool            `json:"more"`
}

func (t *toolset) getLogsByName(ctx context.Context, _ *mcp.CallToolRequest, in byNameIn) (logsByNameOut, error) {
	o, err := t.byName(ctx, in)
	return logsByNameOut{LogName: in.LogName, Logs: o.Logs, Total: o.Total, More: o.More}, err
}

type logByNameOut struct {
	Name    string          `json:"name"`
	Entries []recordSummary `json:"entries"`
	Total   int64           `json:"total"`
	More    bool            `json:"more"`
}

func (t *toolset) getLogByName(ctx context.Context, _ *mcp.CallToolRequest, in byNameIn) (logByNameOut, error) {
	o, err := t.byName(ctx, in)
	return logByNameOut{Name: in.LogName, Entries: o.Logs, Total: o.Total, More: o.More}, err
}
