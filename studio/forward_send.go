package studio

import (
	"context"
	"errors"
	"slices"
	"sort"
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
	if f.answering.IsZero() {
		// After a failure (or at start): VictoriaLogs must answer before
		// anything else, and the settle window starts then, not when the
		// rows went: a VictoriaLogs that stalled with a batch in flight
		// takes it when it wakes, and makes it searchable later. Then is
		// when the answer came, not when the ping went: a ping sent to a
		// frozen VictoriaLogs waits through the freeze, and a window dated
		// from its sending would be over the moment VictoriaLogs wakes,
		// before it read the batch it was sent frozen.
		rctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		err := f.vl.ping(rctx)
		cancel()
		if err != nil {
			return false, f.errorf("%w", err)
		}
		f.answering = time.Now()
	}
	if !f.resumed {
		if err := f.resume(ctx); err != nil {
			return false, err
		}
		f.resumed = true
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
			if len(f.st.Journal) > 0 {
				f.st.Journal[0].Checked = now
			}
		}
	}
	if f.uncertain {
		if len(f.st.Journal) > 0 {
			return false, nil // the failed batch is reconciled first: no new batch while VictoriaLogs fails
		}
		f.uncertain = false
	}
	if f.lingers(&st, now) {
		return false, nil
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

// lingers reports whether sending should wait (until f.wake): records
// are being appended right now (a burst: local ingest goes first) and the
// oldest not sent has waited less than MaxDelay. Under a steady stream
// records thus go about MaxDelay after they were appended; a backlog older
// than that goes at once, batch after batch.
func (f *Forwarder) lingers(st *oplog.Stats, now time.Time) bool {
	f.wake = time.Time{}
	if st.Revision != f.st.Revision || st.LastID <= f.st.Through {
		return false
	}
	f.mu.Lock()
	f.lag.observe(st.LastID, f.st.Through, now)
	since, appended := f.lag.since, f.lag.appended
	f.mu.Unlock()
	wake := appended.Add(f.opts.Quiet)
	if late := since.Add(f.opts.MaxDelay); late.Before(wake) {
		wake = late
	}
	if now.Before(wake) {
		f.wake = wake
		return true
	}
	return false
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
	body, err := f.completions(ctx, &b, f.buf[:0])
	if err != nil {
		return b, nil, err
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
		if t.Reset || len(t.Lines) == 0 && len(t.Damaged) == 0 {
			break // a new generation: the next step follows it
		}
		stop := f.cutAtDamage(&t, b.Lo == 0, since)
		if stop && len(t.Lines) == 0 && b.Lo == 0 {
			continue // the damaged run was skipped: read on after it
		}
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

// cutAtDamage keeps of t the lines before its first damaged run (see
// oplog.Damaged) and reports whether there was one: a batch is one run of
// IDs, so it ends there. With no line before the run and the batch empty,
// the run is skipped: Through passes it and its records count as lost to
// the studio (mcplogd salvage, which copies what is readable, names them).
func (f *Forwarder) cutAtDamage(t *oplog.Tail, empty bool, since uint64) bool {
	if len(t.Damaged) == 0 {
		return false
	}
	dm := t.Damaged[0]
	t.Lines = t.Lines[:sort.Search(len(t.Lines), func(i int) bool { return t.Lines[i].ID >= dm.From })]
	if len(t.Lines) == 0 && empty {
		s := &f.st
		n := dm.To - max(dm.From, since+1) + 1
		s.Lost += n
		s.Through = max(s.Through, dm.To)
		f.opts.Logger.Error("studio: records of a damaged block of the data file were skipped; they are lost to the studio",
			"from", dm.From, "to", dm.To, "records", n, "lostTotal", s.Lost, "damage", dm.String())
	}
	return true
}

// completions appends to body the second rows of the operations sent
// pending that have completed since, noting them in b.Comps.
func (f *Forwarder) completions(ctx context.Context, b *batch, body []byte) ([]byte, error) {
	s := &f.st
	var gone []uint64 // trimmed or cleared: no completion to send
	defer func() {
		s.Pending = slices.DeleteFunc(s.Pending, func(x uint64) bool { return slices.Contains(gone, x) })
	}()
	n := min(len(s.Pending), maxPendingChecksPerStep)
	f.pendingAt += n // a different slice each step when there are many
	for i := range n {
		if len(b.Comps) >= f.opts.BatchRows/2 {
			break
		}
		id := s.Pending[(f.pendingAt-n+i)%len(s.Pending)]
		r, err := f.src.Get(ctx, id)
		if oplog.ErrorCode(err) == oplog.ENOTFOUND || oplog.IsDamaged(err) {
			gone = append(gone, id)
			continue
		} else if err != nil {
			return body, err
		}
		if r.IsComplete() {
			body = f.schema.appendRow(body, &r, b.Seq+uint64(len(b.Comps)), s.Revision)
			b.Comps = append(b.Comps, id)
		}
	}
	return body, nil
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
	f.uncertain = err != nil
	f.st.adopt(b, time.Now(), f.opts.Settle/4)
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
	ids      []uint64
	times    []time.Time
	since    time.Time // when the oldest record not acknowledged was first seen; zero: none
	appended time.Time // when the newest ID was first seen
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
		l.appended = now
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
