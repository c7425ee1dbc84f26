package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, client.HealthAnswer{Status: "ok", Version: s.opts.Version})
}

func (s *Server) info(c echo.Context) error {
	st := s.log.Stats()
	a := client.NewInfoAnswer(&st, s.opts.Version)
	if s.opts.FileSize != nil {
		a.FileBytes = s.opts.FileSize()
	}
	if s.opts.FileFree != nil {
		a.FileFreeBytes = s.opts.FileFree()
	}
	a.Games = s.games(c.Request().Context())
	return c.JSON(http.StatusOK, infoDamaged{a, oplog.DamageText(s.log.Damage())})
}

// games is each game's health as store_info says it (mcptools.Games). A
// failed read of the runs leaves it out rather than fail the answer, which
// the CLI asks to learn that the server is up.
func (s *Server) games(ctx context.Context) []oplog.GameHealth {
	var ups []oplog.UpstreamStatus
	if s.opts.Gateway != nil {
		ups = s.opts.Gateway.Status()
	}
	runs, err := s.log.Runs(ctx, "")
	if err != nil && oplog.ErrorCode(err) != oplog.EUNAVAILABLE {
		s.logger.Warn("info: reading the runs", "err", err)
		return nil
	}
	return mcptools.Games(ctx, s.log, runs, ups)
}

func (s *Server) rotateToken(c echo.Context) error {
	token, err := s.opts.RotateToken()
	if err == nil {
		err = checkToken(token)
	}
	if err != nil {
		return fmt.Errorf("rotate token: %w", err) // EINTERNAL: the old token stays valid
	}
	s.SetToken(token)
	s.logger.Info("token rotated")
	return c.JSON(http.StatusOK, client.TokenAnswer{Token: token})
}

// clear answers POST /api/v1/clear {"confirm": true}.
func (s *Server) clear(c echo.Context) error {
	var req client.ClearRequest
	if b, err := readBody(c); err != nil {
		return err
	} else if len(b) > 0 {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return oplog.Errorf(oplog.EINVALID, `body: want {"confirm": true}: %v`, err)
		}
	}
	if !req.Confirm {
		return oplog.Errorf(oplog.EINVALID, `confirm: clearing deletes every record; send {"confirm": true}`)
	}
	if _, err := s.log.Clear(c.Request().Context()); err != nil {
		return err
	}
	return s.info(c)
}
