package apitest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckToolResult checks what every answer of mcplogd's tools must be: one
// text block, and for a success structuredContent matching outputSchema,
// the tool's declared output schema as the client received it, with a text
// that is either the same JSON or the tool's compact lines (not JSON). It
// returns the JSON of structuredContent, or an error's text.
func CheckToolResult(t testing.TB, name string, res *mcp.CallToolResult, outputSchema any) []byte {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	if res.IsError {
		return []byte(text.Text)
	}
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if json.Valid([]byte(text.Text)) && !JSONEqual(sc, []byte(text.Text)) {
		t.Errorf("%s: structuredContent %s differs from the JSON text %s", name, sc, text.Text)
	}
	if strings.TrimSpace(text.Text) == "" {
		t.Errorf("%s: empty text block", name)
	}
	CheckSchema(t, name+" output", outputSchema, sc)
	return sc
}

// JSONEqual reports whether a and b are the same JSON value.
func JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// CheckSchema validates the JSON doc against schema, as received by a client.
func CheckSchema(t testing.TB, what string, schema any, doc []byte) {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: schema %s: %v", what, raw, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: resolve schema: %v", what, err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("%s does not match its schema: %v\n%s", what, err, doc)
	}
}
