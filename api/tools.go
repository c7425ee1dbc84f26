package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// mcpTools holds the tool handlers over one Log.
type mcpTools struct {
	log      Backend
	opts     MCPOptions
	started  time.Time
	requests *mcpRequests
	help     []toolHelp
}

// idArg is a record ID argument as JSON: a number, or a string of digits
// (the Unity seed sends IDs as strings). It keeps the raw JSON so that
// parseID can say what was wrong with it.
type idArg []byte

// UnmarshalJSON keeps the raw value.
func (a *idArg) UnmarshalJSON(b []byte) error {
	*a = append((*a)[:0], b...)
	return nil
}

// schemaTypes tells jsonschema.For what the types with their own JSON look like.
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[idArg](): {Types: []string{"integer", "string"}},
	// Any JSON value. Not the empty schema: that is written as `true`, and
	// the TypeScript SDK refuses a tool list with a boolean property schema.
	reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
}

// schemaFor infers T's schema. Integers are never negative here.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: schemaTypes})
	if err != nil {
		panic("BUG: " + err.Error())
	}
	for _, p := range s.Properties {
		if p.Type == "integer" && p.Minimum == nil {
			p.Minimum = jsonschema.Ptr(0.0)
		}
	}
	return s
}

// toolSpec describes a tool beyond its argument and result types.
type toolSpec struct {
	name, title, description string
	annotations              *mcp.ToolAnnotations
	defaults                 map[string]any // argument defaults, shown in the schema and applied by the SDK
	required                 []string
	example                  map[string]any // for help
}

// Annotations: every tool here works on the local log only (openWorldHint
// false), and only clear_logs destroys anything (the spec's default for
// destructiveHint is true, so it is always stated).
var (
	readOnly   = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: jsonschema.Ptr(false), OpenWorldHint: jsonschema.Ptr(false)}
	appending  = &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(false), OpenWorldHint: jsonschema.Ptr(false)}
	destroying = &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), OpenWorldHint: jsonschema.Ptr(false)}
)

