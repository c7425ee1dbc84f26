package crash

// How the Index reads the store: two cursors (error lines, operations),
// the operations seen pending, and the trimming that follows retention.

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// step reads one batch of each cursor that is behind.
func (x *Index) step(ctx context.Context) error {
	lines := oplog.TailQuery{Filter: oplog.Filter{MinLevel: oplog.LevelError, Kind: oplog.KindLine, WithMarkers: true},
		SinceID: x.lineMark, HasSince: true, Revision: x.revision, Limit: oplog.MaxTailLimit}
	t, err := x.src.Tail(ctx, lines)
	if err != nil {
		return err
	}
	if x.reset(&t) {
		return nil
	}
	for i := range t.Lines {
		x.add(&t.Lines[i])
	}
	x.lineMark = t.LastID

	ops := oplog.TailQuery{Filter: oplog.Filter{Kind: oplog.KindOp}, SinceID: x.opMark, HasSince: true,
		Revision: x.revision, Limit: oplog.MaxTailLimit}
	if t, err = x.src.Tail(ctx, ops); err != nil {
		return err
	}
	if x.reset(&t) {
		return nil
	}
	for i := range t.Lines {
		r := &t.Lines[i]
		if r.Status == oplog.StatusPending {
			x.pending = append(x.pending, r.ID)
			continue
		}
		x.add(r)
	}
	x.opMark = t.LastID
	return nil
}

// reset starts over when the store was cleared (or replaced): the entries
// belong to a generation that is gone. It reports whether t was dropped.
func (x *Index) reset(t *oplog.Tail) bool {
	if x.revision == t.Revision && !t.Reset {
		return false
	}
	first := x.revision == 0
	x.revision = t.Revision
	if first && !t.Reset {
		return false
	}
	x.entries, x.pending = x.entries[:0], x.pending[:0]
	x.lineMark, x.opMark = 0, 0
	x.groups, x.bySig = nil, map[string]int32{}
	clear(x.fatal)
	clear(x.absorbed)
	return true
}

// recheckPending asks about the operations seen pending that completed
// since it last looked, by the source's journal (all of them without one,
// or when the journal lost track), adding those that failed with a stack.
func (x *Index) recheckPending(ctx context.Context) error {
	x.checked = time.Now()
	if x.journal == nil || x.jpos == 0 {
		return x.recheckAll(ctx)
	}
	c := x.journal(x.jpos)
	if c.Lost {
		return x.recheckAll(ctx)
	}
	for _, id := range c.IDs {
		i, found := slices.BinarySearch(x.pending, id)
		if !found {
			continue
		}
		x.reads++
		r, err := x.src.Get(ctx, id)
		switch {
		case oplog.ErrorCode(err) == oplog.ENOTFOUND:
		case err != nil:
			return err // jpos stays: asked again next time
		case r.Status == oplog.StatusPending:
			continue // cannot be: it completed; asked again next time
		default:
			x.add(&r)
		}
		x.pending = slices.Delete(x.pending, i, i+1)
	}
	x.jpos = c.Next
	return nil
}

// recheckAll asks about every operation seen pending.
func (x *Index) recheckAll(ctx context.Context) error {
	var pos uint64
	if x.journal != nil {
		pos = x.journal(0).Next // before the reads: what completes after them is in the journal
	}
	keep := x.pending[:0]
	for i, id := range x.pending {
		x.reads++
		r, err := x.src.Get(ctx, id)
		switch {
		case oplog.ErrorCode(err) == oplog.ENOTFOUND:
			continue // trimmed or cleared
		case err != nil:
			x.pending = append(keep, x.pending[i:]...)
			return err
		case r.Status == oplog.StatusPending:
			keep = append(keep, id)
		default:
			x.add(&r)
		}
	}
	x.pending = keep
	x.jpos = pos
	return nil
}

// PendingReads returns how many times the index has read again an
// operation it saw pending: with a source that offers its journal of
// completions, once per operation that completed, not once per look.
func (x *Index) PendingReads() uint64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.reads
}

