package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// stream answers GET /api/v1/stream?sinceId=&revision=&limit=&level=&name=&source=&kind=
// with Server-Sent Events: an event "lines" (the JSON of GET /api/v1/tail's
// answer) whenever lines arrive, or reset or dropped happen, and a comment
// every streamHeartbeat when nothing does. Each event's id is
// "LASTID:REVISION"; a reconnecting EventSource sends it back as
// Last-Event-ID, which takes the place of sinceId and revision, so that it
// neither repeats nor misses lines. Without either, the stream starts with
// the newest limit lines (default 500). kind defaults to line. The first
// event comes at once, even when empty. The stream ends when the client
// goes away, the server shuts down or the token it was opened with is
// replaced (before its next event). Past Limits.Streams open streams, 503.
func (s *Server) stream(c echo.Context) error {
	if !s.streams.take() {
		return s.streams.busy(c)
	}
	defer s.streams.put()
	gen := s.generationOf(c)
	p := params{c: c}
	q := p.tailQuery(s)
	if p.err != nil {
		return p.err
	}
	if q.Limit == 0 {
		q.Limit = streamBacklog
	}
	if id := c.Request().Header.Get("Last-Event-ID"); id != "" {
		since, rev, err := parseEventID(id)
		if err != nil {
			return err
		}
		q.SinceID, q.HasSince, q.Revision = since, true, rev
	}
	reqCtx := c.Request().Context()
	sctx, cancel := s.untilShutdown(reqCtx)
	defer cancel()
	ctx, cancelRevoked := s.untilRevoked(sctx, c)
	defer cancelRevoked()

	// The first answer comes before the headers, so that a bad filter is a
	// plain JSON error.
	t, err := s.log.Tail(ctx, q)
	if err != nil {
		return err
	}
	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // lives past the server's write timeout
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprintf(w, "retry: %d\n\n", streamRetry.Milliseconds()); err != nil {
		return nil
	}
	q.Limit = oplog.MaxTailLimit
	q.Wait = streamHeartbeat
	for {
		if gen.revoked() {
			return nil // not one more line for a replaced token
		}
		if err := writeLinesEvent(w, &t); err != nil {
			return nil // the client went away
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
		q.SinceID, q.HasSince, q.Revision = t.LastID, true, t.Revision
		var ok bool
		if t, ok = s.nextEvent(ctx, w, rc, q, gen); !ok {
			return nil
		}
	}
}

// nextEvent waits for the stream's next event after q, writing a heartbeat
// comment every streamHeartbeat meanwhile. It reports false when the
// stream must end: the client went away, the server shuts down, the log
// failed, or gen's token was replaced.
func (s *Server) nextEvent(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, q oplog.TailQuery, gen *generation) (oplog.Tail, bool) {
	for {
		start := time.Now()
		t, err := s.log.Tail(ctx, q)
		if err != nil {
			if ctx.Err() == nil {
				s.logger.Warn("stream: tail failed", "err", err)
			}
			return t, false // headers are out: end the stream; the browser retries
		}
		if len(t.Lines) > 0 || t.Reset || t.Dropped > 0 || len(t.Damaged) > 0 {
			return t, true
		}
		q.SinceID, q.Revision = t.LastID, t.Revision // past lines the filter skipped
		if gen.revoked() {
			return t, false
		}
		if _, err := fmt.Fprint(w, ": heartbeat\n\n"); err != nil {
			return t, false
		}
		if err := rc.Flush(); err != nil {
			return t, false
		}
		if time.Since(start) < time.Second { // a closing log answers at once
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return t, false
			}
		}
	}
}

// writeLinesEvent writes t as one "lines" event whose id resumes after it.
func writeLinesEvent(w http.ResponseWriter, t *oplog.Tail) error {
	b, err := json.Marshal(tailAnswer(t))
	if err != nil {
		return err
	}
	// json.Marshal escapes no newline into the output: one data line.
	_, err = fmt.Fprintf(w, "id: %d:%d\nevent: lines\ndata: %s\n\n", t.LastID, t.Revision, b)
	return err
}

// parseEventID reads "LASTID:REVISION" (or a bare LASTID) from Last-Event-ID.
func parseEventID(s string) (since, revision uint64, err error) {
	a, b, hasRev := strings.Cut(strings.TrimSpace(s), ":")
	since, err = strconv.ParseUint(a, 10, 64)
	if err == nil && hasRev {
		revision, err = strconv.ParseUint(b, 10, 64)
	}
	if err != nil {
		return 0, 0, oplog.Errorf(oplog.EINVALID, "Last-Event-ID: want LASTID:REVISION as the stream sent it, got %q", s)
	}
	return since, revision, nil
}
