package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// idArg is a record ID argument as JSON: a number, or a string of digits
// (the Unity seed sends IDs as strings). It keeps the raw JSON so that
// parseIDArg can say what was wrong with it.
type idArg []byte

// UnmarshalJSON keeps the raw value.
func (a *idArg) UnmarshalJSON(b []byte) error {
	*a = append((*a)[:0], b...)
	return nil
}

// explainArguments rewords the SDK's schema validation errors, which speak
// of JSON pointers, into messages that name the argument:
//
//	validating "arguments": validating root: validating /properties/limit: minimum: -5/1 is less than 0.000000
//	invalid argument: limit: must be 0 or more, got -5
//
// It also reads absent or null arguments as {}: the SDK's schema defaults
// would otherwise be applied to a nil map, which panics.
func (t *toolset) explainArguments(next mcp.MethodHandler) mcp.MethodHandler {
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

func (t *toolset) explain(tool, msg string) string {
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

// parseIDArg reads an ID argument as oplog.ParseIDText does.
func parseIDArg(name string, raw idArg, zeroOK bool) (id uint64, given bool, err error) {
	return oplog.ParseIDText(name, string(raw), zeroOK)
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

// waitDuration turns waitMs into a duration, capped at oplog.MaxWait.
func waitDuration(ms int) time.Duration {
	return min(time.Duration(ms)*time.Millisecond, oplog.MaxWait)
}