// add indexes r if it is a crash.
func (x *Index) add(r *oplog.Record) {
	t, flags, ok := x.trace(r)
	if !ok {
		return
	}
	src, ok := x.bySource[r.Source]
	if !ok {
		src = uint32(len(x.sources))
		name := strings.Clone(r.Source) // not a view into the decoded record
		x.sources = append(x.sources, name)
		x.bySource[name] = src
	}
	e := entry{id: r.ID, time: r.Time.UnixNano(), source: src, run: uint32(min(r.Run, 1<<32-1)), level: r.Level, flags: flags}
	sig := t.Signature()
	cause := int32(-1)
	if r.Kind == oplog.KindLine && r.Level == oplog.LevelFatal {
		if !x.firstFatal(&e, sig) {
			return
		}
		x.reasonBefore(&e)
		cause = x.causeBefore(&e, r.Text)
	}
	g, ok := x.bySig[sig]
	if cause >= 0 {
		g, ok = cause, true // the exception it gives up on: e is its occurrence
	}
	if !ok {
		g = int32(len(x.groups))
		x.groups = append(x.groups, group{sig: sig, title: t.Title(), frames: slices.Clone(t.Frames), compile: isCompile(r),
			scripted: slices.ContainsFunc(TopLines(stackOf(r), maxGameFrames), projectFrame)})
		x.bySig[sig] = g
	}
	e.group = g
	x.groups[g].live++
	if cause < 0 && r.Kind == oplog.KindLine && r.Level == oplog.LevelFatal && e.flags&bare == 0 {
		x.groups[g].cause = x.reason // its newest dump's: the assertion it was for, or none
	}
	x.reason = 0
	x.reraised(&e)
	if x.header != 0 {
		x.absorbed[x.header] = g
		x.header = 0
	}
	if x.replaced >= 0 { // what the replaced header had taken in goes with it
		for id, to := range x.absorbed {
			if to == x.replaced && x.groups[to].live == 0 {
				x.absorbed[id] = g
			}
		}
		x.replaced = -1
	}
	if n := len(x.entries); n == 0 || x.entries[n-1].id < e.id {
		x.entries = append(x.entries, e)
		return
	}
	// An operation that failed after later records were read.
	i, found := slices.BinarySearchFunc(x.entries, e.id, func(e entry, id uint64) int { return cmp.Compare(e.id, id) })
	if found {
		x.groups[g].live--
		return
	}
	x.entries = slices.Insert(x.entries, i, e)
}

// firstFatal keeps one crash out of the lines an engine prints as it
// dies: the first fatal line of a run is the crash, and the fatal lines
// without a stack (bare) of the same run within dumpSpan after it are
// more of its dump (Unity's "Received signal SIGSEGV" then "Crash!!!", a
// handler's banner lines), except that one with a stack after a first
// without replaces it (a signal's header, then its backtrace). A fatal
// line with its own message and its own stack after a crash with a stack
// is a crash of its own however soon it comes: a complete report says
// what it is, where a dump's banner says nothing more (three script
// errors a game turns fatal in one second are three crashes). A fatal
// line later than dumpSpan is another crash: a file followed without run
// markers is one long run; so is a bare line that says what the first
// said (sig): a dump's lines say something else, the same crash again
// says the same. It reports whether e is to be added.
func (x *Index) firstFatal(e *entry, sig string) bool {
	if e.run == 0 {
		return true
	}
	k := runOf{e.source, e.run}
	first, seen := x.fatal[k]
	switch {
	case !seen || e.time-first.time > int64(dumpSpan) || e.time < first.time:
		x.fatal[k] = fatalLine{e.id, e.time}
		return true
	}
	i, found := slices.BinarySearchFunc(x.entries, first.id, func(e entry, id uint64) int { return cmp.Compare(e.id, id) })
	if !found {
		return false
	}
	switch {
	case e.flags&bare != 0 && x.groups[x.entries[i].group].sig == sig:
		x.fatal[k] = fatalLine{e.id, e.time} // the same crash again
		return true
	case e.flags&bare != 0, e.flags&restates != 0 && x.entries[i].flags&bare == 0:
		x.absorbed[e.id] = x.entries[i].group
		return false
	case x.entries[i].flags&bare == 0:
		// Bare lines after it are its dump, not the first crash's.
		x.fatal[k] = fatalLine{e.id, e.time}
		return true
	}
	x.header, x.replaced = first.id, x.entries[i].group // absorbed into the group e is added to
	x.groups[x.entries[i].group].live--
	x.entries = slices.Delete(x.entries, i, i+1)
	x.fatal[k] = fatalLine{e.id, e.time}
	return true
}

