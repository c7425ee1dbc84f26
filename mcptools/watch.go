package mcptools

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// consoleWatch sends notifications/resources/updated for mcplogd://console
// while any session subscribes to it: once after lines arrive, at most once
// per updateInterval. Subscriptions to other URIs are accepted (clients and
// the conformance suite subscribe to what they like) but never change.
type consoleWatch struct {
	log    Backend
	server *mcp.Server

	mu      sync.Mutex
	subs    map[*mcp.ServerSession]bool
	running bool
}

func (w *consoleWatch) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if req.Params.URI != consoleURI {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.subs[req.Session] {
		w.subs[req.Session] = true
		go func() {
			_ = req.Session.Wait() // a session that ends drops its subscription
			w.drop(req.Session)
		}()
	}
	if !w.running {
		w.running = true
		// The channel is taken before the subscription is answered: a
		// line appended right after the answer is then never missed, as
		// it would be if the goroutine asked for the channel later.
		go w.run(w.log.Changed())
	}
	return nil
}

func (w *consoleWatch) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if req.Params.URI == consoleURI {
		w.drop(req.Session)
	}
	return nil
}

func (w *consoleWatch) drop(ss *mcp.ServerSession) {
	w.mu.Lock()
	delete(w.subs, ss)
	w.mu.Unlock()
}

// active reports whether anyone still subscribes; when not, the watcher stops.
func (w *consoleWatch) active() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running = len(w.subs) > 0
	return w.running
}

func (w *consoleWatch) run(changed <-chan struct{}) {
	tick := time.NewTicker(updateInterval)
	defer tick.Stop()
	for w.active() {
		select {
		case <-changed:
		case <-tick.C:
			continue // look at the subscribers again
		}
		next := w.log.Changed()
		if next == changed {
			// Close closes the channel without replacing it: the log is gone.
			w.mu.Lock()
			w.running = false
			w.mu.Unlock()
			return
		}
		changed = next
		_ = w.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: consoleURI})
		<-tick.C // coalesce what arrives meanwhile into the next notification
	}
}
