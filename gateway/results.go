package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// cut shortens s to at most n bytes, at a character boundary, marking the
// cut with "…" (within the n bytes).
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	return oplog.ClipBytes(s, n-len(mark)) + mark
}

// resultText joins a result's text contents.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "the upstream answered isError without text"
	}
	return strings.Join(parts, "\n")
}

// messageText renders a log message's data: a string as it is, anything
// else as JSON.
func messageText(data any) string {
	if s, ok := data.(string); ok {
		return s
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Sprint(data)
	}
	return string(b)
}

// noteCrash records a traceback that an upstream's error carries (the ECS
// seed answers world-touching tools with the stored traceback after a
// crash) as one fatal line, once per connection and traceback, so that
// find_crashes sees it.
func (u *upstream) noteCrash(ctx context.Context, text string) {
	i := strings.Index(text, "stack traceback:")
	if i < 0 {
		i = strings.Index(text, "\n\tat ") // Java
	}
	if i < 0 {
		return
	}
	u.mu.Lock()
	seen := u.crashes[text]
	if u.crashes != nil {
		u.crashes[text] = true
	}
	u.mu.Unlock()
	if seen {
		return
	}
	head := strings.TrimSpace(text[:i])
	if head == "" {
		head = u.cfg.Name + " crashed"
	}
	r := oplog.Record{Kind: oplog.KindLine, Source: u.cfg.Name, Name: "crash", Level: oplog.LevelFatal,
		Text: firstLine(head), Stack: strings.TrimSpace(text)}
	if err := u.g.log.Append(context.WithoutCancel(ctx), []oplog.Record{r}); err != nil {
		u.g.opts.Logger.Error("cannot record an upstream crash", "upstream", u.cfg.Name, "err", err)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
