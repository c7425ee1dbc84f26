package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// schemaTypes tells jsonschema.For what the types with their own JSON look like.
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[idArg](): {Types: []string{"integer", "string"}},
	reflect.TypeFor[crumb](): crumbSchema,
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

// outputSchema infers Out's schema as a client needs it to check an
// answer: the fields every answer has (those without omitempty or
// omitzero) with their types, none of them required. The text block and
// the tool's description explain the answer; optional fields, nested item schemas, descriptions and minimums
// would cost every client the bytes of tools/list on every connection
// (about 11 KB of the 16 KB it is kept under) for checks no client needs.
// The field docs stay in the jsonschema tags, and tests check answers
// against the whole schema (fullOutputSchema).
func outputSchema[T any]() *jsonschema.Schema {
	s := fullOutputSchema[T]()
	always := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[T]()) {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name != "" && name != "-" && !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			always[name] = true
		}
	}
	for name, p := range s.Properties {
		if !always[name] {
			delete(s.Properties, name)
			continue
		}
		lean := jsonschema.Schema{Type: p.Type, Types: p.Types}
		if lean.Type == "" && len(lean.Types) == 0 {
			lean.Description = p.Description // any JSON: not the empty schema, written as true (see schemaTypes)
		}
		*p = lean
	}
	s.PropertyOrder, s.AdditionalProperties, s.Required = nil, nil, nil
	return s
}

// fullOutputSchema is Out's whole schema, which tests check answers against.
func fullOutputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: schemaTypes})
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return s
}

// leanArgs maps the descriptions of arguments that several tools share to
// the shortest ones, which tools/list carries: every connection pays its
// bytes (kept under 16 KB, api's TestAgentBudgets), and help keeps the
// whole descriptions.
var leanArgs = map[string]string{
	"local (this machine, the default) or studio (every machine of the project)": "local or studio",
	"studio scope: only this machine":                                            "studio: one machine",
	"answer size cap in bytes (default 32768)":                                   "cap",
	"answer size cap in bytes (default 65536)":                                   "cap",
	"include stacks (max 2048 bytes each)":                                       "with stacks",
	"repeats in a row as one entry (repeat, lastId)":                             "repeats as one entry",
	"repeats in a row as one entry (repeat, oldestId)":                           "repeats as one entry",
	"records to skip (the previous nextOffset)":                                  "the previous nextOffset",
	"names to skip: the previous nextOffset":                                     "the previous nextOffset",
	"log_id, as Unity spells it":                                                 "log_id",
	"the record's ID (number or digits)":                                         "record ID",
	"the previous lastId: only lines after it; omit for the newest lines":        "the previous lastId; omit for the newest",
	"the previous lastId; omit for the newest lines":                             "the previous lastId; omit for the newest",
	"long poll: ms to wait for a line (max 30000)":                               "long poll, ms (max 30000)",
	"answer size cap in bytes (default 16384)":                                   "cap",
	"the previous revision; if the log was cleared since: reset true":            "the previous revision",
	"long poll: wait up to this many ms (max 30000) for a line":                  "long poll, ms (max 30000)",
	"while pending, wait up to this many ms (max 30000)":                         "wait ms while pending (max 30000)",
	"also the N records before and after it from its source (max 50)":            "N neighbours each side (max 50)",
	"current, previous or a run number":                                          "current, previous or N",
	"current (default), previous or a run number":                                "current (default), previous or N",
	"only this log name (an op's is its tool)":                                   "only this log name",
	"lines from this time (like get_logs) or last_compile":                       "a time (as get_logs) or last_compile",
	"must be true: deletes every record for good":                                "must be true",
	"true to replay a tool not marked read-only":                                 "true for a tool not read-only",
	"one tool in full; empty: all, one line each":                                "one tool; empty: all",
	"same forms as since":                                                        "like since",
	"read a cut field from offset: text, stack, data, arguments, result, error":  "a cut field: text, stack, data, arguments, result, error",
	"ops with this status: pending, success, error, timeout, cancelled, crashed": "pending, success, error, timeout, cancelled or crashed",
	`words (all required), field:value (text stack name level source kind tool status run time template), "phrases", OR, NOT, -, wildcards: level:error AND name:Physics "null reference"`: `words (all required), field:value (text stack name level source kind tool status run time template), "phrases", OR, NOT, -, wildcards`,
}

// leanInput returns in as tools/list carries it: the arguments with
// their leanArgs descriptions, and maxBytes without its minimum (a
// budget of 0 or less is the default, see budgetArg.bytes).
func leanInput(in *jsonschema.Schema) *jsonschema.Schema {
	if in.Properties == nil {
		return in
	}
	lean := *in
	lean.Properties = make(map[string]*jsonschema.Schema, len(in.Properties))
	for k, v := range in.Properties {
		if d, ok := leanArgs[v.Description]; ok || k == "maxBytes" {
			c := *v
			if ok {
				c.Description = d
			}
			if k == "maxBytes" {
				c.Minimum = nil
			}
			v = &c
		}
		lean.Properties[k] = v
	}
	return &lean
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
// destructiveHint is true, so every tool that writes states it). A
// read-only tool states neither destructiveHint nor idempotentHint (which
// the SDK writes as false): the spec gives both meaning only when
// readOnlyHint is false, and tools/list's bytes are every connection's.
var (
	readOnly   = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: jsonschema.Ptr(false)}
	appending  = &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(false), OpenWorldHint: jsonschema.Ptr(false)}
	destroying = &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), OpenWorldHint: jsonschema.Ptr(false)}
)

