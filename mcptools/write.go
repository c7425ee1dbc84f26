package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- append_log and clear_logs ----

type appendIn struct {
	Text   string          `json:"text,omitempty" jsonschema:"the message"`
	Level  string          `json:"level,omitempty" jsonschema:"debug, info, warn, error or fatal"`
	Name   string          `json:"name,omitempty" jsonschema:"the log name"`
	Source string          `json:"source,omitempty" jsonschema:"who writes it"`
	Data   json.RawMessage `json:"data,omitempty" jsonschema:"a JSON object to keep with the line"`
}

type appendOut struct {
	ID   uint64 `json:"id"`
	Time string `json:"time"`
}

func (o appendOut) text() string {
	return fmt.Sprintf("append_log: wrote #%d at %s", o.ID, o.Time)
}

func (t *toolset) appendLog(ctx context.Context, _ *mcp.CallToolRequest, in appendIn) (appendOut, error) {
	if in.Text == "" {
		return appendOut{}, argError("text", "missing: the line's message")
	}
	level, err := oplog.ParseLevel(in.Level)
	if err != nil {
		return appendOut{}, argError("level", "%s", oplog.ErrorMessage(err))
	}
	if level == 0 {
		level = oplog.LevelInfo
	}
	if bytes.Equal(bytes.TrimSpace(in.Data), []byte("null")) {
		in.Data = nil
	}
	recs := []oplog.Record{{Kind: oplog.KindLine, Level: level, Text: in.Text, Name: in.Name, Source: in.Source, Data: in.Data}}
	if err := t.log.Append(ctx, recs); err != nil {
		if be, ok := oplog.IsBatchError(err); ok {
			return appendOut{}, be.Err // one line is not a batch
		}
		return appendOut{}, err
	}
	return appendOut{ID: recs[0].ID, Time: formatTime(recs[0].Time)}, nil
}

type clearIn struct {
	Confirm bool `json:"confirm,omitempty" jsonschema:"must be true: deletes every record for good"`
}

type clearOut struct {
	Deleted  uint64 `json:"deleted" jsonschema:"records deleted"`
	Revision uint64 `json:"revision" jsonschema:"the new generation"`
	LastID   uint64 `json:"lastId" jsonschema:"IDs go on after this one"`
}

func (o clearOut) text() string {
	return fmt.Sprintf("clear_logs: deleted %d records; a new generation, revision=%d, IDs go on after #%d", o.Deleted, o.Revision, o.LastID)
}

func (t *toolset) clearLogs(ctx context.Context, _ *mcp.CallToolRequest, in clearIn) (clearOut, error) {
	if !in.Confirm {
		return clearOut{}, argError("confirm", "must be true to delete every record; nothing was deleted")
	}
	before := t.log.Stats().Records
	st, err := t.log.Clear(ctx)
	if err != nil {
		return clearOut{}, err
	}
	t.opts.Logger.Warn("the log was cleared by an MCP client", "records", before, "revision", st.Revision)
	return clearOut{Deleted: before, Revision: st.Revision, LastID: st.LastID}, nil
}
