package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
)

// names answers GET /api/v1/names?source=.
func (s *Server) names(c echo.Context) error {
	names, err := s.log.Names(c.Request().Context(), c.QueryParam("source"))
	if err != nil {
		return err
	}
	a := client.NamesAnswer{Names: make([]client.NameAnswer, len(names))}
	for i, n := range names {
		a.Names[i] = client.NameAnswer{Source: n.Source, Name: n.Name, Total: n.Total, Counts: n.Counts.Map(), FirstSeen: n.FirstSeen, LastSeen: n.LastSeen}
	}
	return c.JSON(http.StatusOK, a)
}
