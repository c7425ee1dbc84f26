package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// MaxLines is the most lines one POST /api/v1/logs may hold under a body
// limit of maxBody bytes: their records are held to oplog.MaxExpansion
// times the body limit, each counted oplog.RecordCost bytes (16,384 lines
// for 1 MiB), so that a body of many tiny lines takes memory in proportion
// to its size.
func MaxLines(maxBody int64) int {
	return int(max(maxBody*oplog.MaxExpansion/oplog.RecordCost, 1))
}

// appendLines answers only after the batch is durable.
func (s *Server) appendLines(c echo.Context) error {
	max := MaxLines(s.opts.MaxBodyBytes)
	recs, err := decodeLines(c.Request().Body, max)
	if errors.Is(err, errTooManyLines) {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"too many lines: a request holds at most %d (the body limit of %d bytes × %d / %d bytes counted for each line); send them in smaller batches",
			max, s.opts.MaxBodyBytes, oplog.MaxExpansion, oplog.RecordCost))
	}
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return oplog.Errorf(oplog.EINVALID, "no lines: send a JSON array of line objects, NDJSON or one object")
	}
	if key := c.QueryParam("positionKey"); key != "" {
		// A writer's read position, stored with the batch (mcplogd import).
		pos := oplog.Position{Key: key, Value: []byte(c.QueryParam("position"))}
		if err := s.log.AppendAt(c.Request().Context(), recs, pos); err != nil {
			return err
		}
	} else if err := s.log.Append(c.Request().Context(), recs); err != nil {
		return err
	}
	a := client.AppendAnswer{Count: len(recs), FirstID: recs[0].ID, LastID: recs[len(recs)-1].ID, IDs: make([]uint64, len(recs))}
	for i := range recs {
		a.IDs[i] = recs[i].ID
	}
	return c.JSON(http.StatusOK, a)
}

// position answers GET /api/v1/positions?key=K: the read position a
// writer stored with its records (POST /api/v1/logs?positionKey=K), or
// null.
func (s *Server) position(c echo.Context) error {
	key := c.QueryParam("key")
	if key == "" {
		return oplog.Errorf(oplog.EINVALID, "key: missing; give the position's key")
	}
	v, err := s.log.Position(c.Request().Context(), key)
	if err != nil {
		return err
	}
	a := client.PositionAnswer{Key: key}
	if v != nil {
		str := string(v)
		a.Value = &str
	}
	return c.JSON(http.StatusOK, a)
}
