package api

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// ---- POST /api/v1/operations/:id/replay ----

func (s *Server) replay(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	var req client.ReplayRequest
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
	return c.JSON(http.StatusOK, client.ReplayAnswer{Original: r.Original, Replay: r.Replay, Same: r.Same, Diff: r.Diff})
}
