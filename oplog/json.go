package oplog

import (
	"bytes"
	"encoding/json"
)

// MarshalJSON is json.Marshal without HTML escaping, indented by indent
// when it is not empty. mcplogd's JSON goes to programs, agents and
// terminals, never into an HTML page unescaped, and games' names hold <, >
// and & ("BossFight+<PhaseRoutine>d__12"), which json.Marshal would write
// as \u003c and \u003e.
func MarshalJSON(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
