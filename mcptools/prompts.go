package mcptools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// maxPromptArg bounds each argument the triage prompt repeats, in bytes.
const maxPromptArg = 200

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
	// Arguments are the client's: bounded, so that the prompt stays ~1 KB.
	name := oplog.ClipBytes(req.Params.Arguments["log_name"], maxPromptArg)
	since := oplog.ClipBytes(req.Params.Arguments["since"], maxPromptArg)
	scope, crashes, search := "every log name", "", `"level:error"`
	if name != "" {
		scope = fmt.Sprintf("the log name %q", name)
		search += fmt.Sprintf(", name: %q", name)
	}
	if since != "" {
		scope += " since " + since
		crashes = fmt.Sprintf(", since: %q", since)
		search += fmt.Sprintf(", since: %q", since)
	}
	text := fmt.Sprintf(`Triage the mcplogd log for %s.
1. find_crashes {limit: 1%s}: the crash that ended the latest crashed run (message, the game's own frame with file:line, the lines before it, the runs since); then find_crashes {limit: 5%s}: crashes that ended runs first (class crash, runsEnded), then errors (class error), each with its count and lastId; class compile lists compiler errors.
2. For the newest and the most frequent: get_log_details {log_id: lastId, around: 5} shows the whole stack and the records just before it.
3. search_logs {query: %s} for errors without a stack; console_tail for what happens now.
4. Report each distinct problem: what happened, how often, first and last time, the likely cause (file:line) and the record IDs.`, scope, crashes, crashes, search)
	return &mcp.GetPromptResult{
		Description: "Triage " + scope,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}