// addTool registers a typed tool. The SDK validates the arguments against
// In's schema (an invalid one is a tool error that names it) and applies
// the defaults; the result is marshalled once, as structuredContent and as
// the same JSON in a text block. (Returning Out to the SDK would have it
// decode, validate and re-encode every answer: a tail of 200 lines would
// cost several times a ping. The output schemas are checked in tests.)
func addTool[In, Out any](srv *mcp.Server, t *mcpTools, spec toolSpec, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	in := schemaFor[In]()
	for name, v := range spec.defaults {
		p := in.Properties[name]
		if p == nil {
			panic("BUG: default for unknown argument " + name)
		}
		p.Default = mustJSON(v)
	}
	in.Required = append(in.Required, spec.required...)
	tool := &mcp.Tool{Name: spec.name, Title: spec.title, Description: spec.description,
		InputSchema: in, OutputSchema: schemaFor[Out](), Annotations: spec.annotations}
	mcp.AddTool(srv, tool, func(ctx context.Context, req *mcp.CallToolRequest, args In) (*mcp.CallToolResult, any, error) {
		out, err := h(ctx, req, args)
		if err != nil {
			return nil, nil, toolError(err)
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, nil, fmt.Errorf("BUG: %s: marshal result: %w", spec.name, err)
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	t.help = append(t.help, newToolHelp(spec, in))
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return b
}

func (t *mcpTools) addTools(srv *mcp.Server) {
	addTool(srv, t, toolSpec{name: "console_tail", title: "Tail the console",
		description: "Console lines oldest first after sinceId: pass the previous lastId (and revision) to get only new lines; " +
			"omit sinceId for the newest limit lines. reset: true means sinceId was past the newest ID or from a cleared " +
			"generation, and lines start over; dropped counts lines retention removed before you read them; more: true means ask again at once. " +
			"Stack traces are not included (hasStack marks lines that have one: get_log_details shows it).",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultTailLimit, "waitMs": 0},
		example: map[string]any{"sinceId": 1234, "limit": 200, "level": "warn", "waitMs": 5000}}, t.consoleTail)
	addTool(srv, t, toolSpec{name: "get_logs", title: "List records",
		description: "Records (console lines and operations) newest first, with filters; total counts every match and more says whether a later page exists. " +
			"Texts are cut to keep answers small; get_log_details has everything.",
		annotations: readOnly, defaults: map[string]any{"count": oplog.DefaultListCount, "offset": 0},
		example: map[string]any{"count": 20, "level": "error", "since": "-15m"}}, t.getLogs)
	addTool(srv, t, toolSpec{name: "get_logs_by_name", title: "Records of one log name",
		description: "The newest records of one log name (Unity's log_name), newest first, as logs with total and more.",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultListCount}, required: []string{"log_name"},
		example: map[string]any{"log_name": "Physics", "limit": 10}}, t.getLogsByName)
	addTool(srv, t, toolSpec{name: "get_log_by_name", title: "One log by name",
		description: "One log name with its newest entries, newest first (the Unity seed's shape: name and entries).",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultListCount}, required: []string{"log_name"},
		example: map[string]any{"log_name": "Physics", "limit": 10}}, t.getLogByName)
	addTool(srv, t, toolSpec{name: "get_log_details", title: "One record in full",
		description: "Everything about one record: text, time, level, name, source, stack trace, data (context), and for an operation " +
			"its tool, arguments, status, result or error and times; prev and next are the IDs of the neighbouring records (0: none).",
		annotations: readOnly, example: map[string]any{"log_id": 1234}}, t.getLogDetails)
	addTool(srv, t, toolSpec{name: "get_result", title: "An operation's result",
		description: "An operation's status, isComplete, result or error, startTime, endTime and durationMs. " +
			"With waitMs, waits up to that long for a pending operation to complete.",
		annotations: readOnly, defaults: map[string]any{"waitMs": 0}, example: map[string]any{"logId": "1234", "waitMs": 5000}}, t.getResult)
	addTool(srv, t, toolSpec{name: "replay_operation", title: "Replay an operation",
		description: "Sends a recorded call of an upstream game server's tool again, with its recorded arguments, to the same upstream; " +
			"records the new operation (replayOf links it) and answers both results with same: true/false and where they differ. " +
			"A tool the upstream does not mark read-only needs confirm: true, since it may change the game.",
		annotations: replaying, example: map[string]any{"log_id": 1234, "confirm": true}}, t.replayOperation)
	addTool(srv, t, toolSpec{name: "list_log_names", title: "List log names",
		description: "Every log name with its record counts per level, total, and first and last seen; ordered by source, then name.",
		annotations: readOnly, defaults: map[string]any{"limit": 200}, example: map[string]any{"source": "unity"}}, t.listLogNames)
	addTool(srv, t, toolSpec{name: "append_log", title: "Write a line",
		description: "Append one console line, e.g. a marker before an experiment; returns its id (a later console_tail with sinceId just below it starts there).",
		annotations: appending, defaults: map[string]any{"level": "info", "source": "agent"}, required: []string{"text"},
		example: map[string]any{"text": "before: spawn 100 enemies", "name": "agent"}}, t.appendLog)
	addTool(srv, t, toolSpec{name: "clear_logs", title: "Delete every record",
		description: "Delete every record and start a new generation (a new revision): every tailer gets reset: true. Cannot be undone; needs confirm: true.",
		annotations: destroying, required: []string{"confirm"}, example: map[string]any{"confirm": true}}, t.clearLogs)
	addTool(srv, t, toolSpec{name: "store_info", title: "Store information",
		description: "Counts by kind and level, first and last ID, generation (revision), bytes on disk, retention, uptime and version.",
		annotations: readOnly, example: map[string]any{}}, t.storeInfo)
	addTool(srv, t, toolSpec{name: "ping", title: "Ping", description: "Liveness: answers ok with the server's time and version.",
		annotations: readOnly, example: map[string]any{}}, t.ping)
	addTool(srv, t, toolSpec{name: "help", title: "Help",
		description: "Every tool with its arguments (type, default, description) and one example call; tool picks one.",
		annotations: readOnly, example: map[string]any{"tool": "console_tail"}}, t.helpTool)
	t.addCrashTools(srv)
	t.addSearchTools(srv)
}