// reraised keeps one occurrence of an exception a game logged as it
// caught it and then let go (Python's logging.exception then raise, a Java
// logger's error then throw), or that a thread died of and its join
// raised again (Ruby's report of the thread, then the uncaught
// exception): when e prints the exception as itself and the latest entry
// of its source, of the same run and exception (sameException), at most
// reasonGap records and dumpSpan before, logged it under a message of its
// own or printed it as an error where e is fatal, that entry is absorbed
// into e. An exception printed again and again as itself (an engine's
// every frame) or under the same logger message is as many occurrences.
func (x *Index) reraised(e *entry) {
	if e.flags != 0 || e.run == 0 {
		return
	}
	i := x.latestOfSource(e)
	if i < 0 {
		return
	}
	p := &x.entries[i]
	again := p.flags == logged || p.flags == 0 && p.level == oplog.LevelError && e.level == oplog.LevelFatal
	if p.run == e.run && again && p.id < e.id && e.time-p.time <= int64(dumpSpan) && sameException(&x.groups[p.group], &x.groups[e.group]) {
		x.absorb(i, e.group)
	}
}

// latestOfSource returns the index of the newest entry of e's source at
// most reasonGap records before e; -1 when there is none.
func (x *Index) latestOfSource(e *entry) int {
	for i := len(x.entries) - 1; i >= 0 && e.id-x.entries[i].id <= reasonGap; i-- {
		if x.entries[i].source == e.source {
			return i
		}
	}
	return -1
}

// absorb drops the entry at i: its record is an occurrence of group g now.
func (x *Index) absorb(i int, g int32) {
	p := &x.entries[i]
	x.groups[p.group].live--
	x.absorbed[p.id] = g
	x.entries = slices.Delete(x.entries, i, i+1)
}

// sameException reports whether the groups of two printouts may be one
// exception: the same group, or the same title where the later printout
// has the earlier's frames and more (caught in a function, let go to the
// top).
func sameException(caught, raised *group) bool {
	return caught == raised || caught.title == raised.title && len(caught.frames) < len(raised.frames) &&
		slices.Equal(caught.frames, raised.frames[:len(caught.frames)])
}

// reasonBefore folds into e, a crash's first fatal line, the error line an
// engine printed as the crash's reason right before its dump (Godot's
// "ERROR: This is the end." before "Program crashed with signal 4", its
// CRASH_COND's "FATAL: Condition ... is true.", a failed assertion before
// the dump its abort made: Defold's on Windows): one crash, not an error
// and a crash. The error must be the last one read, of the same run, at
// most reasonGap records and dumpSpan before e. A failed assertion's
// message titles the crash (x.reason).
func (x *Index) reasonBefore(e *entry) {
	n := len(x.entries)
	if n == 0 || x.header != 0 {
		return
	}
	p := &x.entries[n-1]
	g := &x.groups[p.group]
	if p.source != e.source || p.run != e.run || p.level != oplog.LevelError || p.flags&^logged != 0 ||
		e.id-p.id > reasonGap || e.time-p.time > int64(dumpSpan) || !crashReason(g) {
		return
	}
	x.groups[p.group].live--
	x.header = p.id
	if assertionTitle(g.title) {
		x.reason = p.id
	}
	x.entries = x.entries[:n-1]
}

