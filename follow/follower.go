package follow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Options configures a Follower.
type Options struct {
	Name   string        // the records' Source; required
	Path   string        // the file to follow; required. It need not exist yet.
	Parser string        // "" or "auto": detect from the first lines; else a parser name
	Poll   time.Duration // how often to look at the file when nothing changed; DefaultPoll when <= 0
	Quiet  time.Duration // flush a held entry after this long without new bytes; DefaultQuiet when <= 0
	Logger *slog.Logger  // nil: discard
	// Previous is the previous run's file (Location.Previous): read once,
	// from its start, before Path, unless the source's newest record is in
	// it or in Path already. "": none.
	Previous string
	// RunsOwned says that another writer starts and ends the source's runs
	// (the game's process, run by mcplogd): the follower writes no run,
	// exit or end marker, and its lines join the runs that writer starts.
	RunsOwned bool

	// dirFile is set for a file of a DirFollower: it resumes only from its
	// own position, never from another file's record of the same source.
	dirFile bool

	// makeParser replaces NewParser in tests.
	makeParser func() Parser
	// atEOF, when set, runs each time a read reached the end of the file,
	// before the path is looked at for a rotation (tests).
	atEOF func()
}

// Follower tails one file like `tail -F` and appends its lines to a Log: it
// survives the file not existing yet, rotation (rename and a new file),
// truncation and a rewrite in place (the bytes just before its read offset
// are read again with every read: a rewrite starts a run, read from 0),
// holds a partial last line until its newline arrives, and
// stores its read position with its records, in the same transaction, so
// that a restart neither duplicates nor skips a line.
//
// Every record it appends carries in Data (merged with what the parser set)
// "file" (the path), "offset" (the offset just past the record's last line)
// and "fileId" (device, inode and a hash of the file's first bytes); each
// batch also stores the same three, for its last record, as the Log
// position of the follower's key (its name and absolute path), with
// "tailEnd" and "tail" (a hash of the bytes read just before tailEnd). Start
// resumes from that position, found in O(1) whatever else writes the same
// source, unless the file no longer holds those bytes (it was rewritten
// while stopped: read from 0, as a run); for a store written before
// positions were kept apart, from the newest record of its source that
// carries one.
type Follower struct {
	log              *oplog.Log
	opts             Options
	logger           *slog.Logger
	newParser        func() (Parser, error)
	stop             chan struct{}
	done             chan struct{}
	syncs            chan chan struct{} // Sync's requests
	closeOnce        sync.Once
	noFlush          bool   // set before stop is closed: end as if killed (tests)
	err              error  // the final flush's error, read after done
	posKey           string // the follower's key in the Log's positions
	resume           *position
	lookedForRotated bool          // findRotated was tried for resume
	lines            atomic.Uint64 // lines read since Start
	parser           Parser
	cur              *file
	pending          []pendingEntry
	times            readTimes // when the lines the parser holds were read
	readAt           time.Time // when the bytes being fed were read
	lastData         time.Time // when bytes last arrived
	flushed          bool      // the parser was flushed since lastData
	buf              []byte
	fatal            error // the Log refused for good (closed): stop
	mu               sync.Mutex
	status           oplog.FollowerStatus
}

