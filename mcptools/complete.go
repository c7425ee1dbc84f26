package mcptools

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// complete offers the stored log names for arguments called log_name or
// name (of the triage prompt, the names template, or anything else), the
// stored sources for source, and the levels for level.
func (t *toolset) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	prefix := strings.ToLower(req.Params.Argument.Value)
	var candidates []string
	switch req.Params.Argument.Name {
	case "log_name", "name", "source":
		names, err := t.log.Names(ctx, "")
		if err != nil {
			return nil, toolError(err)
		}
		for _, n := range names {
			if req.Params.Argument.Name == "source" {
				candidates = append(candidates, n.Source)
			} else {
				candidates = append(candidates, n.Name)
			}
		}
		slices.Sort(candidates)
		candidates = slices.Compact(candidates)
	case "level":
		for _, l := range oplog.Levels {
			candidates = append(candidates, l.String())
		}
	}
	values := []string{}
	for _, c := range candidates {
		if c != "" && strings.HasPrefix(strings.ToLower(c), prefix) {
			values = append(values, c)
		}
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}
	if len(values) > maxCompletions {
		res.Completion.Values, res.Completion.HasMore = values[:maxCompletions], true
	}
	return res, nil
}
