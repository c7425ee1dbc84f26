package remote

import (
	"context"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// Backend is an mcptools.Backend over a running server's HTTP API: the
// client's calls, plus the Stats and Changed the tools need.
type Backend struct {
	*client.Client

	mu      sync.Mutex
	stats   oplog.Stats
	changed chan struct{}
	watch   context.CancelFunc
}

// NewBackend returns a Backend that forwards to the server c talks to.
// Close stops the watcher that Changed starts.
func NewBackend(c *client.Client) *Backend { return &Backend{Client: c} }

// Append sends recs to the server as client.Append does, and gives each
// record without a time the time it is stored with: the server would
// stamp its own, which its answer (IDs only) does not carry back, so
// append_log would answer an empty time. The time is taken here, in UTC,
// and sent with the record, so the answer and the stored record agree.
func (r *Backend) Append(ctx context.Context, recs []oplog.Record) error {
	now := time.Now().UTC()
	for i := range recs {
		if recs[i].Time.IsZero() {
			recs[i].Time = now
		}
	}
	return r.Client.Append(ctx, recs)
}

// Stats asks the server for its counters, giving the last known ones when it
// does not answer within 5 s.
func (r *Backend) Stats() oplog.Stats {
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
func (r *Backend) Changed() <-chan struct{} {
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

func (r *Backend) watchChanges(ctx context.Context) {
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
func (r *Backend) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watch != nil {
		r.watch()
	}
	return nil
}

var _ mcptools.Backend = (*Backend)(nil)
