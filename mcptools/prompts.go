package mcptools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var triagePrompt = &mcp.Prompt{
	Name:        "triage",
	Title:       "Triage the log",
	Description: "Look for errors and crashes in the recorded log, optionally in one log name and time range.",
	Arguments: []*mcp.PromptArgument{
		{Name: "log_name", Description: "Only this log name (completion offers the stored names); empty: every name."},
		{Name: "since", Description: `Only records at or after this time: RFC 3339 or relative like "-15m"; empty: all.`},
	},
}

func (t *toolset) triage(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name, since := req.Params.Arguments["log_name"], req.Params.Arguments["since"]
	scope := "every log name"
	if name != "" {
		scope = fmt.Sprintf("the log name %q", name)
	}
	filter := `level: "error"`
	if name != "" {
		filter += fmt.Sprintf(", name: %q", name)
	}
	if since != "" {
		filter += fmt.Sprintf(", since: %q", since)
		scope += " since " + since
	}
	text := fmt.Sprintf(`Triage the mcplogd log for %s.
1. Call list_log_names to see which names have errors.
2. Call get_logs with {%s, count: 50} and group the errors by message.
3. For the most frequent or most recent ones, call get_log_details with their id to read the stack trace and data, and get_result for failed operations.
4. Report each distinct problem: what happened, how often, first and last time, the likely cause, and the record IDs.`, scope, filter)
	return &mcp.GetPromptResult{
		Description: "Triage " + scope,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}
