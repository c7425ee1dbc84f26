package client

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// ReplayRequest is POST /api/v1/operations/:id/replay's body.
type ReplayRequest struct {
	Confirm bool `json:"confirm"`
}

// ReplayAnswer is POST /api/v1/operations/:id/replay's answer (see
// oplog.Replay).
type ReplayAnswer struct {
	Original oplog.Record `json:"original"`
	Replay   oplog.Record `json:"replay"`
	Same     bool         `json:"same"`
	Diff     string       `json:"diff,omitempty"`
}

// AwaitComplete waits until operation id completes or ctx ends, asking the
// server in long polls of up to 25 s. As with oplog.Log, when ctx's deadline
// passes first it returns the record as it stands with ctx's error.
func (c *Client) AwaitComplete(ctx context.Context, id uint64) (oplog.Record, error) {
	for {
		wait := 25 * time.Second
		if d, ok := ctx.Deadline(); ok {
			wait = max(min(wait, time.Until(d)), 0)
		}
		// The server does the waiting, so the request must outlive ctx's
		// deadline by the time the answer takes; it still ends at once when
		// ctx is cancelled.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait+10*time.Second)
		stop := context.AfterFunc(ctx, func() {
			if errors.Is(ctx.Err(), context.Canceled) {
				cancel()
			}
		})
		var r oplog.Record
		v := map[string][]string{"waitMs": {strconv.FormatInt(wait.Milliseconds(), 10)}}
		err := c.do(rctx, http.MethodGet, "/api/v1/operations/"+strconv.FormatUint(id, 10), v, nil, &r)
		stop()
		cancel()
		switch {
		case err != nil && errors.Is(ctx.Err(), context.Canceled):
			return r, ctx.Err()
		case err != nil:
			return r, err
		case r.IsComplete() || ctx.Err() != nil:
			return r, ctx.Err()
		}
	}
}

// Complete ends a pending operation on the server.
func (c *Client) Complete(ctx context.Context, id uint64, comp oplog.Completion) (oplog.Record, error) {
	var r oplog.Record
	body := map[string]any{"status": comp.Status.String()}
	if comp.Status == 0 {
		delete(body, "status")
	}
	if comp.Result != nil {
		body["result"] = comp.Result
	}
	if comp.Error != "" {
		body["error"] = comp.Error
	}
	if !comp.EndTime.IsZero() {
		body["endTime"] = comp.EndTime
	}
	err := c.do(ctx, http.MethodPost, "/api/v1/operations/"+strconv.FormatUint(id, 10)+"/complete", nil, body, &r)
	return r, err
}

// Replay asks the server to send operation id again to its upstream (see
// Gateway.Replay).
func (c *Client) Replay(ctx context.Context, id uint64, confirm bool) (oplog.Replay, error) {
	var a ReplayAnswer
	err := c.do(ctx, http.MethodPost, "/api/v1/operations/"+strconv.FormatUint(id, 10)+"/replay", nil, ReplayRequest{Confirm: confirm}, &a)
	return oplog.Replay{Original: a.Original, Replay: a.Replay, Same: a.Same, Diff: a.Diff}, err
}
