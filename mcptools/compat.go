package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CompatUnityBridge is the compatibility mode (Options.Compat, `serve
// --compat unity-bridge`) in which mcplogd answers as the Unity-AI Bridge
// documents its tools, so a client written for the bridge works unchanged:
//
//   - every answer of mcplogd's own tools is the bridge's envelope
//     {status, log_id, result, is_complete, message} (errors: {status:
//     "error", log_id, error, is_complete}), as structuredContent and as
//     the text block (the JSON itself, one list entry per line);
//   - get_logs lists operations as the bridge's operations (logId, status,
//     isComplete, startTime, endTime in Unix ms, operationType), 10 by default;
//   - records use the bridge's field names: message, timestamp, type,
//     stackTrace, context, logName, logId (a string), with startTime and
//     endTime in Unix ms and timeMs beside the timestamp;
//   - lists are not collapsed: one entry per record;
//   - help answers {documentation, tools: [{id: "unity_NAME", …}]};
//   - unity_NAME calls NAME, for mcplogd's tools and an upstream's (its
//     execute_code and query behind the gateway); an upstream's answer
//     comes in the envelope too, with the recorded operation's ID as
//     log_id (get_result {logId} reads it later) and as result the JSON of
//     its text (the inner result when the upstream is the bridge itself).
//
// The bridge's input spellings (logName, logId, numbers as strings) are
// accepted in every mode (acceptSpellings).
const CompatUnityBridge = "unity-bridge"

// CheckCompat returns an error naming the modes unless mode is "" (none)
// or CompatUnityBridge.
func CheckCompat(mode string) error {
	if mode == "" || mode == CompatUnityBridge {
		return nil
	}
	return fmt.Errorf("compat: %q is not a compatibility mode; the one there is: %s", mode, CompatUnityBridge)
}

// bridgePrefix starts the bridge's names of tools (unity_get_logs).
const bridgePrefix = "unity_"

// bridge is the middleware of CompatUnityBridge.
func (t *toolset) bridge(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if _, ok := req.(*mcp.ListToolsRequest); ok {
			return bridgeToolList(next(ctx, method, req))
		}
		ctr, ok := req.(*mcp.CallToolRequest)
		if !ok || ctr.Params == nil {
			return next(ctx, method, req)
		}
		ctr.Params.Name = t.bridgeName(ctr.Params.Name)
		types := t.argTypes(ctr.Params.Name)
		if types == nil && !t.upstreamHas(ctr.Params.Name) {
			return bridgeUnsupported(ctr.Params.Name), nil
		}
		if types == nil {
			res, err := next(ctx, method, req) // an upstream's tool
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r != nil {
				return bridgeUpstream(r), nil
			}
			return res, err
		}
		ctr.Params.Arguments = bridgeArgs(ctr.Params.Name, ctr.Params.Arguments, types)
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || r == nil {
			return res, err
		}
		out := t.bridgeResult(ctr.Params.Name, ctr.Params.Arguments, r)
		if ctr.Params.Name == "get_log_by_name" && !out.IsError {
			env := out.StructuredContent.(map[string]any)
			t.bridgeEntryData(ctx, env)
			out.Content = []mcp.Content{&mcp.TextContent{Text: linedJSON(env)}}
		}
		return out, nil
	}
}

// bridgeToolList leaves out the output schemas, which describe mcplogd's
// own shapes: a client that checks structuredContent against them would
// refuse the bridge's.
func bridgeToolList(res mcp.Result, err error) (mcp.Result, error) {
	l, ok := res.(*mcp.ListToolsResult)
	if err != nil || !ok || l == nil {
		return res, err
	}
	tools := make([]*mcp.Tool, len(l.Tools))
	for i, tool := range l.Tools {
		c := *tool
		c.OutputSchema = nil
		tools[i] = &c
	}
	c := *l
	c.Tools = tools
	return &c, nil
}

// bridgeName is the tool a unity_NAME call means: NAME, when mcplogd or an
// upstream offers NAME and no upstream offers unity_NAME itself.
func (t *toolset) bridgeName(name string) string {
	rest, ok := strings.CutPrefix(name, bridgePrefix)
	if !ok || t.upstreamHas(name) {
		return name
	}
	if t.argTypes(rest) != nil || t.upstreamHas(rest) {
		return rest
	}
	return name
}

func (t *toolset) upstreamHas(name string) bool {
	if t.opts.Gateway == nil {
		return false
	}
	for _, tool := range t.opts.Gateway.Tools() {
		if tool.Name == name {
			return true
		}
	}
	return false
}