// addTool registers a typed tool. The SDK validates the arguments against
// In's schema (an invalid one is a tool error that names it) and applies
// the defaults; the result is marshalled once, as structuredContent, with
// a text block that the answer writes (see texter). (Returning Out to the SDK would have it
// decode, validate and re-encode every answer: a tail of 200 lines would
// cost several times a ping. The output schemas are checked in tests.)
func addTool[In, Out any](srv *mcp.Server, t *toolset, spec toolSpec, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
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
		InputSchema: leanInput(in), OutputSchema: outputSchema[Out](), Annotations: spec.annotations}
	mcp.AddTool(srv, tool, func(ctx context.Context, req *mcp.CallToolRequest, args In) (*mcp.CallToolResult, any, error) {
		out, err := h(ctx, req, args)
		if err != nil {
			return nil, nil, toolError(err)
		}
		res, err := result(out)
		if err != nil {
			return nil, nil, fmt.Errorf("BUG: %s: marshal result: %w", spec.name, err)
		}
		return res, nil, nil
	})
	t.help = append(t.help, newToolHelp(spec, in))
	if t.fullSchemas == nil {
		t.fullSchemas = map[string]*jsonschema.Schema{}
	}
	t.fullSchemas[spec.name] = fullOutputSchema[Out]()
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return b
}

func (t *toolset) addTools(srv *mcp.Server) {
	addTool(srv, t, toolSpec{name: "console_tail", title: "Tail the console",
		description: "Console lines oldest first after sinceId (omit: newest). " +
			"reset: start over; dropped: lost to retention; more: call again.",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultTailLimit, "collapse": true},
		example: map[string]any{"sinceId": 1234, "limit": 200, "level": "warn", "waitMs": 5000}}, t.consoleTail)
	addTool(srv, t, toolSpec{name: "get_logs", title: "List records",
		description: "Records newest first, filtered; total counts matches; more: page with offset=nextOffset. " +
			"Texts cut: get_log_details has all.",
		annotations: readOnly, defaults: map[string]any{"count": oplog.DefaultListCount, "collapse": true},
		example: map[string]any{"count": 20, "level": "error", "since": "-15m"}}, t.getLogs)
	addTool(srv, t, toolSpec{name: "get_logs_by_name", title: "Records of one log name",
		description: "The newest records of one log name (Unity's log_name), like get_logs.",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultListCount, "collapse": true}, required: []string{"log_name"},
		example: map[string]any{"log_name": "Physics", "limit": 10}}, t.getLogsByName)
	addTool(srv, t, toolSpec{name: "get_log_by_name", title: "One log by name",
		description: "One log name's newest entries (the Unity seed's shape).",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultListCount, "collapse": true}, required: []string{"log_name"},
		example: map[string]any{"log_name": "Physics", "limit": 10}}, t.getLogByName)
	addTool(srv, t, toolSpec{name: "get_log_details", title: "One record in full",
		description: "One record whole: text, stack, data; an op's arguments, result, printed lines. " +
			"around: N neighbours; field, offset: read a cut field.",
		annotations: readOnly, example: map[string]any{"log_id": 1234}}, t.getLogDetails)
	addTool(srv, t, toolSpec{name: "get_result", title: "An operation's result",
		description: "An operation's status, result or error, times and printed lines; waitMs waits while pending.",
		annotations: readOnly, example: map[string]any{"logId": "1234", "waitMs": 5000}}, t.getResult)
	addTool(srv, t, toolSpec{name: "replay_operation", title: "Replay an operation",
		description: "Replays a recorded upstream call, comparing results (same, diff); " +
			"a tool not read-only needs confirm: true.",
		annotations: replaying, example: map[string]any{"log_id": 1234, "confirm": true}}, t.replayOperation)
	addTool(srv, t, toolSpec{name: "list_log_names", title: "List log names",
		description: "Every log name by source: counts per level, first and last seen.",
		annotations: readOnly, defaults: map[string]any{"limit": 200}, example: map[string]any{"source": "unity"}}, t.listLogNames)
	addTool(srv, t, toolSpec{name: "append_log", title: "Write a line",
		description: "Append a console line, e.g. a note before an experiment; returns its id.",
		annotations: appending, defaults: map[string]any{"level": "info", "source": "agent"}, required: []string{"text"},
		example: map[string]any{"text": "before: spawn 100 enemies", "name": "agent"}}, t.appendLog)
	addTool(srv, t, toolSpec{name: "clear_logs", title: "Delete every record",
		description: "Delete every record (new revision: tailers reset); no undo; needs confirm: true.",
		annotations: destroying, required: []string{"confirm"}, example: map[string]any{"confirm": true}}, t.clearLogs)
	addTool(srv, t, toolSpec{name: "store_info", title: "Store information",
		description: "Counts, IDs, revision, size, retention, index, runs, upstreams, follows, version.",
		annotations: readOnly, example: map[string]any{}}, t.storeInfo)
	addTool(srv, t, toolSpec{name: "ping", title: "Ping", description: "Liveness: ok, time and version.",
		annotations: readOnly, example: map[string]any{}}, t.ping)
	addTool(srv, t, toolSpec{name: "help", title: "Help",
		description: "One line per tool; tool: NAME gives one in full.",
		annotations: readOnly, example: map[string]any{"tool": "console_tail"}}, t.helpTool)
	t.addCrashTools(srv)
	t.addStatsTools(srv)
	t.addSearchTools(srv)
}
