package crash

// The query side of the Index: matching entries grouped, sorted and
// counted into histograms.

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

type agg struct {
	count             int
	first, last       int64
	exampleID, lastID uint64
	sources           []uint32
	level             oplog.Level
	fatal, ended      int
	endedLast         int64  // the newest occurrence that ended a run
	lastRun           uint32 // the run of the newest occurrence
	class             string
}

// add counts e, an occurrence that ended its run when ends.
func (a *agg) add(e *entry, ends bool) {
	a.count++
	a.first, a.last, a.lastID, a.lastRun = min(a.first, e.time), max(a.last, e.time), e.id, e.run
	a.level = max(a.level, e.level)
	if e.level == oplog.LevelFatal {
		a.fatal++
	}
	if ends {
		a.ended++
		a.endedLast = max(a.endedLast, e.time)
	}
	if !slices.Contains(a.sources, e.source) {
		a.sources = append(a.sources, e.source)
	}
}

// FindCrashes answers q exactly: it first reads what the background reader
// has not, then groups the matching entries. q.Limit must be positive
// (oplog.Log.FindCrashes sees to it).
func (x *Index) FindCrashes(ctx context.Context, q oplog.CrashQuery) (oplog.CrashPage, error) {
	if x.ctx.Err() != nil {
		return oplog.CrashPage{}, oplog.ErrClosed
	}
	runs, err := x.src.Runs(ctx, q.Source)
	if err != nil && oplog.ErrorCode(err) != oplog.EUNAVAILABLE {
		return oplog.CrashPage{}, err
	}
	page, err := x.find(ctx, q, runs)
	if err != nil {
		return page, err
	}
	return page, x.lastFrames(ctx, &page)
}

// lastFrames fills the LastFrames of page's first maxFramedGroups groups
// from the stacks of their newest occurrences, read from the store
// outside the Index's lock. An occurrence removed since (retention, a
// clear) leaves its group without them.
func (x *Index) lastFrames(ctx context.Context, page *oplog.CrashPage) error {
	for i := range page.Groups[:min(len(page.Groups), maxFramedGroups)] {
		g := &page.Groups[i]
		r, err := x.src.Get(ctx, g.LastID)
		switch {
		case oplog.ErrorCode(err) == oplog.ENOTFOUND:
			continue
		case err != nil:
			return err
		}
		reason := ""
		if g.CauseID != 0 && g.CauseID < r.ID {
			// A game's line giving up on an exception (causeBefore): the
			// exception names the group, its frames the place. A dump for
			// a failed assertion (reasonBefore): the assertion names it,
			// the dump's frames the place.
			if c, err := x.src.Get(ctx, g.CauseID); err == nil && stackOf(&r) == "" {
				r = c
			} else if err == nil {
				reason = Message(&c)
			}
		}
		g.LastFrames = TopLines(stackOf(&r), oplog.CrashLastFrames)
		g.Message, g.Frame, g.FramesAt = cmp.Or(reason, Message(&r)), GameFrame(stackOf(&r)), framesAt(stackOf(&r))
		if g.Message != "" {
			g.Title = Title(g.Message, g.Frame)
		}
	}
	return nil
}

// find groups the matching entries under the Index's lock; runs are the
// store's, for the crashes that ended them.
func (x *Index) find(ctx context.Context, q oplog.CrashQuery, runs []oplog.RunInfo) (oplog.CrashPage, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.catchUp(ctx); err != nil {
		return oplog.CrashPage{}, err
	}
	st := x.src.Stats()
	x.trim(&st)

	sel, ok := x.selector(&q)
	if !ok {
		return oplog.CrashPage{Groups: []oplog.CrashGroup{}, LastID: st.LastID}, nil
	}
	crashOf, crashIDs := x.crashes(runs)
	credited := map[runOf]bool{}
	since, until := sel.since, sel.until
	aggs := make([]agg, len(x.groups))
	var hit []int32
	next := 0 // into crashIDs: entries come in ID order
	for i := range x.entries {
		e := &x.entries[i]
		for next < len(crashIDs) && crashIDs[next] < e.id {
			next++
		}
		if e.time < since || e.time >= until || !sel.of(e) || e.level < q.MinLevel {
			continue
		}
		// Only a run's crash record, or a fatal line after it, can be the
		// crash of a crashed run: the map is asked for those alone.
		var cid uint64
		var crashed bool
		k := runOf{e.source, e.run}
		if e.level == oplog.LevelFatal || e.flags&fromMarker != 0 || next < len(crashIDs) && crashIDs[next] == e.id {
			cid, crashed = crashOf[k]
		}
		if e.flags&fromMarker != 0 && (!crashed || e.id != cid) {
			continue
		}
		a := &aggs[e.group]
		if a.count == 0 {
			hit = append(hit, e.group)
			a.first, a.last, a.exampleID = e.time, e.time, e.id
		}
		// The crash of a crashed run: its CrashID, or when a dump's
		// header stood there, the first fatal line after it.
		ends := crashed && !credited[k] && e.id >= cid && (e.id == cid || e.level == oplog.LevelFatal)
		if ends {
			credited[k] = true
		}
		a.add(e, ends)
	}
	hit = slices.DeleteFunc(hit, func(g int32) bool {
		a := &aggs[g]
		a.class = classOf(&x.groups[g], a)
		return !oplog.WantedClass(q.Classes, a.class)
	})
	slices.SortFunc(hit, func(g, h int32) int { return rank(&aggs[g], &aggs[h]) })
	page := oplog.CrashPage{Groups: make([]oplog.CrashGroup, 0, min(len(hit), q.Limit)), Total: len(hit), LastID: st.LastID}
	for _, g := range hit[:min(len(hit), q.Limit)] {
		a, gr := &aggs[g], &x.groups[g]
		cg := oplog.CrashGroup{Signature: gr.sig, Title: gr.title, Frames: slices.Clone(gr.frames), Count: a.count,
			FirstSeen: time.Unix(0, a.first).UTC(), LastSeen: time.Unix(0, a.last).UTC(), ExampleID: a.exampleID, LastID: a.lastID,
			Class: a.class, Level: a.level, RunsEnded: a.ended, LastRun: uint64(a.lastRun), CauseID: gr.cause}
		for _, s := range a.sources {
			cg.Sources = append(cg.Sources, x.sources[s])
		}
		slices.Sort(cg.Sources)
		page.Groups = append(page.Groups, cg)
	}
	if q.Buckets > 0 && len(page.Groups) > 0 {
		x.histograms(&page, hit[:len(page.Groups)], aggs, &sel, q)
	}
	return page, nil
}

