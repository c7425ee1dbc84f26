package oplog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// DefaultMaxPendingAge is how long an operation may stay pending before
// ExpirePending settles it as timeout, when ExpireOptions.MaxAge is zero.
const DefaultMaxPendingAge = 24 * time.Hour

// ExpireOptions configures Log.ExpirePending. A nil *ExpireOptions means
// defaults; a zero field means its documented default.
type ExpireOptions struct {
	// MaxAge is how long after its start time an operation may stay
	// pending. Default DefaultMaxPendingAge (24 h).
	MaxAge time.Duration

	// Interval is how often the pending operations are looked at. Default
	// MaxAge/4, between 10 ms and one minute.
	Interval time.Duration

	// Skip reports the sources whose operations something else settles
	// (the gateway's upstreams: their calls are its own, settled at its
	// start); nil skips none.
	Skip func(source string) bool

	// Logger is told how many operations each pass settled; nil discards.
	Logger *slog.Logger
}

func (o ExpireOptions) withDefaults() ExpireOptions {
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxPendingAge
	}
	if o.Interval <= 0 {
		o.Interval = min(max(o.MaxAge/4, 10*time.Millisecond), time.Minute)
	}
	if o.Skip == nil {
		o.Skip = func(string) bool { return false }
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// pendingOps are the pending operations by ID with their start time, kept
// by append, Complete and Clear once ExpirePending started tracking.
type pendingOps struct {
	mu       sync.Mutex
	tracking bool
	start    map[uint64]time.Time
	skip     func(string) bool
}

// added notes the pending operations among recs, just stored.
func (p *pendingOps) added(recs []Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tracking {
		return
	}
	for i := range recs {
		if r := &recs[i]; r.Kind == KindOp && r.Status == StatusPending && !p.skip(r.Source) {
			p.start[r.ID] = r.StartTime
		}
	}
}

func (p *pendingOps) remove(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.start, id)
}

func (p *pendingOps) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.start)
}

// older returns the operations that started before t.
func (p *pendingOps) older(t time.Time) []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []uint64
	for id, st := range p.start {
		if st.Before(t) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Tracked returns how many pending operations ExpirePending is watching.
func (l *Log) Tracked() int {
	l.pend.mu.Lock()
	defer l.pend.mu.Unlock()
	return len(l.pend.start)
}

// ExpirePending settles as timeout every operation that has been pending
// for longer than opts.MaxAge since its start time (an operation started
// through the API whose client never completed it), leaving out the
// sources opts.Skip names. In the background, it first reads the
// operations of the whole store once (which settles at start those that
// aged while no server ran), then follows appends and completions in memory
// and looks again every opts.Interval, until ctx ends or l closes. A later
// Complete of a settled operation gets ECONFLICT. It fails only when
// called twice.
func (l *Log) ExpirePending(ctx context.Context, opts *ExpireOptions) error {
	var o ExpireOptions
	if opts != nil {
		o = *opts
	}
	o = o.withDefaults()
	l.pend.mu.Lock()
	if l.pend.tracking {
		l.pend.mu.Unlock()
		return fmt.Errorf("oplog: ExpirePending already runs")
	}
	l.pend.tracking, l.pend.start, l.pend.skip = true, map[uint64]time.Time{}, o.Skip
	l.pend.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		cancel()
		return ErrClosed
	}
	l.stopExpire = cancel
	l.mu.Unlock()
	l.expiring.Go(func() {
		defer cancel()
		if err := l.loadPending(ctx); err != nil {
			if ctx.Err() == nil {
				o.Logger.Error("reading the pending operations failed; none will be settled as timeout", "err", err)
			}
			return
		}
		tick := time.NewTicker(o.Interval)
		defer tick.Stop()
		for {
			if n := l.expireOnce(ctx, &o); n > 0 {
				o.Logger.Warn("operations pending for too long settled as timeout", "count", n, "maxAge", o.MaxAge)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	return nil
}

// loadPending reads every pending operation of the store into l.pend.
func (l *Log) loadPending(ctx context.Context) error {
	q := TailQuery{Filter: Filter{Kind: KindOp}, HasSince: true, Limit: MaxTailLimit}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := l.store.Tail(q)
		if err != nil {
			return err
		}
		for i := range t.Lines {
			if r := &t.Lines[i]; r.Status != StatusPending {
				t.Lines[i] = Record{} // not added: a zero record is no pending op
			}
		}
		l.pend.added(t.Lines)
		if !t.More || t.LastID <= q.SinceID {
			return nil
		}
		q.SinceID, q.Revision = t.LastID, t.Revision
	}
}

// expireOnce settles the operations past the age limit and returns how many.
func (l *Log) expireOnce(ctx context.Context, o *ExpireOptions) int {
	now := l.now().UTC()
	n := 0
	for _, id := range l.pend.older(now.Add(-o.MaxAge)) {
		c := Completion{Status: StatusTimeout, EndTime: now,
			Error: fmt.Sprintf("no outcome within %s of its start: mcplogd settled it as timeout (serve --pending-max-age)", o.MaxAge)}
		_, err := l.Complete(ctx, id, c)
		switch ErrorCode(err) {
		case "":
			n++
		case ECONFLICT, ENOTFOUND, EINVALID: // completed meanwhile, trimmed, cleared
			l.pend.remove(id)
		default:
			if ctx.Err() == nil && !errors.Is(err, ErrClosed) {
				o.Logger.Error("settling a pending operation as timeout failed", "id", id, "err", err)
			}
			return n
		}
	}
	return n
}