// causeBefore finds the exception a game's own fatal line gives up on (a
// thread's uncaught exception, then "FATAL: world generation failed,
// exiting"): the last entry of e's source, an error with a stack of the
// same run at most reasonGap records and dumpSpan before e, a bare fatal
// line that names no native crash of its own. When that error's frames
// are not the game's but an error of the game's own scripts came just
// before it (Godot's parse error, then the engine's "Method failed" it
// caused), the game's is the cause. That entry goes (its occurrence is e
// now), and its group, e's, is returned: titled by the exception and its
// frame. -1 when there is none.
func (x *Index) causeBefore(e *entry, text string) int32 {
	if e.flags&bare == 0 || x.header != 0 || x.replaced >= 0 || nativeCrashText(text) {
		return -1
	}
	i := x.latestOfSource(e)
	if i < 0 || !x.causes(&x.entries[i], e) {
		return -1
	}
	if !x.scripted(i) {
		for j := i - 1; j >= 0 && e.id-x.entries[j].id <= reasonGap; j-- {
			if x.entries[j].source == e.source && x.causes(&x.entries[j], e) && x.scripted(j) {
				i = j
				break
			}
		}
	}
	p := &x.entries[i]
	g := p.group
	x.groups[g].cause = p.id
	x.absorb(i, g)
	return g
}

// causes reports whether p, an entry before e of its source, may be the
// error e gives up on: an error with a stack of its run, at most dumpSpan
// before it.
func (x *Index) causes(p, e *entry) bool {
	return p.run == e.run && e.run != 0 && p.level == oplog.LevelError && p.flags&^logged == 0 && p.time <= e.time &&
		e.time-p.time <= int64(dumpSpan)
}

// scripted reports whether the entry at i has a frame of the game's own
// scripts (res://, Assets/, a mod's).
func (x *Index) scripted(i int) bool { return x.groups[x.entries[i].group].scripted }

