package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// AppendAnswer is POST /api/v1/logs's answer: the IDs of the batch's
// records, in order.
type AppendAnswer struct {
	Count   int      `json:"count"`
	FirstID uint64   `json:"firstId"`
	LastID  uint64   `json:"lastId"`
	IDs     []uint64 `json:"ids"`
}

// wireLine is a line as DecodeLine reads it.
type wireLine struct {
	Kind   string          `json:"kind,omitempty"` // "marker", or a line
	Time   time.Time       `json:"time,omitzero"`
	Level  string          `json:"level"`
	Name   string          `json:"name,omitempty"`
	Source string          `json:"source,omitempty"`
	Text   string          `json:"text"`
	Stack  string          `json:"stack,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// Append sends recs, which must be lines, as one batch and sets recs[i].ID
// once the server has them on disk. Other fields are not updated; the
// server fills in the defaults (time, source) as oplog.Log.Append does.
func (c *Client) Append(ctx context.Context, recs []oplog.Record) error {
	return c.appendLines(ctx, recs, nil)
}

// AppendAt is Append that also stores pos with the batch, as
// oplog.Log.AppendAt does: a writer's read position in its input.
func (c *Client) AppendAt(ctx context.Context, recs []oplog.Record, pos oplog.Position) error {
	return c.appendLines(ctx, recs, url.Values{"positionKey": {pos.Key}, "position": {string(pos.Value)}})
}

// PositionAnswer is GET /api/v1/positions's answer: Value is nil when no
// position is stored under Key.
type PositionAnswer struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

// Position returns the read position stored under key, nil when there is
// none, as oplog.Log.Position does.
func (c *Client) Position(ctx context.Context, key string) ([]byte, error) {
	var a PositionAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/positions", url.Values{"key": {key}}, nil, &a); err != nil {
		return nil, err
	}
	if a.Value == nil {
		return nil, nil
	}
	return []byte(*a.Value), nil
}

func (c *Client) appendLines(ctx context.Context, recs []oplog.Record, query url.Values) error {
	lines := make([]wireLine, len(recs))
	for i, r := range recs {
		if r.Kind == oplog.KindOp || r.Tool != "" {
			be := &oplog.BatchError{Index: i, Err: oplog.Errorf(oplog.EINVALID, "kind: Append sends lines and markers; record %d is an operation", i)}
			return &oplog.Error{Code: oplog.EINVALID, Message: be.Error(), Err: be}
		}
		lines[i] = wireLine{Time: r.Time, Level: r.Level.String(), Name: r.Name, Source: r.Source, Text: r.Text, Stack: r.Stack, Data: r.Data}
		if r.Kind == oplog.KindMarker {
			lines[i].Kind = "marker"
		}
	}
	var a AppendAnswer
	if err := c.do(ctx, http.MethodPost, "/api/v1/logs", query, lines, &a); err != nil {
		return err
	}
	if len(a.IDs) != len(recs) {
		return oplog.Errorf(oplog.EINTERNAL, "server acknowledged %d records of %d", len(a.IDs), len(recs))
	}
	for i, id := range a.IDs {
		recs[i].ID = id
	}
	return nil
}
