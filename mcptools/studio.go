package mcptools

import (
	"strings"
)

// Studio scope. search_logs, find_crashes, get_logs, list_log_names and
// get_log_details take scope: local (the default: this machine's log) or
// studio (every machine of the project, from Options.Studio), and machine
// (studio: only that machine). A studio answer is its own shape beside
// the local one (studio*Out, sent through answer.alternate): every record
// names its machine, lists page with a cursor and carry no total, crash
// groups list the machines they were seen on.

// scopeArgs are the scope arguments of the tools that can read the studio.
type scopeArgs struct {
	Scope   string `json:"scope,omitempty" jsonschema:"local (this machine, the default) or studio (every machine of the project)"`
	Machine string `json:"machine,omitempty" jsonschema:"studio scope: only this machine"`
}

// alternate is an answer that may be sent as another value: a studio
// answer, in place of the local shape (see result).
type alternate interface {
	alternate() any
}

// studioOf is how a tool's local answer carries its studio answer.
type studioOf struct {
	studioAnswer any
}

func (s studioOf) alternate() any { return s.studioAnswer }

// withMachine puts machine before the ID of a record's text line.
func withMachine(line, machine string) string {
	return strings.Replace(line, "#", machine+" #", 1)
}