// nativeCrashText reports a fatal line that says what crashed itself: a
// signal, a crash handler's or the C runtime's words.
func nativeCrashText(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"signal", "sigsegv", "sigabrt", "crash", "abort", "segmentation", "fault", "free()", "corrupt", "terminate", "smashing", "exception"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// crashReason reports an error that says why the engine is about to
// crash, not one it goes on after: Godot's CRASH_COND ("FATAL: Condition
// ... is true.") and OS.crash (its message, at the engine's crash), a
// failed assertion (its abort's dump follows).
func crashReason(g *group) bool {
	return strings.HasPrefix(g.title, "FATAL: ") || len(g.frames) > 0 && g.frames[0] == "crash" || assertionTitle(g.title)
}

// assertionTitle reports a failed assertion's title: Microsoft's C
// runtime's, a game's own macro's (an error; glibc's is fatal itself).
func assertionTitle(title string) bool {
	return len(title) > 14 && (strings.EqualFold(title[:14], "assertion fail") || strings.EqualFold(title[:13], "assert failed"))
}

// trace returns r's normalised trace when r is a crash: an error or fatal
// line with a stack, a fatal line without one (its message is the
// trace), an operation that failed with a stack (in its stack field, or
// as an error text of several lines with frames), or an exit marker at
// level error or fatal.
func (x *Index) trace(r *oplog.Record) (Trace, uint8, bool) {
	if r.Level < oplog.LevelError {
		return Trace{}, 0, false
	}
	if r.Kind == oplog.KindMarker {
		if r.Name != oplog.MarkerExit {
			return Trace{}, 0, false
		}
		t := Trace{}.WithHead(r.Text)
		if reason := exitReason(r.Data); reason != "" {
			t = Trace{}.WithHead(reason) // the error the program printed as it gave up
		}
		if code := exitCode(r.Data); code != "" {
			// The status, which the head's normalising blanks: a game that
			// exits with 42 on a failed assertion and 1 on a missing file
			// has two crashes.
			t.Head += " #" + code
		}
		return t, fromMarker, true
	}
	stack, message := stackOf(r), r.Text
	if r.Kind == oplog.KindOp {
		message = r.Error
	}
	if stack == "" {
		if r.Kind == oplog.KindLine && r.Level == oplog.LevelFatal {
			return Trace{}.WithHead(message), bare, true
		}
		return Trace{}, 0, false
	}
	t, ok := x.traces[stack]
	if !ok && x.traces == nil { // RecordSignature's index of nothing
		t = Parse(stack)
	} else if !ok {
		t = Parse(stack)
		if len(x.traces) >= maxTraces || x.tracesSz+len(stack) > maxTraceBytes {
			clear(x.traces)
			x.tracesSz = 0
		}
		x.traces[strings.Clone(stack)] = t
		x.tracesSz += len(stack)
	}
	if r.Kind == oplog.KindOp && r.Stack == "" && t.NumFrames() == 0 {
		return Trace{}, 0, false // an error message, not a stack
	}
	var flags uint8
	if r.Kind == oplog.KindLine && t.Head != "" && (Trace{}).WithHead(message).Head != t.Head {
		flags = logged
	}
	if r.Kind == oplog.KindLine && strings.HasPrefix(message, valgrindTermination) {
		flags |= restates
	}
	return t.WithHead(message), flags, true
}

// trim drops the entries and pending operations that retention removed.
func (x *Index) trim(st *oplog.Stats) {
	if st.Revision != x.revision {
		return // the next step resets
	}
	low := st.FirstID
	if st.Records == 0 {
		low = st.LastID + 1
	}
	i, _ := slices.BinarySearchFunc(x.entries, low, func(e entry, id uint64) int { return cmp.Compare(e.id, id) })
	if i > 0 {
		for _, e := range x.entries[:i] {
			x.groups[e.group].live--
		}
		x.entries = slices.Delete(x.entries, 0, i)
		for id := range x.absorbed {
			if id < low {
				delete(x.absorbed, id)
			}
		}
		x.compactGroups()
	}
	j, _ := slices.BinarySearch(x.pending, low)
	x.pending = slices.Delete(x.pending, 0, j)
}

// compactGroups forgets groups without occurrences once they are the
// majority, so that memory follows what is retained.
func (x *Index) compactGroups() {
	live := x.liveGroups()
	if dead := len(x.groups) - live; dead < minDeadGroups || dead < live {
		return
	}
	remap := make([]int32, len(x.groups))
	kept := x.groups[:0]
	clear(x.bySig)
	for i, g := range x.groups {
		if g.live == 0 {
			remap[i] = -1
			continue
		}
		remap[i] = int32(len(kept))
		x.bySig[g.sig] = int32(len(kept))
		kept = append(kept, g)
	}
	clear(x.groups[len(kept):])
	x.groups = kept
	for i := range x.entries {
		x.entries[i].group = remap[x.entries[i].group]
	}
	for id, g := range x.absorbed {
		if remap[g] < 0 {
			delete(x.absorbed, id)
		} else {
			x.absorbed[id] = remap[g]
		}
	}
}

func (x *Index) liveGroups() int {
	n := 0
	for i := range x.groups {
		if x.groups[i].live > 0 {
			n++
		}
	}
	return n
}

// stackOf is r's stack: its stack field, or for an operation without one
// an error text of several lines (which may be a stack).
func stackOf(r *oplog.Record) string {
	if r.Stack != "" || r.Kind != oplog.KindOp || !strings.Contains(strings.TrimSpace(r.Error), "\n") {
		return r.Stack
	}
	return r.Error
}

// exitCode is the exit status an exit marker's data holds ("exitCode"), ""
// when it holds none.
// exitReason is the error line a program printed right before its failing
// exit, which `mcplogd run` keeps in the exit marker's data as "reason".
func exitReason(data []byte) string {
	var d struct {
		Reason string `json:"reason"`
	}
	if len(data) == 0 || json.Unmarshal(data, &d) != nil {
		return ""
	}
	return d.Reason
}

func exitCode(data []byte) string {
	var d struct {
		ExitCode *int `json:"exitCode"`
	}
	if len(data) == 0 || json.Unmarshal(data, &d) != nil || d.ExitCode == nil {
		return ""
	}
	return strconv.Itoa(*d.ExitCode)
}