// ---- arguments ----

// explainArguments rewords the SDK's schema validation errors, which speak
// of JSON pointers, into messages that name the argument:
//
//	validating "arguments": validating root: validating /properties/limit: minimum: -5/1 is less than 0.000000
//	invalid argument: limit: must be 0 or more, got -5
//
// It also reads absent or null arguments as {}: the SDK's schema defaults
// would otherwise be applied to a nil map, which panics.
func (t *mcpTools) explainArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ctr, ok := req.(*mcp.CallToolRequest); ok && ctr.Params != nil {
			if a := bytes.TrimSpace(ctr.Params.Arguments); len(a) == 0 || bytes.Equal(a, []byte("null")) {
				ctr.Params.Arguments = json.RawMessage("{}")
			}
		}
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r == nil || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		if tc, ok := r.Content[0].(*mcp.TextContent); ok {
			if ctr, ok := req.(*mcp.CallToolRequest); ok {
				tc.Text = t.explain(ctr.Params.Name, tc.Text)
			}
		}
		return res, err
	}
}

func (t *mcpTools) explain(tool, msg string) string {
	rest, ok := strings.CutPrefix(msg, `validating "arguments": `)
	if !ok {
		return msg
	}
	rest = strings.TrimPrefix(rest, "validating root: ")
	if p, ok := strings.CutPrefix(rest, "validating /properties/"); ok {
		name, why, _ := strings.Cut(p, ": ")
		if v, ok := strings.CutPrefix(why, "minimum: "); ok {
			v, _, _ = strings.Cut(v, "/")
			why = "must be 0 or more, got " + v
		}
		return fmt.Sprintf("invalid argument: %s: %s", name, why)
	}
	var args []string
	for _, h := range t.help {
		if h.Name == tool {
			for _, a := range h.Arguments {
				args = append(args, a.Name)
			}
		}
	}
	takes := "no arguments"
	if len(args) > 0 {
		takes = "the arguments " + strings.Join(args, ", ")
	}
	if p, ok := strings.CutPrefix(rest, "unexpected additional properties "); ok {
		return fmt.Sprintf("invalid argument: unknown argument %s; %s takes %s", p, tool, takes)
	}
	if p, ok := strings.CutPrefix(rest, "required: missing properties: "); ok {
		return fmt.Sprintf("invalid argument: missing argument %s", p)
	}
	return "invalid argument: " + rest
}

func parseIDArg(name string, raw idArg, zeroOK bool) (id uint64, given bool, err error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, false, nil
	}
	if s[0] == '"' {
		if err := json.Unmarshal([]byte(s), &s); err != nil {
			return 0, false, argError(name, "must be a record ID, a whole number such as 42 or \"42\", got %s", raw)
		}
		if s = strings.TrimSpace(s); s == "" {
			return 0, false, nil
		}
	}
	id, err = strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 && !zeroOK {
		return 0, false, argError(name, "must be a record ID, a whole number such as 42 or \"42\", got %s", raw)
	}
	return id, true, nil
}

// logID reads log_id, or logId as the Unity seed's examples spell it.
func logID(snake, camel idArg) (uint64, error) {
	a, okA, err := parseIDArg("log_id", snake, false)
	if err != nil {
		return 0, err
	}
	b, okB, err := parseIDArg("logId", camel, false)
	switch {
	case err != nil:
		return 0, err
	case okA && okB && a != b:
		return 0, argError("log_id", "log_id %d and logId %d disagree; send one of them", a, b)
	case okA:
		return a, nil
	case okB:
		return b, nil
	}
	return 0, argError("log_id", "missing: send the record's ID as log_id (or logId)")
}

func argError(name, format string, args ...any) error {
	return oplog.Errorf(oplog.EINVALID, "%s: %s", name, fmt.Sprintf(format, args...))
}

// filterArgs are the filters of the list tools.
type filterArgs struct {
	level, name, kind, source, since, until string
}

