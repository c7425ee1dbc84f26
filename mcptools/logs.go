package mcptools

import (
	"context"
	"encoding/json"

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
	formatArg
}

type logsOut struct {
	Logs []logEntry `json:"logs,omitzero" jsonschema:"newest first; with format json, else the text block holds them"`
	logPage
	Hint *hintOut `json:"hint,omitempty" jsonschema:"an empty first page with filters: a request that finds records (the text block's last line); call again with args"`

	studioOf
	lean bool // entries in the text block alone (see formatArg)
}

// MarshalJSON leaves the entries out of a lean answer.
func (o logsOut) MarshalJSON() ([]byte, error) {
	type plain logsOut
	if o.lean {
		o.Logs = nil
	}
	return json.Marshal(plain(o))
}

func (o logsOut) text() string {
	text := listText(o.header("get_logs", o.Logs), o.Logs)
	if o.Hint != nil {
		text += "\n" + o.Hint.Text
	}
	return text
}

func (t *toolset) getLogs(ctx context.Context, _ *mcp.CallToolRequest, in getLogsIn) (logsOut, error) {
	a := in.scopeArgs.args()
	a.FilterText = oplog.FilterText{Level: in.Level, Name: in.Name, Kind: in.Kind, Source: in.Source, Since: in.Since, Until: in.Until}
	a.Run = in.Run
	q, src, err := t.resolve(ctx, a)
	if err != nil {
		return logsOut{}, err
	}
	st := src.studio()
	switch {
	case st == nil && in.Cursor != "":
		return logsOut{}, argError("cursor", "only with scope studio; local scope pages with offset")
	case st != nil && in.Offset != 0:
		return logsOut{}, argError("offset", "studio scope pages with cursor (the previous nextCursor)")
	}
	p, err := src.list(ctx, q, in.Count, in.Offset, in.Cursor)
	if err != nil {
		return logsOut{}, err
	}
	if st == nil {
		la := in.listArgs
		if la.textOnly, err = in.lean(); err != nil {
			return logsOut{}, err
		}
		out := logsOut{lean: la.textOnly}
		out.Logs, out.logPage = t.fitLogs(&p.Page, in.Offset, la, func(e []logEntry, p logPage) any { return logsOut{Logs: e, logPage: p, lean: la.textOnly} })
		if len(p.Records) == 0 && in.Offset == 0 {
			out.Hint = newHintOut(oplog.FilterHint(ctx, t.log, q.Filter))
		}
		return out, nil
	}
	out := studioLogsOut{Scope: "studio", Project: st.Project(), More: p.nextCursor != "", NextCursor: p.nextCursor}
	empty := out
	empty.Logs, empty.More, empty.NextCursor = []studioEntry{}, true, "v18446744073709551615"
	la := in.listArgs
	la.Collapse = false // a cursor reads on from one record, not from a run of repeats
	var n int
	out.Logs, n = t.fitEntries(p.Records, p.machines, la, newFitter(in.bytes(DefaultBudget), empty))
	if n < len(p.Records) {
		out.More, out.NextCursor = true, p.cursors[n]
	}
	out.Count = len(out.Logs)
	if len(p.Records) == 0 && in.Cursor == "" {
		out.Hint = newHintOut(oplog.StudioFilterHint(ctx, st, q.Filter, q.Machine))
	}
	return logsOut{studioOf: studioOf{out}}, nil
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
	return byNameAnswer(ctx, t, in, func(e []logEntry, p logPage) logsByNameOut { return logsByNameOut{in.LogName, e, p} })
}

// byNameAnswer is the answer of a by-name tool, which mk makes of the
// entries and their page.
func byNameAnswer[O any](ctx context.Context, t *toolset, in byNameIn, mk func([]logEntry, logPage) O) (O, error) {
	e, p, err := t.byName(ctx, in, func(e []logEntry, p logPage) any { return mk(e, p) })
	return mk(e, p), err
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
	return byNameAnswer(ctx, t, in, func(e []logEntry, p logPage) logByNameOut { return logByNameOut{in.LogName, e, p} })
}
