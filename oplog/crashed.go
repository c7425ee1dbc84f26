package oplog

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Calls in flight when their game crashed. An operation recorded in a run
// of its source and still pending when that run ends crashed will never
// be answered by the game: it is completed with StatusCrashed and an
// error text that names the crash, its record and how the run ended:
//
//	the game crashed during this call: KeyError: 'boss' (record #7); python3 exited with status 1
//
// Only the operations still pending when the run ended are in flight: a
// call that completed before the crash is never touched, nor one of
// another source or run. The Log does this as records arrive (append):
// when an exit marker lands in a run that is crashed, when a run marker
// starts the next run of a source whose previous run ended crashed, and
// when a call that started before its run's exit marker is recorded in
// that run after it (a bridge that posts its calls late). So it holds for
// the gateway's calls and for those posted through the ingest API alike.

// MaxCrashedErrorBytes is the most a crashed operation's error text holds.
const MaxCrashedErrorBytes = 1024

// crashTitleBytes and crashHowBytes bound the crash's title and how its
// run ended within that text, leaving room for the run that came back.
const (
	crashTitleBytes = 400
	crashHowBytes   = 300
)

// crashTitleWait bounds how long the crash index may take to name the
// crash before the crash record's own text is used.
const crashTitleWait = 500 * time.Millisecond

// SettleCrashed completes with StatusCrashed every operation of source
// recorded in run before the run's crash (RunInfo.CrashID) and still
// pending, and returns them as completed. It does nothing (nil, nil) when
// the run has not ended crashed, is unknown, or the Log keeps no runs.
// The error text says how the run ended from its exit marker when it has
// one. Operations that complete meanwhile are left as they are.
func (l *Log) SettleCrashed(ctx context.Context, source string, run uint64) ([]Record, error) {
	source = l.Game(source)
	info, ok, err := l.crashedRun(ctx, source, run)
	if err != nil || !ok {
		return nil, err
	}
	end, found, err := l.LastMarker(ctx, source, MarkerExit)
	if err != nil {
		return nil, err
	}
	var endp *Record
	if found && end.Run == run {
		endp = &end
	}
	return l.settleCrashed(ctx, info, endp)
}

// crashedRun returns run of source when it ended crashed.
func (l *Log) crashedRun(ctx context.Context, source string, run uint64) (RunInfo, bool, error) {
	rs, ok := l.store.(RunStore)
	if !ok || run == 0 {
		return RunInfo{}, false, nil
	}
	if err := ctx.Err(); err != nil {
		return RunInfo{}, false, err
	}
	r, found, err := rs.Run(l.Game(source), run)
	if err != nil || !found || r.Source != source {
		return RunInfo{}, false, err
	}
	return r, r.Outcome == OutcomeCrashed && r.CrashID != 0, nil
}

// settleCrashed completes the operations in flight of the crashed run
// info; end is the record that told how it ended (its exit marker, or the
// next run's marker), or nil.
func (l *Log) settleCrashed(ctx context.Context, info RunInfo, end *Record) ([]Record, error) {
	upTo := info.CrashID // without the end: the calls recorded before the crash
	if end != nil {
		upTo = max(upTo, end.ID)
	}
	ids, err := l.pendingBefore(ctx, info, upTo)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return l.completeCrashed(ctx, info, end, ids)
}

// completeCrashed completes ids, operations in flight of the crashed run
// info, as crashed.
func (l *Log) completeCrashed(ctx context.Context, info RunInfo, end *Record, ids []uint64) ([]Record, error) {
	text, at := l.crashedText(ctx, info, end)
	var done []Record
	for _, id := range ids {
		r, err := l.Complete(ctx, id, Completion{Status: StatusCrashed, Error: text, EndTime: at})
		switch ErrorCode(err) {
		case "":
			done = append(done, r)
		case ECONFLICT, ENOTFOUND: // completed meanwhile, or gone
		default:
			return done, err
		}
	}
	return done, nil
}

// pendingBefore returns the pending operations of info's source and run
// recorded before the record upTo, newest first: through the index's
// status keyword when there is one (few records are pending), else by
// walking the store back from upTo to the run's first record.
func (l *Log) pendingBefore(ctx context.Context, info RunInfo, upTo uint64) ([]uint64, error) {
	f := Filter{Kind: KindOp, Source: info.Source, Runs: map[string]uint64{info.Source: info.Run}}
	var ids []uint64
	keep := func(r *Record) bool {
		if r.ID < info.FirstID {
			return false
		}
		if r.Status == StatusPending && r.Source == info.Source && r.Run == info.Run {
			ids = append(ids, r.ID)
		}
		return true
	}
	if l.getIndex() != nil {
		q := SearchQuery{Filter: f, Status: StatusPending, Limit: MaxSearchLimit,
			Cursor: EncodeCursor(l.store.Stats().Revision, upTo)}
		for {
			p, err := l.search(ctx, q) // no hint: a page that finds none is an answer here
			if err != nil {
				return nil, err
			}
			for i := range p.Hits {
				if !keep(&p.Hits[i].Record) {
					return ids, nil
				}
			}
			if p.NextCursor == "" {
				return ids, nil
			}
			q.Cursor = p.NextCursor
		}
	}
	q := Query{Filter: f, Count: MaxListCount, Before: upTo}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := l.store.List(q)
		if err != nil {
			return nil, err
		}
		for i := range p.Records {
			if !keep(&p.Records[i]) {
				return ids, nil
			}
		}
		if !p.More || len(p.Records) == 0 {
			return ids, nil
		}
		q.Before = p.Records[len(p.Records)-1].ID
	}
}

