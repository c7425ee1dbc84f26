package studio

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// reconcileBucket is the width of the seq ranges counted in one stats row.
const reconcileBucket = 4096

// reconcileDue reports whether the oldest batch not reconciled was
// acknowledged long enough ago (Settle) to be looked for.
func (f *Forwarder) reconcileDue(now time.Time) bool {
	if len(f.st.Journal) == 0 || f.answering.IsZero() || now.Sub(f.answering) < f.opts.Settle {
		return false // VictoriaLogs failed last, or answers again since less than Settle
	}
	b := &f.st.Journal[0]
	return !b.Acked.IsZero() && now.Sub(b.Acked) >= f.opts.Settle && now.Sub(b.Checked) >= f.opts.Settle
}

// reconcile asks VictoriaLogs which seqs of the settled batches it holds
// (a count per range of seqs, then the seqs themselves of a range that
// falls short), sends the missing rows again with their own seqs, and
// moves Reconciled past the batches found whole.
func (f *Forwarder) reconcile(ctx context.Context, now time.Time) error {
	s := &f.st
	k := 0
	for k < len(s.Journal) && !s.Journal[k].Acked.IsZero() && now.Sub(s.Journal[k].Acked) >= f.opts.Settle &&
		now.Sub(s.Journal[k].Checked) >= f.opts.Settle && s.Journal[k].Revision == s.Revision {
		k++
	}
	if k == 0 {
		return nil
	}
	due := s.Journal[:k]
	lo, hi := due[0].Seq, due[k-1].last()
	fctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	if err := f.vl.flush(fctx); err != nil {
		f.opts.Logger.Debug("studio: VictoriaLogs did not flush before reconciling (a cluster's front has no force_flush)", "err", err)
	}
	cancel()
	have, err := f.seqCounts(ctx, lo, hi)
	if err != nil {
		return err
	}
	var missing []uint64
	dups := 0
	for start := lo - lo%reconcileBucket; start <= hi; start += reconcileBucket {
		end := min(start+reconcileBucket-1, hi)
		want := expected(due, max(start, lo), end)
		if have[start] == want {
			continue
		}
		seen, err := f.seqsIn(ctx, max(start, lo), end)
		if err != nil {
			return err
		}
		for _, b := range due {
			for q := max(b.Seq, start, lo); q <= min(b.last(), end); q++ {
				switch n := seen[q]; {
				case n == 0:
					missing = append(missing, q)
				case n > 1:
					dups += n - 1
				}
			}
		}
	}
	if dups > 0 {
		f.opts.Logger.Warn("studio: VictoriaLogs holds some rows twice", "rows", dups, "seqs", fmt.Sprintf("%d..%d", lo, hi))
	}
	missing = f.giveUp(missing)
	if len(missing) > 0 {
		if missing, err = f.resend(ctx, due, missing); err != nil {
			return err
		}
	}
	// Batches with no row missing are done; the others are looked at again later.
	done := 0
	for i := range due {
		if hasAny(&due[i], missing) {
			due[i].Checked = now
			break
		}
		done++
	}
	if done > 0 {
		s.Reconciled = due[done-1].last()
		s.Journal = append(s.Journal[:0], s.Journal[done:]...)
	}
	return s.save(f.opts.StatePath)
}

// resume, on a fresh state (no row sent yet, say its file was lost),
// continues after the rows VictoriaLogs already holds of this machine: seqs
// after its highest, and records after the highest ID of this revision.
func (f *Forwarder) resume(ctx context.Context) error {
	s := &f.st
	if s.Seq != 0 || len(s.Journal) != 0 {
		return nil
	}
	seq, err := f.highest(ctx, fmt.Sprintf(`{project=%s,machine=%s}`, strconv.Quote(f.opts.Project), strconv.Quote(f.opts.Machine)), "seq")
	if err != nil || seq == 0 {
		return err
	}
	id, err := f.highest(ctx, f.filter(), "id")
	if err != nil {
		return err
	}
	f.opts.Logger.Warn("studio: VictoriaLogs already holds rows of this machine that the state file does not know; continuing after them",
		"seq", seq, "id", id)
	s.Seq, s.Reconciled, s.Through = seq, seq, max(s.Through, id)
	return s.save(f.opts.StatePath)
}

// highest returns the highest value of field in the rows q selects; 0 when none.
func (f *Forwarder) highest(ctx context.Context, q, field string) (uint64, error) {
	var n uint64
	err := f.queryRows(ctx, q+" | stats max("+field+") m", func(row map[string]string) error {
		n, _ = strconv.ParseUint(row["m"], 10, 64) // "" when there is no row
		return nil
	})
	return n, err
}

