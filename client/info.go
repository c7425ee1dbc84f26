package client

import (
	"context"
	"net/http"

	"github.com/mcplogd/mcplogd/oplog"
)

// HealthAnswer is GET /healthz's answer.
type HealthAnswer struct {
	Status  string `json:"status"`
	Version string `json:"version"`
}

// InfoAnswer is GET /api/v1/info's answer (and POST /api/v1/clear's): the
// store's counters and each game's health.
type InfoAnswer struct {
	Revision       uint64                       `json:"revision"`
	GenStart       uint64                       `json:"genStart"`
	FirstID        uint64                       `json:"firstId"`
	LastID         uint64                       `json:"lastId"`
	Records        uint64                       `json:"records"`
	Bytes          uint64                       `json:"bytes"`
	Lines          uint64                       `json:"lines"`
	Ops            uint64                       `json:"ops"`
	Levels         map[string]uint64            `json:"levels"`
	Counts         map[string]map[string]uint64 `json:"counts"` // by kind, then level
	Trimmed        uint64                       `json:"trimmed"`
	TrimmedThrough uint64                       `json:"trimmedThrough"`
	FileBytes      int64                        `json:"fileBytes,omitempty"`
	FileFreeBytes  int64                        `json:"fileFreeBytes,omitempty"` // of FileBytes, free pages the next records reuse
	Version        string                       `json:"version"`
	// Games is each game's health, as store_info's games: the upstreams
	// first, then the sources written to most recently. Nil when the
	// store has no runs and no upstream.
	Games []oplog.GameHealth `json:"games,omitempty"`
}

// NewInfoAnswer returns st as the API answers it; FileBytes,
// FileFreeBytes and Games are left to the caller.
func NewInfoAnswer(st *oplog.Stats, version string) InfoAnswer {
	return InfoAnswer{
		Revision: st.Revision, GenStart: st.GenStart, FirstID: st.FirstID, LastID: st.LastID,
		Records: st.Records, Bytes: st.Bytes, Lines: st.Count(oplog.KindLine, 0), Ops: st.Count(oplog.KindOp, 0),
		Levels: st.Counts.ByLevel(), Counts: st.Counts.Map(),
		Trimmed: st.Trimmed, TrimmedThrough: st.TrimmedThrough, Version: version,
	}
}

// Stats returns the counters as oplog.Stats.
func (a *InfoAnswer) Stats() oplog.Stats {
	return oplog.Stats{Revision: a.Revision, GenStart: a.GenStart, FirstID: a.FirstID, LastID: a.LastID,
		Records: a.Records, Bytes: a.Bytes, Trimmed: a.Trimmed, TrimmedThrough: a.TrimmedThrough, Counts: oplog.CountsFromMap(a.Counts)}
}

// TokenAnswer is POST /api/v1/token/rotate's answer: the new token.
type TokenAnswer struct {
	Token string `json:"token"`
}

// ClearRequest is POST /api/v1/clear's body; Confirm must be true.
type ClearRequest struct {
	Confirm bool `json:"confirm"`
}

// Health returns nil when the server answers /healthz.
func (c *Client) Health(ctx context.Context) error {
	var a HealthAnswer
	if err := c.do(ctx, http.MethodGet, "/healthz", nil, nil, &a); err != nil {
		return err
	}
	if a.Status != "ok" {
		return oplog.Errorf(oplog.EUNAVAILABLE, "server at %s reports status %q", c.base, a.Status)
	}
	return nil
}

// Stats returns the server's store counters.
func (c *Client) Stats(ctx context.Context) (oplog.Stats, error) {
	var a InfoAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/info", nil, nil, &a); err != nil {
		return oplog.Stats{}, err
	}
	return a.Stats(), nil
}

// Info returns the server's answer to GET /api/v1/info: its counters and
// each game's health.
func (c *Client) Info(ctx context.Context) (InfoAnswer, error) {
	var a InfoAnswer
	err := c.do(ctx, http.MethodGet, "/api/v1/info", nil, nil, &a)
	return a, err
}

// RotateToken asks the server for a new token and returns it; the Client
// sends it from then on, and the old one stops working at once.
func (c *Client) RotateToken(ctx context.Context) (string, error) {
	var a TokenAnswer
	if err := c.do(ctx, http.MethodPost, "/api/v1/token/rotate", nil, nil, &a); err != nil {
		return "", err
	}
	c.mu.Lock()
	c.token = a.Token
	c.mu.Unlock()
	return a.Token, nil
}

// Clear deletes every record on the server and starts a new generation.
func (c *Client) Clear(ctx context.Context) (oplog.Stats, error) {
	var a InfoAnswer
	if err := c.do(ctx, http.MethodPost, "/api/v1/clear", nil, ClearRequest{Confirm: true}, &a); err != nil {
		return oplog.Stats{}, err
	}
	return a.Stats(), nil
}
