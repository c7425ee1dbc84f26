package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools/remote"
)

// recorderLink is the HTTP transport of a stdio session's client of the
// background recorder. A recorder may be killed, or stopped, while
// sessions are open; each then restarts it rather than answering
// "unavailable" until another session starts one: a request that cannot
// reach the server (its connection refused: nothing listens) makes the
// link find the data directory's server again or start it (recorder, as at
// the session's start: a server another session started meanwhile is
// used, and of the sessions that find none only the elected one starts
// it), and sends the request there, once. A request that reached the
// server and lost its answer is not sent again: it may have been carried
// out.
type recorderLink struct {
	m      *Main
	dir    *datadir.Dir
	token  string
	fs     *flag.FlagSet // stdio's flags: those the recorder is started with
	logger *slog.Logger
	base   http.RoundTripper

	mu   sync.Mutex // held while the recorder is started again
	addr string     // the server's host:port, which requests go to
}

// linkRecorder makes r, the session's client of the recorder, send its
// requests through a recorderLink.
func (m *Main) linkRecorder(r *remote.Backend, dir *datadir.Dir, token string, fs *flag.FlagSet, logger *slog.Logger) {
	u, err := url.Parse(r.Client.MCPEndpoint())
	if err != nil {
		return // cannot be: the client's own URL; the session works without the link
	}
	// A new connection for each request: one kept from before the recorder
	// was killed fails a request with a reset rather than a refused dial
	// when the client has not yet noticed it closed (a busy machine), and
	// a reset cannot tell a request that never reached the server from one
	// it carried out. A connection to localhost costs tens of microseconds.
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DisableKeepAlives = true
	r.Client.HTTPClient = &http.Client{Transport: &recorderLink{m: m, dir: dir, token: token, fs: fs, logger: logger, base: base, addr: u.Host}}
}

// RoundTrip sends req to the recorder, starting it again when it is gone.
func (l *recorderLink) RoundTrip(req *http.Request) (*http.Response, error) {
	addr := l.current()
	resp, err := l.base.RoundTrip(to(req, addr))
	if err == nil || !unreachable(err) || req.Context().Err() != nil {
		return resp, err
	}
	next, rerr := l.restart(req.Context(), addr)
	if rerr != nil {
		return nil, fmt.Errorf("%w (starting the background recorder again: %v)", err, rerr)
	}
	again := to(req, next)
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return nil, err
		}
		if again.Body, rerr = req.GetBody(); rerr != nil {
			return nil, err
		}
	}
	return l.base.RoundTrip(again)
}

func (l *recorderLink) current() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.addr
}

// restart finds or starts the recorder once the one at failed is gone,
// and returns its address; requests that failed meanwhile find it
// started and use it.
func (l *recorderLink) restart(ctx context.Context, failed string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.addr != failed {
		return l.addr, nil // started again by another request
	}
	r, err := l.m.recorder(ctx, l.dir, l.token, l.fs)
	if err != nil {
		return "", err
	}
	r.Close()
	s, err := l.dir.Server()
	if err != nil || s.Addr == "" {
		return "", fmt.Errorf("the restarted recorder's address: %v", err)
	}
	l.logger.Warn("the background recorder was gone; started it again", "addr", s.Addr, "pid", s.PID)
	l.addr = s.Addr
	return l.addr, nil
}

// to returns a copy of req sent to addr; the body is req's.
func to(req *http.Request, addr string) *http.Request {
	r := req.Clone(req.Context())
	r.URL.Host, r.Host = addr, addr
	return r
}

// unreachable reports whether err is a refused or failed connection: the
// request never reached a server.
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