// expected counts the seqs from..to that the batches hold.
func expected(due []batch, from, to uint64) int {
	n := 0
	for i := range due {
		a, b := max(due[i].Seq, from), min(due[i].last(), to)
		if a <= b {
			n += int(b - a + 1)
		}
	}
	return n
}

func hasAny(b *batch, seqs []uint64) bool {
	for _, q := range seqs {
		if q >= b.Seq && q <= b.last() {
			return true
		}
	}
	return false
}

// giveUp drops the seqs sent again maxResends times already (VictoriaLogs
// refuses them, say for their size), counting them lost.
func (f *Forwarder) giveUp(missing []uint64) []uint64 {
	keep := missing[:0]
	for _, q := range missing {
		if f.attempts[q] >= maxResends {
			f.st.Lost++
			delete(f.attempts, q)
			f.opts.Logger.Error("studio: a row is still missing in VictoriaLogs after being sent again; counted as lost", "seq", q, "resends", maxResends)
			continue
		}
		keep = append(keep, q)
	}
	return keep
}

// filter selects this machine's rows of the current generation.
func (f *Forwarder) filter() string {
	return fmt.Sprintf(`{project=%s,machine=%s} revision:=%s`, strconv.Quote(f.opts.Project), strconv.Quote(f.opts.Machine),
		strconv.Quote(strconv.FormatUint(f.st.Revision, 10)))
}

// seqCounts counts the rows with seqs lo..hi by range of reconcileBucket.
func (f *Forwarder) seqCounts(ctx context.Context, lo, hi uint64) (map[uint64]int, error) {
	q := fmt.Sprintf(`%s seq:>=%d seq:<=%d | stats by (seq:%d) count() n`, f.filter(), lo, hi, reconcileBucket)
	have := map[uint64]int{}
	err := f.queryRows(ctx, q, func(row map[string]string) error {
		start, err1 := strconv.ParseUint(row["seq"], 10, 64)
		n, err2 := strconv.Atoi(row["n"])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("unexpected stats row %v", row)
		}
		have[start] += n
		return nil
	})
	return have, err
}

// seqsIn returns how many rows VictoriaLogs holds of each seq lo..hi.
func (f *Forwarder) seqsIn(ctx context.Context, lo, hi uint64) (map[uint64]int, error) {
	q := fmt.Sprintf(`%s seq:>=%d seq:<=%d | fields seq`, f.filter(), lo, hi)
	seen := map[uint64]int{}
	err := f.queryRows(ctx, q, func(row map[string]string) error {
		n, err := strconv.ParseUint(row["seq"], 10, 64)
		if err != nil {
			return fmt.Errorf("unexpected row %v", row)
		}
		seen[n]++
		return nil
	})
	return seen, err
}

func (f *Forwarder) queryRows(ctx context.Context, q string, each func(map[string]string) error) error {
	rctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	if err := f.vl.query(rctx, q, each); err != nil {
		return f.errorf("reconcile: %w", err)
	}
	return nil
}

// resend rebuilds the rows of the missing seqs from the local log and
// sends them in bounded batches, each with its own seq. It returns the
// seqs sent: those of records retention removed since are counted lost.
func (f *Forwarder) resend(ctx context.Context, due []batch, missing []uint64) ([]uint64, error) {
	f.opts.Logger.Info("studio: VictoriaLogs does not hold rows it was sent (acknowledged, or whose answer was lost) "+
		"after answering again for the settle time (a node restarted, or lost them); sending them again", "rows", len(missing))
	body := f.buf[:0]
	rows := 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		rctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		defer cancel()
		if err := f.vl.insert(rctx, body); err != nil {
			return f.errorf("resend: %w", err)
		}
		f.st.Resent += uint64(rows)
		body, rows = body[:0], 0
		return nil
	}
	bi := 0
	sent := missing[:0]
	for _, q := range missing {
		for due[bi].last() < q {
			bi++
		}
		id, _ := due[bi].at(q)
		r, err := f.src.Get(ctx, id)
		if oplog.ErrorCode(err) == oplog.ENOTFOUND || oplog.IsDamaged(err) {
			f.st.Lost++
			continue
		} else if err != nil {
			return nil, err
		}
		sent = append(sent, q)
		f.attempts[q]++
		body = f.schema.appendRow(body, &r, q, f.st.Revision)
		rows++
		if rows >= f.opts.BatchRows || len(body) >= f.opts.BatchBytes {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	err := flush()
	f.buf = body
	return sent, err
}
