package studio

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// step does one thing that is due: follow a new generation or trimmed
// records, reconcile, or send one batch. busy says there may be more to
// do at once.
func (f *Forwarder) step(ctx context.Context) (busy bool, err error) {
	now := time.Now()
	defer func() {
		if ctx.Err() == nil {
			f.publish(time.Now())
		}
	}()
	st := f.src.Stats()
	f.follow(&st)
	if f.retention == 0 {
		rctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		r, err := f.vl.retention(rctx)
		cancel()
		if err != nil {
			return false, f.errorf("%w", err)
		}
		f.retention = cmp(r, defaultRetention)
	}
	if f.retry != nil {
		return true, f.send(ctx, f.retry, &f.st.Journal[len(f.st.Journal)-1])
	}
	if f.reconcileDue(now) {
		if err := f.reconcile(ctx, now); err != nil {
			if ctx.Err() != nil {
				return false, err
			}
			// Inserts may still work (a cluster with a storage node down
			// takes them): go on sending, look again later.
			f.noteError(err)
			f.st.Journal[0].Checked = now
		}
	}
	b, body, err := f.next(ctx, &st, now)
	if err != nil || body == nil {
		return false, err
	}
	f.st.Journal = append(f.st.Journal, b)
	if err := f.st.save(f.opts.StatePath); err != nil {
		return false, f.errorf("save state: %w", err)
	}
	return true, f.send(ctx, body, &f.st.Journal[len(f.st.Journal)-1])
}

// cmp returns d, or def when d is zero.
func cmp(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// follow starts over on a new store generation and counts the records
// retention removed before they were sent.
func (f *Forwarder) follow(st *oplog.Stats) {
	s := &f.st
	if st.Revision != s.Revision {
		if s.Revision != 0 {
			f.opts.Logger.Info("studio: the local log was cleared; forwarding its new generation", "revision", st.Revision)
		}
		s.Revision, s.Pending, f.retry = st.Revision, nil, nil
		s.Journal = slices.DeleteFunc(s.Journal, func(b batch) bool { return b.Revision != st.Revision })
		s.Through = st.GenStart - 1
		if st.FirstID > 0 {
			s.Through = max(s.Through, st.FirstID-1)
		} else {
			s.Through = st.LastID
		}
		return
	}
	first := st.FirstID
	if st.Records == 0 {
		first = st.LastID + 1
	}
	if first > s.Through+1 {
		n := first - 1 - s.Through
		s.Lost += n
		s.Through = first - 1
		f.opts.Logger.Error("studio: retention removed records before they reached VictoriaLogs (the disk limit --max-bytes forced it); they are lost to the studio",
			"records", n, "through", first-1, "lostTotal", s.Lost)
	}
}

// next builds the next batch: completions of operations sent pending,
// then the records after Through, up to the batch bounds. A nil body: nothing to send.
func (f *Forwarder) next(ctx context.Context, st *oplog.Stats, now time.Time) (batch, []byte, error) {
	s := &f.st
	b := batch{Revision: s.Revision, Seq: s.Seq + 1}
	body := f.buf[:0]
	for i, id := range s.Pending {
		if i >= maxPendingChecksPerStep || len(b.Comps) >= f.opts.BatchRows/2 {
			break
		}
		r, err := f.src.Get(ctx, id)
		if oplog.ErrorCode(err) == oplog.ENOTFOUND {
			s.Pending = slices.DeleteFunc(s.Pending, func(x uint64) bool { return x == id })
			continue
		} else if err != nil {
			return b, nil, err
		}
		if r.IsComplete() {
			body = f.schema.appendRow(body, &r, b.Seq+uint64(len(b.Comps)), s.Revision)
			b.Comps = append(b.Comps, id)
		}
	}
	old, future := now.Add(-f.retention+retentionMargin), now.Add(defaultFutureRetention-retentionMargin)
	for st.LastID > s.Through && int(b.rows()) < f.opts.BatchRows && len(body) < f.opts.BatchBytes {
		since := s.Through
		if b.Lo != 0 {
			since = b.Hi
		}
		limit := min(oplog.MaxTailLimit, f.opts.BatchRows-int(b.rows()))
		t, err := f.src.Tail(ctx, oplog.TailQuery{SinceID: since, HasSince: true, Revision: s.Revision, Limit: limit})
		if err != nil {
			return b, nil, err
		}
		if t.Reset || len(t.Lines) == 0 {
			break // a new generation: the next step follows it
		}
		stop := false
		for i := range t.Lines {
			r := &t.Lines[i]
			if r.Time.Before(old) || r.Time.After(future) {
				if b.Lo != 0 {
					stop = true // a batch is one run of IDs: this one ends here
					break
				}
				s.TooOld++
				s.Through = r.ID
				if s.TooOld&(s.TooOld-1) == 0 { // 1, 2, 4, 8, ...
					f.opts.Logger.Warn("studio: a record's time is outside VictoriaLogs' retention; not sent (it would drop it)",
						"id", r.ID, "time", r.Time, "retention", f.retention, "notSentTotal", s.TooOld)
				}
				continue
			}
			if b.Lo == 0 {
				b.Lo = r.ID
			}
			b.Hi = r.ID
			body = f.schema.appendRow(body, r, b.last(), s.Revision)
			if r.Kind == oplog.KindOp && !r.IsComplete() {
				b.NewPending = append(b.NewPending, r.ID)
			}
			if len(body) >= f.opts.BatchBytes {
				stop = true
				break
			}
		}
		if stop {
			break
		}
	}
	f.buf = body
	if b.rows() == 0 {
		return b, nil, nil
	}
	return b, body, nil
}

// send posts body, the rows of b (the journal's last batch), and counts b
// as sent when VictoriaLogs acknowledged it, or when the answer was lost
// (reconciliation then finds what did not arrive). When nothing could
// reach VictoriaLogs the body is kept to send again as it is.
func (f *Forwarder) send(ctx context.Context, body []byte, b *batch) error {
	rctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	err := f.vl.insert(rctx, body)
	cancel()
	if ctx.Err() != nil {
		return ctx.Err() // stopping: the next start adopts b
	}
	if errors.Is(err, errNotSent) {
		f.retry = append(f.retry[:0], body...)
		return f.errorf("%w", err)
	}
	f.retry = nil
	f.st.adopt(b, time.Now())
	if serr := f.st.save(f.opts.StatePath); serr != nil {
		return f.errorf("save state: %w", serr)
	}
	if err != nil {
		return f.errorf("%w", err)
	}
	return nil
}

// lagSamples remember when the log's newest ID was seen, so that the age of
// the oldest record not acknowledged can be told.
type lagSamples struct {
	ids   []uint64
	times []time.Time
	since time.Time // when the oldest record not acknowledged was first seen; zero: none
}

const maxLagSamples = 1024

func (l *lagSamples) observe(last, through uint64, now time.Time) {
	if n := len(l.ids); last > through && (n == 0 || l.ids[n-1] < last) {
		if n == maxLagSamples { // keep every other one
			for i := 0; i < n/2; i++ {
				l.ids[i], l.times[i] = l.ids[2*i+1], l.times[2*i+1]
			}
			l.ids, l.times = l.ids[:n/2], l.times[:n/2]
		}
		l.ids, l.times = append(l.ids, last), append(l.times, now)
	}
	i := 0
	for i < len(l.ids) && l.ids[i] <= through {
		i++
	}
	l.ids, l.times = l.ids[i:], l.times[i:]
	l.since = time.Time{}
	if len(l.times) > 0 {
		l.since = l.times[0]
	}
}
