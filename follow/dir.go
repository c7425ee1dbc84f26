package follow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// DirOptions configures a DirFollower.
type DirOptions struct {
	Name string // the records' Source; required
	Dir  string // the directory; required. It need not exist yet.
	// Glob selects the files of Dir followed (path.Match syntax, on the
	// base name); "" is every file.
	Glob   string
	Parser string        // as Options.Parser, for every file
	Poll   time.Duration // how often the directory is listed; DefaultPoll when <= 0
	Quiet  time.Duration // as Options.Quiet, for every file
	// Done is how long a file read to its end must stay unchanged before
	// its follower stops; DefaultDone when <= 0.
	Done   time.Duration
	Logger *slog.Logger // nil: discard

	// fileOptions, when set, changes each file's Options (tests).
	fileOptions func(*Options)
}

// DefaultDone is DirOptions.Done's default.
const DefaultDone = 2 * time.Second

// maxDirFiles bounds the files of a directory followed at once: a
// directory of many old files is read a few at a time.
const maxDirFiles = 8

// DirFollower follows the files of a directory that appear over time, each
// once to its end: Minecraft's crash-reports/crash-*.txt, written once
// each. It lists the directory every Poll (it need not exist yet) and
// starts a Follower for each file matching Glob that was not read to its
// end before, under the same Name; a file's Follower stops once the file
// is read to its end, its records stored, and it has not changed for Done.
// A file that changes again is followed again from where it stopped; one
// whose last line has no newline stays followed (that line is not stored
// until it ends), so it holds one of the maxDirFiles places.
//
// Each file keeps its own read position (the Follower's key holds its
// absolute path), so a restart reads only what it had not stored: the
// files present when a DirFollower first runs are read once too (a
// player wants the old crash reports as well as the new), and never again.
type DirFollower struct {
	log    *oplog.Log
	opts   DirOptions
	logger *slog.Logger
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	killed bool // set before stop is closed: stop each file as if killed (tests)

	mu       sync.Mutex
	files    map[string]*Follower // by path: the files followed now
	finished map[string]fileMark  // by path: read to its end, as it was then
	ended    oplog.FollowerStatus // lines and records of the stopped followers
	state    oplog.FollowerState
	err      string
	since    time.Time
}

// fileMark is a file as it was when found read to its end.
type fileMark struct {
	size  int64
	mtime time.Time
}

// StartDir checks opts and starts following opts.Dir in a goroutine.
func StartDir(l *oplog.Log, opts DirOptions) (*DirFollower, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("follow %s: directory: missing", opts.Name)
	}
	if opts.Glob != "" {
		if _, err := filepath.Match(opts.Glob, ""); err != nil {
			return nil, fmt.Errorf("follow %s: glob %q: %w", opts.Name, opts.Glob, err)
		}
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Done <= 0 {
		opts.Done = DefaultDone
	}
	if err := checkName(opts.Name); err != nil {
		return nil, err
	}
	p, err := NewParser(opts.Parser, nil)
	if err != nil {
		return nil, fmt.Errorf("follow %s: %w", opts.Name, err)
	}
	d := &DirFollower{
		log: l, opts: opts, logger: opts.Logger,
		stop: make(chan struct{}), done: make(chan struct{}),
		files: map[string]*Follower{}, finished: map[string]fileMark{},
		state: StateWaiting, since: time.Now().UTC(),
	}
	if d.logger == nil {
		d.logger = slog.New(slog.DiscardHandler)
	}
	d.ended = oplog.FollowerStatus{Parser: p.Name()}
	go d.run()
	return d, nil
}

// Close stops every file's follower (each stores what it holds) and
// returns the first error of their Close; later calls return nil.
func (d *DirFollower) Close() error {
	var err error
	d.once.Do(func() {
		close(d.stop)
		<-d.done
		err = d.closeAll()
	})
	return err
}

// kill stops following as if the process died: what the files' parsers
// hold is not stored (tests).
func (d *DirFollower) kill() {
	d.once.Do(func() {
		d.killed = true
		close(d.stop)
		<-d.done
		_ = d.closeAll()
	})
}

func (d *DirFollower) closeAll() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for p, f := range d.files {
		if d.killed {
			f.kill()
		} else if err := f.Close(); err != nil {
			errs = append(errs, err)
		}
		d.addEnded(f.Status())
		delete(d.files, p)
	}
	return errors.Join(errs...)
}

func (d *DirFollower) run() {
	defer close(d.done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-timer.C:
		}
		d.scan()
		timer.Reset(d.opts.Poll)
	}
}