// histograms fills the Histogram of page's groups (hit, in the same order)
// with a second pass over the entries; see oplog.CrashQuery.Buckets.
func (x *Index) histograms(page *oplog.CrashPage, hit []int32, aggs []agg, sel *selector, q oplog.CrashQuery) {
	since, until := sel.since, sel.until
	from, to := int64(1<<63-1), int64(-1<<63)
	for i := range aggs {
		if aggs[i].count > 0 {
			from, to = min(from, aggs[i].first), max(to, aggs[i].last)
		}
	}
	if !q.Since.IsZero() {
		from = since
	}
	if q.Until.IsZero() {
		to++ // just after the latest
	} else {
		to = until
	}
	if to <= from {
		to = from + 1
	}
	pos := make(map[int32]int, len(hit))
	for i, g := range hit {
		pos[g] = i
		page.Groups[i].Histogram = make([]int, q.Buckets)
	}
	span := float64(to - from)
	for i := range x.entries {
		e := &x.entries[i]
		if e.time < from || e.time >= to || !sel.of(e) {
			continue
		}
		if p, ok := pos[e.group]; ok {
			b := min(int(float64(e.time-from)/span*float64(q.Buckets)), q.Buckets-1)
			page.Groups[p].Histogram[b]++
		}
	}
	page.HistogramFrom, page.HistogramUntil = time.Unix(0, from).UTC(), time.Unix(0, to).UTC()
}

// selector is a CrashQuery as the entries are matched against it.
type selector struct {
	since, until int64  // Unix nanoseconds, [since, until)
	src          uint32 // the source, unless anySource
	anySource    bool
	runs         map[uint32]uint32 // source → run; nil: any run
}

// selector translates q for the entries; false when it can match none.
func (x *Index) selector(q *oplog.CrashQuery) (selector, bool) {
	s := selector{since: -1 << 63, until: 1<<63 - 1, anySource: q.Source == ""}
	if !q.Since.IsZero() {
		s.since = q.Since.UnixNano()
	}
	if !q.Until.IsZero() {
		s.until = q.Until.UnixNano()
	}
	if !s.anySource {
		var ok bool
		if s.src, ok = x.bySource[q.Source]; !ok {
			return s, false
		}
	}
	if q.Runs != nil {
		s.runs = map[uint32]uint32{}
		for name, run := range q.Runs {
			if src, ok := x.bySource[name]; ok && run < 1<<32 {
				s.runs[src] = uint32(run)
			}
		}
		if len(s.runs) == 0 {
			return s, false
		}
	}
	return s, true
}

// of reports whether e is of the selected source and run.
func (s *selector) of(e *entry) bool {
	if !s.anySource && e.source != s.src {
		return false
	}
	if s.runs != nil {
		run, ok := s.runs[e.source]
		return ok && e.run == run
	}
	return true
}

// crashes maps each crashed run the index knows the source of to its
// crash record, and lists those records in ID order.
func (x *Index) crashes(runs []oplog.RunInfo) (map[runOf]uint64, []uint64) {
	out := map[runOf]uint64{}
	var ids []uint64
	for i := range runs {
		r := &runs[i]
		if r.Outcome != oplog.OutcomeCrashed || r.CrashID == 0 || r.Run >= 1<<32 {
			continue
		}
		if src, ok := x.bySource[r.Source]; ok {
			out[runOf{src, uint32(r.Run)}] = r.CrashID
			ids = append(ids, r.CrashID)
		}
	}
	slices.Sort(ids)
	return out, ids
}

// classOf is a group's class: a crashed run makes a crash, a script that
// did not compile too when the game gave up on it; other compile
// diagnostics are compile whatever their level; a fatal occurrence makes
// a crash.
func classOf(g *group, a *agg) string {
	switch {
	case a.ended > 0:
		return oplog.ClassCrash
	case g.compile:
		return oplog.ClassCompile
	case a.fatal > 0:
		return oplog.ClassCrash
	}
	return oplog.ClassError
}

// rank orders groups as CrashPage says: those that ended runs first, by
// their newest run-ending occurrence; then by class; then newest first.
func rank(a, b *agg) int {
	if c := cmp.Compare(min(b.ended, 1), min(a.ended, 1)); c != 0 {
		return c
	}
	if a.ended > 0 {
		if c := cmp.Compare(b.endedLast, a.endedLast); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(slices.Index(oplog.CrashClasses, a.class), slices.Index(oplog.CrashClasses, b.class)); c != 0 {
		return c
	}
	if c := cmp.Compare(b.last, a.last); c != 0 {
		return c
	}
	return cmp.Compare(b.lastID, a.lastID)
}
