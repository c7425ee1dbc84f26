package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- POST /api/v1/operations/:id/replay ----

type replayRequest struct {
	Confirm bool `json:"confirm"`
}

type replayAnswer struct {
	Original oplog.Record `json:"original"`
	Replay   oplog.Record `json:"replay"`
	Same     bool         `json:"same"`
	Diff     string       `json:"diff,omitempty"`
}

func (s *Server) replay(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	var req replayRequest
	if b, err := readBody(c); err != nil {
		return err
	} else if len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &req); err != nil {
			return oplog.Errorf(oplog.EINVALID, "body: want {\"confirm\": true|false}: %v", err)
		}
	}
	if s.opts.Gateway == nil {
		return oplog.Errorf(oplog.EUNAVAILABLE, "replay: this server has no upstreams (start it with --upstream NAME=URL)")
	}
	r, err := s.opts.Gateway.Replay(c.Request().Context(), id, req.Confirm)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, replayAnswer{Original: r.Original, Replay: r.Replay, Same: r.Same, Diff: r.Diff})
}

// Replay asks the server to send operation id again to its upstream (see
// Gateway.Replay).
func (c *Client) Replay(ctx context.Context, id uint64, confirm bool) (oplog.Replay, error) {
	var a replayAnswer
	err := c.do(ctx, http.MethodPost, "/api/v1/operations/"+strconv.FormatUint(id, 10)+"/replay", nil, replayRequest{Confirm: confirm}, &a)
	return oplog.Replay{Original: a.Original, Replay: a.Replay, Same: a.Same, Diff: a.Diff}, err
}