// crashedText is the error text of the operations in flight of the
// crashed run info, and the time the run ended.
func (l *Log) crashedText(ctx context.Context, info RunInfo, end *Record) (string, time.Time) {
	title := l.crashTitle(ctx, info)
	at := info.End
	var how string
	switch {
	case end != nil && end.Kind == KindMarker && end.Name == MarkerExit:
		how, at = firstLine(end.Text), end.Time
	case end != nil && end.Kind == KindMarker && end.Name == MarkerRun:
		how = fmt.Sprintf("%s came back as run %d (record #%d)", info.Source, end.Run, end.ID)
	default:
		how = fmt.Sprintf("run %d of %s ended crashed", info.Run, info.Source)
	}
	text := fmt.Sprintf("the game crashed during this call: %s (record #%d)", title, info.CrashID)
	if end == nil || end.ID != info.CrashID { // the exit itself the crash: its title says how it ended
		text += "; " + clipMarked(how, crashHowBytes)
	}
	return ClipBytes(text, MaxCrashedErrorBytes), at
}

// clipMarked cuts s to n bytes, marking a cut with "…".
func clipMarked(s string, n int) string {
	if c := ClipBytes(s, n-len("…")); len(c) < len(s) {
		return c + "…"
	}
	return s
}

// crashTitle names the crash that ended info: its crash group's title
// when the Log has a crash index that answers in time, else the first
// line of the crash record's text.
func (l *Log) crashTitle(ctx context.Context, info RunInfo) string {
	l.mu.Lock()
	hasIndex := l.crashes != nil
	l.mu.Unlock()
	if hasIndex {
		cctx, cancel := context.WithTimeout(ctx, crashTitleWait)
		p, err := l.FindCrashes(cctx, CrashQuery{Source: info.Source, Runs: map[string]uint64{info.Source: info.Run},
			Classes: []string{ClassCrash}, Limit: 5})
		cancel()
		for _, g := range p.Groups {
			if err == nil && g.RunsEnded > 0 && g.Title != "" {
				return clipMarked(firstLine(g.Title), crashTitleBytes)
			}
		}
	}
	r, err := l.store.Get(info.CrashID)
	if err != nil || strings.TrimSpace(r.Text) == "" {
		return "the crash"
	}
	return clipMarked(firstLine(r.Text), crashTitleBytes)
}

// settleCrashedRuns completes the operations in flight of the runs that
// recs, just stored, show ended crashed: an exit marker in a crashed run,
// a run marker after a crashed run of its source. Each source's runs are
// read once a batch (an import holds many run markers). Errors are the
// caller's to log; the records stay stored whatever happens here.
func (l *Log) settleCrashedRuns(ctx context.Context, recs []Record) error {
	if _, ok := l.store.(RunStore); !ok {
		return nil
	}
	type key struct {
		source string
		run    uint64
	}
	var seen map[key]bool
	for i := range recs {
		r := &recs[i]
		if r.Kind == KindOp && r.Status == StatusPending {
			if err := l.settleLate(ctx, r); err != nil {
				return err
			}
			continue
		}
		if r.Kind != KindMarker || (r.Name != MarkerExit && r.Name != MarkerRun) {
			continue
		}
		k := key{r.Source, r.Run}
		if r.Name == MarkerRun {
			k.run--
		}
		if k.run == 0 || seen[k] {
			continue
		}
		if seen == nil {
			seen = map[key]bool{}
		}
		seen[k] = true
		info, crashed, err := l.crashedRun(ctx, k.source, k.run)
		if err != nil {
			return err
		}
		if !crashed {
			continue
		}
		if _, err := l.settleCrashed(ctx, info, r); err != nil {
			return err
		}
	}
	return nil
}

// settleLate completes op, a pending operation just recorded, as crashed
// when its run had already ended crashed by an exit marker that came
// before it and the call started before that exit: a bridge that posts a
// call only once it gave up waiting. One started after the exit went to a
// game that was gone, and is left to its caller.
func (l *Log) settleLate(ctx context.Context, op *Record) error {
	info, crashed, err := l.crashedRun(ctx, op.Source, op.Run)
	if err != nil || !crashed {
		return err
	}
	end, found, err := l.LastMarker(ctx, info.Source, MarkerExit)
	if err != nil || !found || end.Run != op.Run || end.ID > op.ID || op.Time.After(end.Time) {
		return err
	}
	_, err = l.completeCrashed(ctx, info, &end, []uint64{op.ID})
	return err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// RunLister lists a source's runs: a *Log, or a server's over HTTP.
type RunLister interface {
	Runs(ctx context.Context, source string) ([]RunInfo, error)
}

// AddComeback adds to the error of r, a call completed as crashed, that
// its game came back as a later run once it has: "; game came back as
// run 4 (record #912)". Other records, and a crashed call whose game has
// not come back (or whose error says so already), are left as they are.
func AddComeback(ctx context.Context, l RunLister, r *Record) {
	if r.Kind != KindOp || r.Status != StatusCrashed || strings.Contains(r.Error, "came back as run") {
		return
	}
	runs, err := l.Runs(ctx, r.Source)
	if err != nil {
		return
	}
	for _, next := range runs {
		if next.Source == r.Source && next.Run > r.Run {
			r.Error = ClipBytes(fmt.Sprintf("%s; %s came back as run %d (record #%d)", r.Error, r.Source, next.Run, next.FirstID), MaxCrashedErrorBytes)
			return
		}
	}
}