// scan lists the directory once: it stops the followers of files done and
// starts one for each file not read to its end, up to maxDirFiles at once.
func (d *DirFollower) scan() {
	ents, err := os.ReadDir(d.opts.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			d.setState(StateWaiting, nil)
		} else {
			d.setState(StateFailing, err)
		}
		return
	}
	d.setState(StateFollowing, nil)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if ok, _ := filepath.Match(d.opts.Glob, e.Name()); (ok || d.opts.Glob == "") && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // crash-YYYY-MM-DD_…: the oldest first
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		p := filepath.Join(d.opts.Dir, name)
		seen[p] = true
		d.look(p)
	}
	d.forget(seen)
}

// forget stops the followers of files removed (what they stored stays)
// and forgets the files done that are gone.
func (d *DirFollower) forget(seen map[string]bool) {
	d.mu.Lock()
	var gone []*Follower
	for p, f := range d.files {
		if !seen[p] {
			gone = append(gone, f)
			delete(d.files, p)
		}
	}
	for p := range d.finished {
		if !seen[p] {
			delete(d.finished, p)
		}
	}
	d.mu.Unlock()
	for _, f := range gone {
		_ = f.Close()
		d.mu.Lock()
		d.addEnded(f.Status())
		d.mu.Unlock()
	}
}

// look stops the follower of path when it is done, or starts one when the
// file has bytes not stored and there is room.
func (d *DirFollower) look(path string) {
	info, err := os.Stat(path)
	if err != nil {
		return // removed since listed
	}
	mark := fileMark{size: info.Size(), mtime: info.ModTime()}
	d.mu.Lock()
	f, running := d.files[path]
	prev, wasDone := d.finished[path]
	n := len(d.files)
	d.mu.Unlock()
	if running {
		st := f.Status()
		if st.State == StateFollowing && st.Offset >= mark.size && st.Size == mark.size && time.Since(mark.mtime) >= d.opts.Done {
			d.finish(path, f, mark)
		}
		return
	}
	if wasDone && prev == mark || n >= maxDirFiles {
		return
	}
	if !wasDone && d.readBefore(path, mark) {
		d.mu.Lock()
		d.finished[path] = mark
		d.mu.Unlock()
		return
	}
	d.startFile(path)
}

// readBefore reports whether the stored position of path's follower is at
// its end: the file was read whole by an earlier run. O(1): one key.
func (d *DirFollower) readBefore(path string, mark fileMark) bool {
	v, err := d.log.Position(context.Background(), positionKey(d.opts.Name, path))
	pos := positionOf(v)
	if err != nil || pos == nil || pos.Offset < mark.size {
		return false
	}
	c := openID(path)
	if c == nil {
		return false
	}
	defer c.f.Close()
	return c.is(pos.FileID)
}

func (d *DirFollower) startFile(path string) {
	opts := Options{Name: d.opts.Name, Path: path, Parser: d.opts.Parser, Poll: d.opts.Poll,
		Quiet: d.opts.Quiet, Logger: d.opts.Logger, dirFile: true}
	if d.opts.fileOptions != nil {
		d.opts.fileOptions(&opts)
	}
	f, err := Start(d.log, opts)
	if err != nil {
		d.setState(StateFailing, err)
		return
	}
	d.logger.Info("follow: a new file in the directory", "follow", d.opts.Name, "path", path)
	d.mu.Lock()
	d.files[path] = f
	delete(d.finished, path)
	d.mu.Unlock()
}

// finish stops the follower of a file read to its end.
func (d *DirFollower) finish(path string, f *Follower, mark fileMark) {
	if err := f.Close(); err != nil {
		d.setState(StateFailing, err)
		return // the file is looked at again at the next scan
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.addEnded(f.Status())
	delete(d.files, path)
	d.finished[path] = mark
}

// addEnded counts a stopped follower's lines and records; d.mu is held.
func (d *DirFollower) addEnded(st oplog.FollowerStatus) {
	d.ended.Lines += st.Lines
	d.ended.Stored += st.Stored
}

func (d *DirFollower) setState(state oplog.FollowerState, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != state {
		d.state, d.since = state, time.Now().UTC()
		if err != nil {
			d.logger.Warn("follow: failing", "follow", d.opts.Name, "dir", d.opts.Dir, "err", err)
		}
	}
	d.err = ""
	if err != nil {
		d.err = err.Error()
	}
}

// Status returns the directory's state as one follower's: Path is the
// directory and glob; Offset and Size sum the files followed now, Lines
// and Stored every file followed since start. A file's failure shows as
// the directory's.
func (d *DirFollower) Status() oplog.FollowerStatus {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.ended
	st.Name, st.Path = d.opts.Name, filepath.Join(d.opts.Dir, d.opts.Glob)
	st.State, st.Error, st.Since = d.state, d.err, d.since
	for _, f := range d.files {
		fs := f.Status()
		st.Lines += fs.Lines
		st.Stored += fs.Stored
		st.Offset += fs.Offset
		st.Size += fs.Size
		st.Parser = fs.Parser
		if fs.State == StateFailing && st.State != StateFailing {
			st.State, st.Error, st.Since = StateFailing, fs.Error, fs.Since
		}
	}
	return st
}
