package api

import (
	"encoding/json"

	"github.com/labstack/echo/v4"
)

// jsonSerializer is Echo's JSON serializer without HTML escaping: answers
// go to programs and agents, and games' names hold < and >
// ("BossFight+<PhaseRoutine>d__12", not "BossFight+\u003cPhaseRoutine\u003ed__12").
// The page sets log text as text, never as HTML, so nothing relies on the
// escaping.
type jsonSerializer struct{ echo.DefaultJSONSerializer }

// Serialize writes i as JSON, indented by indent when it is not empty.
func (jsonSerializer) Serialize(c echo.Context, i any, indent string) error {
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(i)
}