func (f filterArgs) filter(now time.Time) (oplog.Filter, error) {
	var q oplog.Filter
	var err error
	if q.MinLevel, err = oplog.ParseLevel(f.level); err != nil {
		return q, argError("level", "%s", oplog.ErrorMessage(err))
	}
	if q.Kind, err = oplog.ParseKind(f.kind); err != nil {
		return q, argError("kind", "%s", oplog.ErrorMessage(err))
	}
	if q.Since, err = oplog.ParseTime(f.since, now); err != nil {
		return q, argError("since", "%s", oplog.ErrorMessage(err))
	}
	if q.Until, err = oplog.ParseTime(f.until, now); err != nil {
		return q, argError("until", "%s", oplog.ErrorMessage(err))
	}
	q.Name, q.Source = f.name, f.source
	return q, nil
}

// waitDuration turns waitMs into a duration, capped at oplog.MaxWait.
func waitDuration(ms int) time.Duration {
	return min(time.Duration(ms)*time.Millisecond, oplog.MaxWait)
}

// ---- results ----

// The times in results: lists carry milliseconds, details every digit.
const listTime = "2006-01-02T15:04:05.000Z07:00"

// tailLine is one console line in a console_tail answer.
type tailLine struct {
	ID        uint64 `json:"id"`
	Time      string `json:"time" jsonschema:"RFC 3339, UTC, milliseconds"`
	Level     string `json:"level" jsonschema:"debug, info, warn, error or fatal"`
	Name      string `json:"name,omitempty"`
	Source    string `json:"source"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"the text was cut at maxTextChars; get_log_details has all of it"`
	HasStack  bool   `json:"hasStack,omitempty" jsonschema:"the line has a stack trace; get_log_details shows it"`
}

// recordSummary is one record in a list: no stack, no data, text cut.
type recordSummary struct {
	ID         uint64 `json:"id"`
	Kind       string `json:"kind" jsonschema:"line or op"`
	Time       string `json:"time" jsonschema:"RFC 3339, UTC, milliseconds"`
	Level      string `json:"level"`
	Name       string `json:"name,omitempty"`
	Source     string `json:"source"`
	Text       string `json:"text"`
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"the text was cut at maxTextChars"`
	HasStack   bool   `json:"hasStack,omitempty"`
	HasData    bool   `json:"hasData,omitempty"`
	Tool       string `json:"tool,omitempty" jsonschema:"an operation's tool"`
	Status     string `json:"status,omitempty" jsonschema:"an operation's status: pending, success, error, timeout or cancelled"`
	IsComplete *bool  `json:"isComplete,omitempty"`
	DurationMs *int64 `json:"durationMs,omitempty"`
}

// cut shortens s to max characters.
func cut(s string, max int) (string, bool) {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

func (t *mcpTools) summary(r *oplog.Record) recordSummary {
	s := recordSummary{ID: r.ID, Kind: r.Kind.String(), Time: r.Time.Format(listTime), Level: r.Level.String(),
		Name: r.Name, Source: r.Source, HasStack: r.Stack != "", HasData: len(r.Data) > 0}
	s.Text, s.Truncated = cut(r.Text, t.opts.MaxTextChars)
	if r.Kind == oplog.KindOp {
		complete := r.IsComplete()
		s.Tool, s.Status, s.IsComplete, s.DurationMs = r.Tool, r.Status.String(), &complete, durationMs(r)
	}
	return s
}

func (t *mcpTools) summaries(recs []oplog.Record) []recordSummary {
	out := make([]recordSummary, len(recs))
	for i := range recs {
		out[i] = t.summary(&recs[i])
	}
	return out
}

func durationMs(r *oplog.Record) *int64 {
	if !r.IsComplete() || r.StartTime.IsZero() || r.EndTime.IsZero() {
		return nil
	}
	d := r.EndTime.Sub(r.StartTime).Milliseconds()
	return &d
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

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

func (t *mcpTools) consoleTail(ctx context.Context, req *mcp.CallToolRequest, in tailIn) (tailOut, error) {
	f, err := filterArgs{level: in.Level, name: in.Name, source: in.Source}.filter(time.Now())
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
	wctx, cancel := t.requests.merge(ctx, req)
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

func (t *mcpTools) getLogs(ctx context.Context, _ *mcp.CallToolRequest, in getLogsIn) (logsOut, error) {
	f, err := filterArgs{level: in.Level, name: in.Name, kind: in.Kind, source: in.Source, since: in.Since, until: in.Until}.filter(time.Now())
	if err != nil {
		return logsOut{}, err
	}
	return t.list(ctx, oplog.Query{Filter: f, Count: in.Count, Offset: in.Offset})
}

func (t *mcpTools) list(ctx context.Context, q oplog.Query) (logsOut, error) {
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

func (t *mcpTools) byName(ctx context.Context, in byNameIn) (logsOut, error) {
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

func (t *mcpTools) getLogsByName(ctx context.Context, _ *mcp.CallToolRequest, in byNameIn) (logsByNameOut, error) {
	o, err := t.byName(ctx, in)
	return logsByNameOut{LogName: in.LogName, Logs: o.Logs, Total: o.Total, More: o.More}, err
}

type logByNameOut struct {
	Name    string          `json:"name"`
	Entries []recordSummary `json:"entries"`
	Total   int64           `json:"total"`
	More    bool            `json:"more"`
}

func (t *mcpTools) getLogByName(ctx context.Context, _ *mcp.CallToolRequest, in byNameIn) (logByNameOut, error) {
	o, err := t.byName(ctx, in)
	return logByNameOut{Name: in.LogName, Entries: o.Logs, Total: o.Total, More: o.More}, err
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

func (t *mcpTools) getLogDetails(ctx context.Context, _ *mcp.CallToolRequest, in logIDIn) (detailsOut, error) {
	id, err := logID(in.LogID, in.LogID2)
	if err != nil {
		return detailsOut{}, err
	}
	return t.details(ctx, id)
}

func (t *mcpTools) details(ctx context.Context, id uint64) (detailsOut, error) {
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

func (t *mcpTools) getResult(ctx context.Context, req *mcp.CallToolRequest, in resultIn) (resultOut, error) {
	id, err := logID(in.LogID, in.LogID2)
	if err != nil {
		return resultOut{}, err
	}
	wctx, cancel := t.requests.merge(ctx, req)
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

// ---- list_log_names ----

type namesIn struct {
	Source string `json:"source,omitempty" jsonschema:"only names of this source; empty: every source"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most names to return; capped at 1000"`
}

