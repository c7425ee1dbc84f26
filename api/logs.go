package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// appendLines answers only after the batch is durable.
func (s *Server) appendLines(c echo.Context) error {
	recs, err := DecodeLines(c.Request().Body)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return oplog.Errorf(oplog.EINVALID, "no lines: send a JSON array of line objects, NDJSON or one object")
	}
	if err := s.log.Append(c.Request().Context(), recs); err != nil {
		return err
	}
	a := client.AppendAnswer{Count: len(recs), FirstID: recs[0].ID, LastID: recs[len(recs)-1].ID, IDs: make([]uint64, len(recs))}
	for i := range recs {
		a.IDs[i] = recs[i].ID
	}
	return c.JSON(http.StatusOK, a)
}
