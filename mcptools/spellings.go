package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// acceptSpellings lets the arguments of mcplogd's own tools arrive as the
// Unity-AI Bridge and other clients write them, in every mode: logName for
// log_name, logId for log_id (a name in the other case style, when the
// tool has that one and not this one), and a number or a boolean written as
// a string ("limit":"2") where the tool's schema wants a number or a
// boolean. Anything else reaches the SDK's validation unchanged, which
// words the error.
func (t *toolset) acceptSpellings(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ctr, ok := req.(*mcp.CallToolRequest); ok && ctr.Params != nil {
			if args := t.respell(ctr.Params.Name, ctr.Params.Arguments); args != nil {
				ctr.Params.Arguments = args
			}
		}
		return next(ctx, method, req)
	}
}

// respell returns args with the spellings above normalised, or nil when
// nothing changed (or tool is not one of mcplogd's own).
func (t *toolset) respell(tool string, args json.RawMessage) json.RawMessage {
	types := t.argTypes(tool)
	if types == nil || len(bytes.TrimSpace(args)) == 0 || bytes.TrimSpace(args)[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil // the SDK words the error
	}
	changed := false
	for k, v := range m {
		if _, ok := types[k]; ok {
			continue
		}
		for _, alt := range []string{snakeCase(k), camelCase(k)} {
			if _, known := types[alt]; known && alt != k {
				if _, given := m[alt]; !given {
					m[alt] = v
					delete(m, k)
					changed = true
				}
				break
			}
		}
	}
	for k, v := range m {
		if nv := fromString(types[k], v); nv != nil {
			m[k] = nv
			changed = true
		}
	}
	if !changed {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// argTypes is tool's arguments with their schema types ("integer",
// "integer or string", …), nil for a tool that is not mcplogd's.
func (t *toolset) argTypes(tool string) map[string]string {
	for _, h := range t.help {
		if h.Name == tool {
			types := make(map[string]string, len(h.Arguments))
			for _, a := range h.Arguments {
				types[a.Name] = a.Type
			}
			return types
		}
	}
	return nil
}

// fromString is v, a JSON string, as the number or boolean the schema type
// typ wants; nil when typ takes a string too or v is not such a string.
func fromString(typ string, v json.RawMessage) json.RawMessage {
	if typ == "" || strings.Contains(typ, "string") || len(v) < 2 || v[0] != '"' {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil
	}
	s = strings.TrimSpace(s)
	switch typ {
	case "integer":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(n, 10))
		}
	case "number":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			b, _ := json.Marshal(f)
			return b
		}
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil {
			return json.RawMessage(strconv.FormatBool(b))
		}
	}
	return nil
}

// snakeCase is logName → log_name.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// camelCase is log_name → logName.
func camelCase(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if p := parts[i]; p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}