type nameInfo struct {
	Name      string            `json:"name"`
	Source    string            `json:"source"`
	Total     uint64            `json:"total"`
	Counts    map[string]uint64 `json:"counts" jsonschema:"records per level (only levels that occur)"`
	FirstSeen string            `json:"firstSeen"`
	LastSeen  string            `json:"lastSeen"`
}

func newNameInfo(n *oplog.NameInfo) nameInfo {
	ni := nameInfo{Name: n.Name, Source: n.Source, Total: n.Total, Counts: map[string]uint64{},
		FirstSeen: n.FirstSeen.Format(listTime), LastSeen: n.LastSeen.Format(listTime)}
	for _, l := range oplog.Levels {
		if c := n.Count(0, l) - n.Count(0, l+1); c > 0 {
			ni.Counts[l.String()] = c
		}
	}
	return ni
}

type namesOut struct {
	Names []nameInfo `json:"names"`
	Total int        `json:"total" jsonschema:"every (source, name) pair that matched"`
	More  bool       `json:"more"`
}

func (t *mcpTools) listLogNames(ctx context.Context, _ *mcp.CallToolRequest, in namesIn) (namesOut, error) {
	names, err := t.log.Names(ctx, in.Source)
	if err != nil {
		return namesOut{}, err
	}
	limit := min(in.Limit, oplog.MaxListCount)
	if limit == 0 {
		limit = 200
	}
	out := namesOut{Names: []nameInfo{}, Total: len(names), More: len(names) > limit}
	for i := range names[:min(limit, len(names))] {
		out.Names = append(out.Names, newNameInfo(&names[i]))
	}
	return out, nil
}

// ---- append_log and clear_logs ----

