package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

type (
	nameAnswer struct {
		Source    string                       `json:"source"`
		Name      string                       `json:"name"`
		Total     uint64                       `json:"total"`
		Counts    map[string]map[string]uint64 `json:"counts"` // by kind, then level
		FirstSeen time.Time                    `json:"firstSeen"`
		LastSeen  time.Time                    `json:"lastSeen"`
	}
	namesAnswer struct {
		Names []nameAnswer `json:"names"`
	}
	neighborsAnswer struct {
		Prev uint64 `json:"prev"`
		Next uint64 `json:"next"`
	}
	clearRequest struct {
		Confirm bool `json:"confirm"`
	}
)

// countsMap spells [Kind][Level] counters out by name.
func countsMap(c *oplog.Counts) map[string]map[string]uint64 {
	m := map[string]map[string]uint64{}
	for _, k := range []oplog.Kind{oplog.KindLine, oplog.KindOp} {
		m[k.String()] = map[string]uint64{}
		for _, l := range oplog.Levels {
			m[k.String()][l.String()] = c[k][l]
		}
	}
	return m
}

func countsArray(m map[string]map[string]uint64) (c oplog.Counts) {
	for _, k := range []oplog.Kind{oplog.KindLine, oplog.KindOp} {
		for _, l := range oplog.Levels {
			c[k][l] = m[k.String()][l.String()]
		}
	}
	return c
}

// names answers GET /api/v1/names?source=.
func (s *Server) names(c echo.Context) error {
	names, err := s.log.Names(c.Request().Context(), c.QueryParam("source"))
	if err != nil {
		return err
	}
	a := namesAnswer{Names: make([]nameAnswer, len(names))}
	for i, n := range names {
		a.Names[i] = nameAnswer{Source: n.Source, Name: n.Name, Total: n.Total, Counts: countsMap(&n.Counts), FirstSeen: n.FirstSeen, LastSeen: n.LastSeen}
	}
	return c.JSON(http.StatusOK, a)
}

// neighbors answers GET /api/v1/records/:id/neighbors.
func (s *Server) neighbors(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	prev, next, err := s.log.Neighbors(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, neighborsAnswer{Prev: prev, Next: next})
}

// clear answers POST /api/v1/clear {"confirm": true}.
func (s *Server) clear(c echo.Context) error {
	var req clearRequest
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

// getOperation answers GET /api/v1/operations/:id?waitMs=: the operation,
// once complete or when the wait (up to 30 s) ends.
func (s *Server) getOperation(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	p := params{c: c}
	wait := time.Duration(min(p.int("waitMs"), int(oplog.MaxWait/time.Millisecond))) * time.Millisecond
	if p.err != nil {
		return p.err
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), wait)
	defer cancel()
	stop := context.AfterFunc(s.stopping, cancel)
	defer stop()
	r, err := s.log.AwaitComplete(ctx, id)
	if err != nil && (ctx.Err() == nil || c.Request().Context().Err() != nil) {
		return err
	}
	if r.Kind != oplog.KindOp {
		return oplog.Errorf(oplog.EINVALID, "id: record %d is a %s, not an operation", id, r.Kind)
	}
	return c.JSON(http.StatusOK, r)
}

// Remote is a Backend over a running server's HTTP API.
type Remote struct {
	*Client

	mu      sync.Mutex
	stats   oplog.Stats
	changed chan struct{}
	watch   context.CancelFunc
}

// NewRemote returns a Backend that forwards to the server c talks to. Close
// stops the watcher that Changed starts.
func NewRemote(c *Client) *Remote { return &Remote{Client: c} }

var _ mcptools.Backend = (*Remote)(nil)

// Stats asks the server for its counters, giving the last known ones when it
// does not answer within 5 s.
func (r *Remote) Stats() oplog.Stats {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := r.Client.Stats(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.stats = s
	}
	return r.stats
}

// Changed returns a channel closed when the server has a record newer than
// the last one seen; a background long-poll watches for it.
func (r *Remote) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		r.watch = cancel
		go r.watchChanges(ctx)
	}
	return r.changed
}

func (r *Remote) watchChanges(ctx context.Context) {
	q := oplog.TailQuery{Limit: 1}
	for ctx.Err() == nil {
		t, err := r.Tail(ctx, q)
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		if q.HasSince && (t.LastID != q.SinceID || t.Reset) {
			r.mu.Lock()
			close(r.changed)
			r.changed = make(chan struct{})
			r.mu.Unlock()
		}
		q = oplog.TailQuery{SinceID: t.LastID, HasSince: true, Revision: t.Revision, Limit: 1, Wait: 25 * time.Second}
	}
}

// Close stops the watcher.
func (r *Remote) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watch != nil {
		r.watch()
	}
	return nil
}

// Names lists the server's log names.
func (c *Client) Names(ctx context.Context, source string) ([]oplog.NameInfo, error) {
	var a namesAnswer
	v := map[string][]string{}
	if source != "" {
		v["source"] = []string{source}
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/names", v, nil, &a); err != nil {
		return nil, err
	}
	out := make([]oplog.NameInfo, len(a.Names))
	for i, n := range a.Names {
		out[i] = oplog.NameInfo{Source: n.Source, Name: n.Name, Total: n.Total, Counts: countsArray(n.Counts), FirstSeen: n.FirstSeen, LastSeen: n.LastSeen}
	}
	return out, nil
}

// Neighbors returns the IDs before and after id.
func (c *Client) Neighbors(ctx context.Context, id uint64) (prev, next uint64, err error) {
	var a neighborsAnswer
	err = c.do(ctx, http.MethodGet, "/api/v1/records/"+strconv.FormatUint(id, 10)+"/neighbors", nil, nil, &a)
	return a.Prev, a.Next, err
}

// Clear deletes every record on the server and starts a new generation.
func (c *Client) Clear(ctx context.Context) (oplog.Stats, error) {
	var a infoAnswer
	if err := c.do(ctx, http.MethodPost, "/api/v1/clear", nil, clearRequest{Confirm: true}, &a); err != nil {
		return oplog.Stats{}, err
	}
	return a.stats(), nil
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