// bridgeArgs applies the bridge's defaults: no collapsing, and get_logs
// lists 10 operations.
func bridgeArgs(tool string, args json.RawMessage, types map[string]string) json.RawMessage {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // IDs stay as written
	if dec.Decode(&m) != nil || m == nil {
		return args // the SDK words the error
	}
	set := func(k string, v any) {
		if _, ok := types[k]; ok && m[k] == nil {
			m[k] = v
		}
	}
	set("collapse", false)
	set("format", "json") // the bridge's answers are the JSON, entries and all
	if tool == "get_logs" {
		set("kind", "op")
		if m["count"] == nil && m["limit"] == nil {
			set("count", 10)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return b
}

// bridgeResult is r in the bridge's envelope.
func (t *toolset) bridgeResult(tool string, args json.RawMessage, r *mcp.CallToolResult) *mcp.CallToolResult {
	var env map[string]any
	if r.IsError {
		env = map[string]any{"status": "error", "log_id": argID(args), "error": resultText(r), "is_complete": true}
	} else {
		var m map[string]any
		b, _ := json.Marshal(r.StructuredContent)
		_ = json.Unmarshal(b, &m)
		env = t.bridgeShape(tool, m)
	}
	return &mcp.CallToolResult{Meta: r.Meta, IsError: r.IsError, StructuredContent: env,
		Content: []mcp.Content{&mcp.TextContent{Text: linedJSON(env)}}}
}

const bridgeDone = "Operation completed successfully"

// bridgeShape is the envelope of a successful answer m of tool.
func (t *toolset) bridgeShape(tool string, m map[string]any) map[string]any {
	env := map[string]any{"status": "success", "is_complete": true, "message": bridgeDone}
	switch tool {
	case "get_logs":
		// The bridge's get_logs has no log_id and no result: its operations.
		delete(env, "message")
		env["operations"] = mapList(m["logs"], bridgeRecord)
		copyKeys(env, m, "total", "more", "nextOffset")
		return env
	case "get_result":
		res := bridgeRecord(asMap(m))
		if res["isComplete"] != true {
			env["is_complete"], env["message"] = false, "Operation is still pending"
		} else if res["status"] != "success" {
			env["message"] = fmt.Sprintf("Operation ended: %v", res["status"])
		}
		if res["message"] == nil {
			res["message"] = env["message"]
		}
		env["log_id"], env["result"] = res["logId"], res
		return env
	case "help":
		env["result"] = t.bridgeHelp(m)
		env["log_id"] = ""
		return env
	}
	res := bridgeLists(m)
	if _, one := m["id"]; one && tool != "append_log" {
		res = bridgeRecord(m) // get_log_details and the like: one record
	}
	env["result"] = res
	env["log_id"] = firstID(m, "id", "lastId")
	return env
}

// bridgeHelp is help's answer as the bridge's: documentation and the tools
// by their unity_ ids.
func (t *toolset) bridgeHelp(m map[string]any) map[string]any {
	tools := []any{}
	list, _ := m["tools"].([]any)
	for _, x := range list {
		h := asMap(x)
		d := h["description"]
		if d == nil {
			d = h["summary"]
		}
		h["id"], h["description"] = bridgePrefix+fmt.Sprint(h["name"]), d
		delete(h, "summary")
		tools = append(tools, h)
	}
	if len(list) > 1 && t.opts.Gateway != nil {
		for _, tool := range t.opts.Gateway.Tools() {
			tools = append(tools, map[string]any{"id": bridgePrefix + tool.Name, "name": tool.Name, "description": tool.Description})
		}
	}
	return map[string]any{
		"documentation": "mcplogd " + t.opts.Version + " (Unity-AI Bridge compatibility): each tool answers {status, log_id, result, is_complete, message}; call a tool by its id or by its name without unity_.",
		"tools":         tools,
	}
}

// addCompat adds the middleware of the input spellings (always) and of
// Options.Compat's mode.
func (t *toolset) addCompat(srv *mcp.Server) {
	if err := CheckCompat(t.opts.Compat); err != nil {
		panic("BUG: " + err.Error())
	}
	srv.AddReceivingMiddleware(t.acceptSpellings)
	if t.opts.Compat == CompatUnityBridge {
		srv.AddReceivingMiddleware(t.bridge)
	}
}

// bridgeUpstream is an upstream's answer in the envelope: log_id is the
// operation mcplogd recorded (its _meta.log_id); result is the JSON of the
// answer's text, or the text; an answer that is already the bridge's
// envelope gives its result.
func bridgeUpstream(r *mcp.CallToolResult) *mcp.CallToolResult {
	text := resultText(r)
	var result any = text
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		result = v
		if m, ok := v.(map[string]any); ok && m["status"] != nil && m["result"] != nil {
			result = m["result"]
		}
	}
	id := ""
	if v, ok := r.Meta["log_id"]; ok {
		id = fmt.Sprint(idString(v))
	}
	env := map[string]any{"status": "success", "log_id": id, "result": result, "is_complete": true, "message": bridgeDone}
	if m, ok := v.(map[string]any); ok && m["status"] == "pending" {
		env = map[string]any{"status": "pending", "log_id": id, "is_complete": false, "message": "Operation is still running: get_result {logId} gives its result"}
	}
	if r.IsError {
		env = map[string]any{"status": "error", "log_id": id, "error": text, "is_complete": true}
	}
	return &mcp.CallToolResult{Meta: r.Meta, IsError: r.IsError, StructuredContent: env,
		Content: []mcp.Content{&mcp.TextContent{Text: linedJSON(env)}}}
}