type appendIn struct {
	Text   string          `json:"text,omitempty" jsonschema:"the message"`
	Level  string          `json:"level,omitempty" jsonschema:"debug, info, warn, error or fatal"`
	Name   string          `json:"name,omitempty" jsonschema:"the log name"`
	Source string          `json:"source,omitempty" jsonschema:"who writes it"`
	Data   json.RawMessage `json:"data,omitempty" jsonschema:"a JSON object to keep with the line"`
}

type appendOut struct {
	ID   uint64 `json:"id"`
	Time string `json:"time"`
}

func (t *mcpTools) appendLog(ctx context.Context, _ *mcp.CallToolRequest, in appendIn) (appendOut, error) {
	if in.Text == "" {
		return appendOut{}, argError("text", "missing: the line's message")
	}
	level, err := oplog.ParseLevel(in.Level)
	if err != nil {
		return appendOut{}, argError("level", "%s", oplog.ErrorMessage(err))
	}
	if level == 0 {
		level = oplog.LevelInfo
	}
	if bytes.Equal(bytes.TrimSpace(in.Data), []byte("null")) {
		in.Data = nil
	}
	recs := []oplog.Record{{Kind: oplog.KindLine, Level: level, Text: in.Text, Name: in.Name, Source: in.Source, Data: in.Data}}
	if err := t.log.Append(ctx, recs); err != nil {
		if be, ok := oplog.IsBatchError(err); ok {
			return appendOut{}, be.Err // one line is not a batch
		}
		return appendOut{}, err
	}
	return appendOut{ID: recs[0].ID, Time: formatTime(recs[0].Time)}, nil
}

type clearIn struct {
	Confirm bool `json:"confirm,omitempty" jsonschema:"must be true: every record is deleted and cannot be recovered"`
}

type clearOut struct {
	Deleted  uint64 `json:"deleted" jsonschema:"records deleted"`
	Revision uint64 `json:"revision" jsonschema:"the new generation"`
	LastID   uint64 `json:"lastId" jsonschema:"IDs go on after this one"`
}

func (t *mcpTools) clearLogs(ctx context.Context, _ *mcp.CallToolRequest, in clearIn) (clearOut, error) {
	if !in.Confirm {
		return clearOut{}, argError("confirm", "must be true to delete every record; nothing was deleted")
	}
	before := t.log.Stats().Records
	st, err := t.log.Clear(ctx)
	if err != nil {
		return clearOut{}, err
	}
	t.opts.Logger.Warn("the log was cleared by an MCP client", "records", before, "revision", st.Revision)
	return clearOut{Deleted: before, Revision: st.Revision, LastID: st.LastID}, nil
}

// ---- store_info, ping, help ----

type retentionOut struct {
	MaxRecords uint64 `json:"maxRecords" jsonschema:"0: no limit"`
	MaxBytes   uint64 `json:"maxBytes" jsonschema:"0: no limit"`
	MaxAge     string `json:"maxAge" jsonschema:"a Go duration; 0s: no limit"`
}

type storeInfoOut struct {
	Records        uint64                       `json:"records"`
	Lines          uint64                       `json:"lines"`
	Ops            uint64                       `json:"ops"`
	Levels         map[string]uint64            `json:"levels"`
	Counts         map[string]map[string]uint64 `json:"counts" jsonschema:"by kind, then level"`
	FirstID        uint64                       `json:"firstId"`
	LastID         uint64                       `json:"lastId"`
	Revision       uint64                       `json:"revision"`
	GenStart       uint64                       `json:"genStart" jsonschema:"the first ID of this generation"`
	Bytes          uint64                       `json:"bytes" jsonschema:"encoded size of the retained records"`
	FileBytes      int64                        `json:"fileBytes,omitempty" jsonschema:"size of the data file"`
	Trimmed        uint64                       `json:"trimmed" jsonschema:"records removed by retention in this generation"`
	Retention      *retentionOut                `json:"retention,omitempty"`
	StartedAt      string                       `json:"startedAt"`
	UptimeSeconds  float64                      `json:"uptimeSeconds"`
	Version        string                       `json:"version"`
	MaxTextChars   int                          `json:"maxTextChars" jsonschema:"list and tail texts are cut at this many characters"`
	TrimmedThrough uint64                       `json:"trimmedThrough"`
	Upstreams      []oplog.UpstreamStatus       `json:"upstreams,omitempty" jsonschema:"the game servers behind the gateway"`
	Followers      []oplog.FollowerStatus       `json:"followers,omitempty" jsonschema:"the log files followed"`
	indexInfoOut
}