// Start checks opts, finds where a previous follower of opts.Name stopped,
// and starts following opts.Path in a goroutine. It returns an error for a
// missing name or path, an unknown parser, or a Log that cannot be read.
func Start(l *oplog.Log, opts Options) (*Follower, error) {
	if err := checkName(opts.Name); err != nil {
		return nil, err
	}
	if opts.Path == "" {
		return nil, fmt.Errorf("follow %s: path: missing", opts.Name)
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	f := &Follower{
		log:    l,
		opts:   opts,
		logger: opts.Logger,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		syncs:  make(chan chan struct{}),
	}
	if f.logger == nil {
		f.logger = slog.New(slog.DiscardHandler)
	}
	f.logger = f.logger.With("follow", opts.Name, "path", opts.Path)
	f.newParser = func() (Parser, error) {
		p, err := NewParser(opts.Parser, f.fileDate)
		if err != nil {
			return nil, err
		}
		return withMarkersOwned(p, opts.RunsOwned), nil
	}
	if opts.makeParser != nil {
		f.newParser = func() (Parser, error) { return withMarkersOwned(opts.makeParser(), opts.RunsOwned), nil }
	}
	p, err := f.newParser()
	if err != nil {
		return nil, fmt.Errorf("follow %s: %w", opts.Name, err)
	}
	f.posKey = positionKey(opts.Name, opts.Path)
	source := opts.Name
	if opts.dirFile {
		source = "" // other files' records are no position of this one
	}
	pos, err := resumePosition(context.Background(), l, f.posKey, source)
	if err != nil {
		return nil, fmt.Errorf("follow %s: find where it stopped: %w", opts.Name, err)
	}
	f.resume = previousFirst(pos, opts.Path, opts.Previous)
	now := time.Now().UTC()
	f.status = oplog.FollowerStatus{Name: opts.Name, Path: opts.Path, Parser: p.Name(), State: StateWaiting, Since: now}
	go f.run()
	return f, nil
}

// checkName checks a follower's name, the records' source.
func checkName(name string) error {
	if name == "" {
		return errors.New("follow: name: missing; it is the records' source")
	}
	if len(name) > oplog.MaxLabelBytes || strings.ContainsAny(name, "\x00\n\r") {
		return fmt.Errorf("follow: name %q: must be at most %d bytes without line breaks", name, oplog.MaxLabelBytes)
	}
	return nil
}

// Close stops following: it flushes the entry the parser holds, stores it
// with whatever else was read, closes the file and returns once done. A
// partial last line is not stored: the next Start reads it again. Close
// returns the error of that last store, if any; later calls return nil.
func (f *Follower) Close() error {
	var err error
	f.closeOnce.Do(func() {
		close(f.stop)
		<-f.done
		err = f.err
	})
	return err
}

// kill stops the follower as if the process died: nothing held is stored.
func (f *Follower) kill() {
	f.closeOnce.Do(func() {
		f.noFlush = true
		close(f.stop)
		<-f.done
	})
}

func (f *Follower) stopped() bool {
	select {
	case <-f.stop:
		return true
	default:
		return false
	}
}

func (f *Follower) run() {
	defer close(f.done)
	defer f.recoverPanic()
	timer := time.NewTimer(0)
	defer timer.Stop()
	var synced []chan struct{} // Sync's requests, answered once the file is read to its end
	for !f.stopped() {
		busy, active := f.pass()
		if f.fatal != nil {
			// The Log is closed: nothing can be stored any more.
			f.err = f.fatal
			f.closeFile()
			return
		}
		if busy {
			continue
		}
		if len(synced) > 0 {
			f.flushNow()
			for _, c := range synced {
				close(c)
			}
			synced = nil
		}
		wait := f.opts.Poll
		if active {
			wait = min(wait, activePoll)
		}
		if !f.flushed && !f.lastData.IsZero() {
			quiet := f.opts.Quiet
			if waitingFor(f.parser) {
				quiet = max(quiet, reportPause)
			}
			wait = max(min(wait, time.Until(f.lastData.Add(quiet))), time.Millisecond)
		}
		timer.Reset(wait)
		select {
		case <-f.stop:
		case <-timer.C:
		case c := <-f.syncs:
			synced = append(synced, c)
		}
	}
	if !f.noFlush {
		f.finish()
	}
	f.closeFile()
}

// Sync returns once the follower has read its file to the end and stored
// every line of it, the parser's held entry too (a program that wrote the
// file has ended: a traceback's last line is whole), or when ctx ends or
// the follower stops. The game's process calls it before its exit marker,
// so that the crash its log holds is stored in the run it ended.
func (f *Follower) Sync(ctx context.Context) error {
	c := make(chan struct{})
	select {
	case f.syncs <- c:
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-c:
		return nil
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// flushNow stores what the parser holds.
func (f *Follower) flushNow() {
	if f.cur != nil && f.parser != nil && !f.flushed {
		f.addEntries(f.parser.Flush())
		f.flushed = true
		_ = f.store()
	}
}

// finish stores what is held at Close and, when it stored records, an end
// marker: mcplogd stops reading the run with no sign of how it ends (a
// line read after a restart makes it running again).
func (f *Follower) finish() {
	if f.cur != nil && f.parser != nil {
		f.addEntries(f.parser.Flush())
		f.mu.Lock()
		stored := f.status.Stored + uint64(len(f.pending))
		f.mu.Unlock()
		end := f.cur.stored
		if n := len(f.pending); n > 0 {
			end = f.pending[n-1].end
		}
		if stored > 0 && f.fatal == nil && !f.opts.dirFile && !f.opts.RunsOwned { // a crash report is read whole: no run goes on in it
			f.addEntries([]Entry{{End: end, Record: oplog.Record{Kind: oplog.KindMarker,
				Name: oplog.MarkerEnd, Time: time.Now().UTC(), Text: "run ended: mcplogd stopped following " + f.opts.Path,
				Data: []byte(`{"reason":"follower stopped"}`)}}})
		}
	}
	f.err = f.store()
	if f.err != nil && f.fatal == nil {
		f.logger.Error("follow: records lost at close", "records", len(f.pending), "err", f.err)
	}
}

func (f *Follower) closeFile() {
	if f.cur != nil {
		f.cur.f.Close()
		f.cur = nil
	}
}

// pass does one round of work and reports whether there is more to do at
// once (a read stopped before the end of the file, or a file was switched),
// and whether it read new bytes.
func (f *Follower) pass() (busy, active bool) {
	if err := f.store(); err != nil {
		return false, false
	}
	if f.cur == nil && !f.open() {
		return false, false
	}
	if err := f.checkReplaced(); err != nil {
		f.setState(StateFailing, err)
		return false, false
	}
	n, eof, err := f.readSome()
	if serr := f.store(); serr != nil {
		return false, false
	}
	if why, ok := err.(errReplaced); ok {
		if err = f.readAgain(string(why)); err == nil {
			return true, true
		}
	}
	if err != nil {
		f.setState(StateFailing, err)
		return false, false
	}
	f.setState(StateFollowing, nil)
	if n > 0 {
		f.lastData = time.Now()
		f.flushed = false
	}
	if c := f.cur; c != nil && n > 0 {
		c.quiet = false
	} else if c != nil && eof && !c.quiet {
		c.quiet, c.quietAt = true, c.mtime // from now on nothing new (checkReplaced)
	}
	if !eof {
		return true, true
	}
	if f.opts.atEOF != nil {
		f.opts.atEOF()
	}
	if f.checkRotated() {
		return true, true
	}
	if since := time.Since(f.lastData); !f.flushed && since >= f.opts.Quiet {
		f.addEntries(settle(f.parser))
		if quietFor(f.parser, f.opts.Quiet, since) {
			f.addEntries(f.parser.Flush())
			f.flushed = true
		}
		_ = f.store()
	}
	return false, n > 0
}

// fileDate is the modification time of the file read (local time), as
// last looked at: parsers date the lines that carry only a time of day by it.
func (f *Follower) fileDate() time.Time {
	if f.cur == nil {
		return time.Now()
	}
	return f.cur.mtime
}

// switchTo makes cur the file read, with a new parser.
func (f *Follower) switchTo(cur *file) {
	p, err := f.newParser()
	if err != nil {
		// Start made one with the same name: this cannot fail.
		panic("BUG: follow: parser: " + err.Error())
	}
	f.cur, f.parser = cur, p
	f.times.reset()
	f.lastData, f.flushed = time.Time{}, true
	f.mu.Lock()
	f.status.Offset, f.status.Size, f.status.Parser = cur.stored, cur.size, p.Name()
	f.mu.Unlock()
	f.setState(StateFollowing, nil)
}

// recoverPanic keeps a parser's bug from ending the whole process: the
// follower stops, failing, with the panic in its status and the log, and
// the rest of mcplogd goes on. What it stored stays; a restart resumes.
func (f *Follower) recoverPanic() {
	r := recover()
	if r == nil {
		return
	}
	err := fmt.Errorf("BUG: following stopped: %v", r)
	f.logger.Error("BUG: a follower panicked; it stopped", "panic", r, "stack", string(debug.Stack()))
	f.err = err
	f.setState(StateFailing, err)
	f.closeFile()
}