func (t *mcpTools) storeInfo(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (storeInfoOut, error) {
	st := t.log.Stats()
	o := storeInfoOut{Records: st.Records, Lines: st.Count(oplog.KindLine, 0), Ops: st.Count(oplog.KindOp, 0),
		Levels: map[string]uint64{}, Counts: map[string]map[string]uint64{}, FirstID: st.FirstID, LastID: st.LastID,
		Revision: st.Revision, GenStart: st.GenStart, Bytes: st.Bytes, Trimmed: st.Trimmed, TrimmedThrough: st.TrimmedThrough,
		StartedAt: formatTime(t.started.UTC()), UptimeSeconds: time.Since(t.started).Round(time.Millisecond).Seconds(),
		Version: t.opts.Version, MaxTextChars: t.opts.MaxTextChars}
	for _, k := range []oplog.Kind{oplog.KindLine, oplog.KindOp} {
		o.Counts[k.String()] = map[string]uint64{}
		for _, l := range oplog.Levels {
			o.Counts[k.String()][l.String()] = st.Counts[k][l]
			o.Levels[l.String()] += st.Counts[k][l]
		}
	}
	if t.opts.FileSize != nil {
		o.FileBytes = t.opts.FileSize()
	}
	if r := t.opts.Retention; r != nil {
		o.Retention = &retentionOut{MaxRecords: r.MaxRecords, MaxBytes: r.MaxBytes, MaxAge: r.MaxAge.String()}
	}
	o.indexInfoOut = t.indexInfo()
	if t.opts.Gateway != nil {
		o.Upstreams = t.opts.Gateway.Status()
	}
	if t.opts.Followers != nil {
		o.Followers = t.opts.Followers()
	}
	return o, nil
}

type pingOut struct {
	Status  string `json:"status" jsonschema:"ok"`
	Time    string `json:"time"`
	Version string `json:"version"`
}

func (t *mcpTools) ping(context.Context, *mcp.CallToolRequest, struct{}) (pingOut, error) {
	return pingOut{Status: "ok", Time: formatTime(time.Now().UTC()), Version: t.opts.Version}, nil
}

type helpIn struct {
	Tool string `json:"tool,omitempty" jsonschema:"only this tool; empty: every tool"`
}

type toolHelp struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Arguments   []argHelp      `json:"arguments"`
	Example     map[string]any `json:"example" jsonschema:"the arguments of one example call"`
}

type argHelp struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Required    bool            `json:"required,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Description string          `json:"description"`
}

func newToolHelp(spec toolSpec, in *jsonschema.Schema) toolHelp {
	h := toolHelp{Name: spec.name, Description: spec.description, Arguments: []argHelp{}, Example: spec.example}
	for _, name := range in.PropertyOrder {
		p := in.Properties[name]
		typ := p.Type
		if typ == "" {
			typ = strings.Join(p.Types, " or ")
		}
		if typ == "" {
			typ = "any JSON"
		}
		required := false
		for _, r := range in.Required {
			required = required || r == name
		}
		h.Arguments = append(h.Arguments, argHelp{Name: name, Type: typ, Required: required, Default: p.Default, Description: p.Description})
	}
	return h
}

type helpOut struct {
	Tools []toolHelp `json:"tools"`
}

func (t *mcpTools) helpTool(_ context.Context, _ *mcp.CallToolRequest, in helpIn) (helpOut, error) {
	if in.Tool == "" {
		return helpOut{Tools: t.help}, nil
	}
	names := make([]string, len(t.help))
	for i, h := range t.help {
		if h.Name == in.Tool {
			return helpOut{Tools: []toolHelp{h}}, nil
		}
		names[i] = h.Name
	}
	return helpOut{}, argError("tool", "no tool %q; the tools are %s", in.Tool, strings.Join(names, ", "))
}
