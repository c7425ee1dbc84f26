package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// Defaults of Options.
const (
	DefaultPoll  = 250 * time.Millisecond
	DefaultQuiet = time.Second
)

// Limits of the reading loop.
const (
	// batchSize is the most records one Append carries: each Append is one
	// fsync, so a busy file is stored in batches of this many.
	batchSize = 1000
	// chunkSize is the size of one read.
	chunkSize = 256 << 10
	// passBytes bounds the bytes read before the loop looks at Close again.
	passBytes = 4 << 20
	// maxLine is the longest line held without a newline: a longer one is
	// cut there, so that a file without newlines cannot eat the memory.
	maxLine = 1 << 20
	// activePoll is how soon the file is looked at again after a read
	// found new bytes (Options.Poll when that is shorter): a file being
	// written is followed closely, an idle one is looked at every Poll.
	activePoll = 10 * time.Millisecond
	// headSize is how much of a file's beginning its identity hashes, so that
	// a recreated file that reuses the inode is told apart.
	headSize = 256
	// resumeScan bounds the records of the source looked at on Start for the
	// newest one that carries a position (other writers may share the source).
	resumeScan = 10_000
)

// Follower states, as FollowerStatus.State reports them (see
// oplog.FollowerState); a failing follower retries every Poll.
const (
	StateWaiting   = oplog.FollowerWaiting
	StateFollowing = oplog.FollowerFollowing
	StateFailing   = oplog.FollowerFailing
)

// Options configures a Follower.
type Options struct {
	Name   string        // the records' Source; required
	Path   string        // the file to follow; required. It need not exist yet.
	Parser string        // "" or "auto": detect from the first lines; else a parser name
	Poll   time.Duration // how often to look at the file when nothing changed; DefaultPoll when <= 0
	Quiet  time.Duration // flush a held entry after this long without new bytes; DefaultQuiet when <= 0
	Logger *slog.Logger  // nil: discard

	// makeParser replaces NewParser in tests.
	makeParser func() Parser
	// atEOF, when set, runs each time a read reached the end of the file,
	// before the path is looked at for a rotation (tests).
	atEOF func()
}

// Follower tails one file like `tail -F` and appends its lines to a Log: it
// survives the file not existing yet, rotation (rename and a new file) and
// truncation, holds a partial last line until its newline arrives, and
// stores the read position in the records themselves so that a restart
// neither duplicates nor skips a line.
//
// Every record it appends carries in Data (merged with what the parser set)
// "file" (the path), "offset" (the offset just past the record's last line)
// and "fileId" (device, inode and a hash of the file's first bytes). Start
// resumes from the newest such record of its source.
type Follower struct {
	log              *oplog.Log
	opts             Options
	logger           *slog.Logger
	newParser        func() (Parser, error)
	stop             chan struct{}
	done             chan struct{}
	closeOnce        sync.Once
	noFlush          bool  // set before stop is closed: end as if killed (tests)
	err              error // the final flush's error, read after done
	resume           *position
	lookedForRotated bool          // findRotated was tried for resume
	lines            atomic.Uint64 // lines read since Start
	parser           Parser
	cur              *file
	pending          []pendingEntry
	lastData         time.Time // when bytes last arrived
	flushed          bool      // the parser was flushed since lastData
	buf              []byte
	fatal            error // the Log refused for good (closed): stop
	mu               sync.Mutex
	status           oplog.FollowerStatus
}

// pendingEntry is a completed entry not yet appended, with its position:
// the file it came from, as named when it completed.
type pendingEntry struct {
	rec  oplog.Record
	end  int64
	path []byte // the path as a JSON string
	id   string
}

// file is the open file being read.
type file struct {
	f        *os.File
	path     string // the name it was opened by
	pathJSON []byte // path as a JSON string
	dev, ino uint64
	head     []byte // its first up to headSize bytes
	id       string // fileID(dev, ino, head)
	read     int64  // the offset of the next read
	partial  []byte // the bytes of an unterminated last line, from read-len(partial)
	stored   int64  // the end of the last entry appended
	size     int64  // its size when last looked at
	mtime    time.Time
}

// position is where a previous run stopped, from its newest record.
type position struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	FileID string `json:"fileId"`
}

// Start checks opts, finds where a previous follower of opts.Name stopped,
// and starts following opts.Path in a goroutine. It returns an error for a
// missing name or path, an unknown parser, or a Log that cannot be read.
func Start(l *oplog.Log, opts Options) (*Follower, error) {
	if opts.Name == "" {
		return nil, errors.New("follow: name: missing; it is the records' source")
	}
	if len(opts.Name) > oplog.MaxLabelBytes || strings.ContainsAny(opts.Name, "\x00\n\r") {
		return nil, fmt.Errorf("follow: name %q: must be at most %d bytes without line breaks", opts.Name, oplog.MaxLabelBytes)
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
	}
	if f.logger == nil {
		f.logger = slog.New(slog.DiscardHandler)
	}
	f.logger = f.logger.With("follow", opts.Name, "path", opts.Path)
	f.newParser = func() (Parser, error) { return NewParser(opts.Parser, f.fileDate) }
	if opts.makeParser != nil {
		f.newParser = func() (Parser, error) { return opts.makeParser(), nil }
	}
	p, err := f.newParser()
	if err != nil {
		return nil, fmt.Errorf("follow %s: %w", opts.Name, err)
	}
	pos, err := lastPosition(context.Background(), l, opts.Name)
	if err != nil {
		return nil, fmt.Errorf("follow %s: find where it stopped: %w", opts.Name, err)
	}
	f.resume = pos
	now := time.Now().UTC()
	f.status = oplog.FollowerStatus{Name: opts.Name, Path: opts.Path, Parser: p.Name(), State: StateWaiting, Since: now}
	go f.run()
	return f, nil
}

// lastPosition returns the position in the newest record of source that
// carries one, or nil when there is none.
func lastPosition(ctx context.Context, l *oplog.Log, source string) (*position, error) {
	// Without an index, List walks the store backwards until a record
	// matches: ask the names table first whether any will.
	names, err := l.Names(ctx, source)
	if err != nil {
		return nil, err
	}
	var lines uint64
	for i := range names {
		lines += names[i].Count(oplog.KindLine, 0)
	}
	if lines == 0 {
		return nil, nil
	}
	q := oplog.Query{Filter: oplog.Filter{Source: source, Kind: oplog.KindLine}, Count: 1}
	for seen := 0; seen < resumeScan; {
		page, err := l.List(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range page.Records {
			if pos := positionOf(page.Records[i].Data); pos != nil {
				return pos, nil
			}
		}
		seen += len(page.Records)
		if !page.More || len(page.Records) == 0 {
			return nil, nil
		}
		q.Before = page.Records[len(page.Records)-1].ID
		q.Count = oplog.MaxListCount
	}
	return nil, nil
}

func positionOf(data json.RawMessage) *position {
	if !bytes.Contains(data, []byte(`"fileId"`)) {
		return nil
	}
	var p struct {
		File   string `json:"file"`
		Offset *int64 `json:"offset"`
		FileID string `json:"fileId"`
	}
	if json.Unmarshal(data, &p) != nil || p.Offset == nil || p.FileID == "" {
		return nil
	}
	return &position{File: p.File, Offset: *p.Offset, FileID: p.FileID}
}

// Status returns the follower's state.
func (f *Follower) Status() oplog.FollowerStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	st.Lines = f.lines.Load()
	return st
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
	timer := time.NewTimer(0)
	defer timer.Stop()
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
		wait := f.opts.Poll
		if active {
			wait = min(wait, activePoll)
		}
		if !f.flushed && !f.lastData.IsZero() {
			wait = max(min(wait, time.Until(f.lastData.Add(f.opts.Quiet))), time.Millisecond)
		}
		timer.Reset(wait)
		select {
		case <-f.stop:
		case <-timer.C:
		}
	}
	if !f.noFlush {
		f.finish()
	}
	f.closeFile()
}

// finish stores what is held at Close.
func (f *Follower) finish() {
	if f.cur != nil && f.parser != nil {
		f.addEntries(f.parser.Flush())
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
	if err != nil {
		f.setState(StateFailing, err)
		return false, false
	}
	f.setState(StateFollowing, nil)
	if n > 0 {
		f.lastData = time.Now()
		f.flushed = false
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
	if !f.flushed && time.Since(f.lastData) >= f.opts.Quiet {
		f.addEntries(f.parser.Flush())
		f.flushed = true
		_ = f.store()
	}
	return false, n > 0
}

// open opens the file at the path, or at the first open after a restart
// the file the previous run was reading. It reports whether a file is open.
func (f *Follower) open() bool {
	fh, err := os.Open(f.opts.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if f.resume != nil && !f.lookedForRotated {
			// The file was rotated away while mcplogd was down and no new one
			// exists yet: finish the old one if it can be found.
			f.lookedForRotated = true
			if old := f.findRotated(f.resume); old != nil {
				f.resume = nil
				f.switchTo(old)
				return true
			}
		}
		f.setState(StateWaiting, nil)
		return false
	}
	if err != nil {
		f.setState(StateFailing, err)
		return false
	}
	cur, err := newFile(fh, f.opts.Path)
	if err != nil {
		fh.Close()
		f.setState(StateFailing, err)
		return false
	}
	if pos := f.resume; pos != nil {
		f.resume = nil
		switch {
		case cur.is(pos.FileID) && cur.size >= pos.Offset:
			cur.read, cur.stored = pos.Offset, pos.Offset
			f.logger.Info("follow: resuming", "offset", pos.Offset)
		case cur.is(pos.FileID):
			f.logger.Info("follow: the file was truncated while stopped; reading it from the start", "offset", pos.Offset, "size", cur.size)
		default:
			if old := f.findRotated(pos); old != nil {
				fh.Close()
				f.switchTo(old)
				return true
			}
			f.logger.Info("follow: another file than when stopped; reading it from the start")
		}
	}
	f.switchTo(cur)
	return true
}

// findRotated looks in the path's directory for the file that pos names
// (moved to a rotation name such as Editor-prev.log or app.log.1) with
// bytes after pos.Offset, opened at pos.Offset; nil when there is none.
func (f *Follower) findRotated(pos *position) *file {
	dev, ino, _, _, ok := parseFileID(pos.FileID)
	if !ok {
		return nil
	}
	dir := filepath.Dir(f.opts.Path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok || uint64(st.Dev) != dev || st.Ino != ino || info.Size() < pos.Offset {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fh, err := os.Open(path)
		if err != nil {
			continue
		}
		cur, err := newFile(fh, path)
		if err != nil || !cur.is(pos.FileID) {
			fh.Close()
			continue
		}
		cur.read, cur.stored = pos.Offset, pos.Offset
		f.logger.Info("follow: finishing the file rotated away while stopped", "rotated", path, "offset", pos.Offset, "size", cur.size)
		return cur
	}
	return nil
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
	f.lastData, f.flushed = time.Time{}, true
	f.mu.Lock()
	f.status.Offset, f.status.Size, f.status.Parser = cur.stored, cur.size, p.Name()
	f.mu.Unlock()
	f.setState(StateFollowing, nil)
}

func newFile(fh *os.File, path string) (*file, error) {
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("%s: no inode: this platform is not supported", path)
	}
	pathJSON, err := json.Marshal(path)
	if err != nil {
		return nil, err
	}
	cur := &file{f: fh, path: path, pathJSON: pathJSON, dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(), mtime: fi.ModTime()}
	if err := cur.readHead(); err != nil {
		return nil, err
	}
	return cur, nil
}

// readHead reads the file's first up to headSize bytes and sets its ID.
func (c *file) readHead() error {
	head := make([]byte, headSize)
	n, err := c.f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return err
	}
	c.head = head[:n]
	c.id = fileID(c.dev, c.ino, c.head)
	return nil
}

// fileID names a file by device, inode and its first bytes:
// "DEV:INO:LEN:HASH", numbers in hex.
func fileID(dev, ino uint64, head []byte) string {
	h := fnv.New64a()
	h.Write(head)
	return strconv.FormatUint(dev, 16) + ":" + strconv.FormatUint(ino, 16) + ":" +
		strconv.FormatUint(uint64(len(head)), 16) + ":" + strconv.FormatUint(h.Sum64(), 16)
}

func parseFileID(id string) (dev, ino uint64, n int, sum uint64, ok bool) {
	parts := strings.Split(id, ":")
	if len(parts) != 4 {
		return 0, 0, 0, 0, false
	}
	var v [4]uint64
	for i, p := range parts {
		x, err := strconv.ParseUint(p, 16, 64)
		if err != nil {
			return 0, 0, 0, 0, false
		}
		v[i] = x
	}
	if v[2] > headSize {
		return 0, 0, 0, 0, false
	}
	return v[0], v[1], int(v[2]), v[3], true
}

// is reports whether the file is the one id names: the same device and
// inode, beginning with the same bytes.
func (c *file) is(id string) bool {
	dev, ino, n, sum, ok := parseFileID(id)
	if !ok || dev != c.dev || ino != c.ino || n > len(c.head) {
		return false
	}
	h := fnv.New64a()
	h.Write(c.head[:n])
	return h.Sum64() == sum
}

// checkReplaced notices that the file was truncated or rewritten in place
// (smaller than what was read, or beginning with other bytes) and starts
// reading it again from 0.
func (f *Follower) checkReplaced() error {
	c := f.cur
	fi, err := c.f.Stat()
	if err != nil {
		return err
	}
	c.size, c.mtime = fi.Size(), fi.ModTime()
	var why string
	switch {
	case c.size < c.read:
		why = "truncated"
	case len(c.head) > 0:
		head := make([]byte, len(c.head), headSize)
		n, err := c.f.ReadAt(head, 0)
		if err != nil && err != io.EOF {
			return err
		}
		if !bytes.Equal(head[:n], c.head) {
			why = "rewritten"
		} else if len(c.head) < headSize && c.size > int64(len(c.head)) {
			// The file was shorter than headSize: widen its identity.
			if err := c.readHead(); err != nil {
				return err
			}
		}
	case c.size > 0:
		if err := c.readHead(); err != nil {
			return err
		}
	}
	if why == "" {
		return nil
	}
	f.logger.Info("follow: the file was "+why+"; reading it from the start", "read", c.read, "size", c.size)
	f.endFile()
	if err := f.store(); err != nil {
		return err // the next pass notices again and retries
	}
	c.read, c.stored, c.partial = 0, 0, nil
	if err := c.readHead(); err != nil {
		return err
	}
	f.switchTo(c)
	return nil
}

// checkRotated notices, at the end of the current file, that the path names
// another file now. It reads what was written to the old one meanwhile,
// stores the rest of it and switches to the new one, reporting whether it did.
func (f *Follower) checkRotated() bool {
	c := f.cur
	fi, err := os.Stat(f.opts.Path)
	if err != nil {
		// Moved away and no new file yet (or removed): keep reading the
		// old one, which a writer may still hold open.
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || uint64(st.Dev) == c.dev && st.Ino == c.ino {
		return false
	}
	// Bytes written to the old file between its last read and the rename.
	for {
		n, eof, err := f.readSome()
		if err != nil || f.store() != nil {
			return false // try again at the next pass
		}
		if n == 0 || eof {
			break
		}
	}
	f.logger.Info("follow: the file was rotated; following the new one", "old", c.path, "read", c.read)
	f.endFile()
	if f.store() != nil {
		return false
	}
	f.closeFile()
	return true
}

// endFile ends the current file's content: its unterminated last line is
// a line, and the parser gives up what it holds.
func (f *Follower) endFile() {
	c := f.cur
	if len(c.partial) > 0 {
		f.line(c.partial, c.read)
		c.partial = nil
	}
	f.addEntries(f.parser.Flush())
	f.flushed = true
}

// readSome reads from the current file up to passBytes and feeds its complete
// lines to the parser. It reports the bytes read and whether it reached the
// end of the file.
func (f *Follower) readSome() (n int64, eof bool, err error) {
	c := f.cur
	if f.buf == nil {
		f.buf = make([]byte, chunkSize)
	}
	for n < passBytes {
		if len(f.pending) >= batchSize {
			if err := f.store(); err != nil {
				return n, false, err
			}
		}
		k, rerr := c.f.ReadAt(f.buf, c.read)
		if k > 0 {
			f.feed(f.buf[:k], c.read+int64(k))
			c.read += int64(k)
			n += int64(k)
		}
		if rerr == io.EOF || k == 0 {
			c.size = max(c.size, c.read)
			return n, true, nil
		}
		if rerr != nil {
			return n, false, rerr
		}
	}
	c.size = max(c.size, c.read)
	return n, false, nil
}

// feed splits chunk, which ends at offset end, into lines.
func (f *Follower) feed(chunk []byte, end int64) {
	c := f.cur
	start := end - int64(len(chunk)) // offset of chunk[0]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			c.partial = append(c.partial, chunk...)
			if len(c.partial) >= maxLine {
				f.line(c.partial, end)
				c.partial = c.partial[:0]
			}
			return
		}
		lineEnd := start + int64(i) + 1
		if len(c.partial) > 0 {
			c.partial = append(c.partial, chunk[:i]...)
			f.line(c.partial, lineEnd)
			c.partial = c.partial[:0]
		} else {
			f.line(chunk[:i], lineEnd)
		}
		chunk = chunk[i+1:]
		start = lineEnd
	}
}

// line hands one line, ending at offset end, to the parser.
func (f *Follower) line(b []byte, end int64) {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	f.lines.Add(1)
	f.addEntries(f.parser.Line(string(b), end))
}

func (f *Follower) addEntries(es []Entry) {
	c := f.cur
	for _, e := range es {
		f.pending = append(f.pending, pendingEntry{rec: e.Record, end: e.End, path: c.pathJSON, id: c.id})
	}
}

// store appends the pending entries in batches of batchSize, each record
// carrying its position.
func (f *Follower) store() error {
	if f.fatal != nil {
		return f.fatal
	}
	for len(f.pending) > 0 {
		n := min(len(f.pending), batchSize)
		recs := make([]oplog.Record, n)
		for i := range recs {
			recs[i] = f.record(&f.pending[i])
		}
		if err := f.appendBatch(recs); err != nil {
			if errors.Is(err, oplog.ErrClosed) {
				f.fatal = err
			}
			f.setState(StateFailing, err)
			return err
		}
		end := f.pending[n-1].end
		f.pending = f.pending[n:]
		if len(f.pending) == 0 {
			f.pending = nil // let the backing array go
		}
		if f.cur != nil {
			f.cur.stored = end
		}
		f.mu.Lock()
		f.status.Stored += uint64(n)
		f.status.Offset = end
		f.status.Parser = f.parser.Name() // auto detection may have chosen by now
		f.mu.Unlock()
	}
	return nil
}

// appendBatch appends recs; a record the Log refuses is made acceptable
// (cut to the limits, its parser data dropped) rather than stopping the file.
func (f *Follower) appendBatch(recs []oplog.Record) error {
	for tries := 0; ; tries++ {
		err := f.log.Append(context.Background(), recs)
		var be *oplog.BatchError
		if err == nil || !errors.As(err, &be) || be.Index >= len(recs) || tries >= len(recs) {
			return err
		}
		f.logger.Warn("follow: a record was refused; storing it cut down", "err", err)
		sanitize(&recs[be.Index], &f.pending[be.Index])
	}
}

// record makes the record of one entry: the follower's source, a level,
// text and stack within the limits, and the position in Data.
func (f *Follower) record(p *pendingEntry) oplog.Record {
	r := p.rec
	r.ID = 0
	r.Kind = oplog.KindLine
	r.Source = f.opts.Name
	if !r.Level.Valid() {
		r.Level = oplog.LevelInfo
	}
	r.Text = cut(r.Text, oplog.MaxTextBytes)
	r.Stack = cut(r.Stack, oplog.MaxStackBytes)
	r.Data = withPosition(r.Data, p)
	return r
}

// sanitize makes a refused record acceptable: it keeps the text and stack
// (valid UTF-8, within limits) and the position, and drops the rest.
func sanitize(r *oplog.Record, p *pendingEntry) {
	*r = oplog.Record{
		Kind:   oplog.KindLine,
		Source: r.Source,
		Level:  oplog.LevelInfo,
		Text:   cut(strings.ToValidUTF8(r.Text, "\uFFFD"), oplog.MaxTextBytes),
		Stack:  cut(strings.ToValidUTF8(r.Stack, "\uFFFD"), oplog.MaxStackBytes),
		Data:   withPosition(nil, p),
	}
}

// cut shortens s to at most n bytes at a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// withPosition adds "file", "offset" and "fileId" to the JSON object data.
// A "file" the parser set is kept (it may name a source file); offset and
// fileId are the follower's.
func withPosition(data json.RawMessage, p *pendingEntry) json.RawMessage {
	data = bytes.TrimSpace(data)
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		data = nil // not an object: the Log would refuse the record
	}
	if bytes.Contains(data, []byte(`"file`)) || bytes.Contains(data, []byte(`"offset"`)) {
		// Perhaps a key of ours: merge as objects.
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil {
			if _, ok := m["file"]; !ok {
				m["file"] = p.path
			}
			m["offset"] = strconv.AppendInt(nil, p.end, 10)
			m["fileId"] = strconv.AppendQuote(nil, p.id) // hex digits and colons
			if b, err := json.Marshal(m); err == nil {
				return b
			}
		}
		data = nil
	}
	out := make([]byte, 0, len(data)+len(p.path)+len(p.id)+40)
	if len(data) > 0 && len(bytes.TrimSpace(data[1:len(data)-1])) > 0 {
		out = append(out, data[:len(data)-1]...)
		out = append(out, ',')
	} else {
		out = append(out, '{')
	}
	out = append(out, `"file":`...)
	out = append(out, p.path...)
	out = append(out, `,"offset":`...)
	out = strconv.AppendInt(out, p.end, 10)
	out = append(out, `,"fileId":"`...)
	out = append(out, p.id...)
	out = append(out, `"}`...)
	return out
}

func (f *Follower) setState(state oplog.FollowerState, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if f.status.State != state {
		f.status.State, f.status.Since = state, time.Now().UTC()
		if state == StateFailing {
			f.logger.Warn("follow: failing", "err", err)
		}
	}
	f.status.Error = msg
	if state == StateWaiting {
		f.status.Offset, f.status.Size = 0, 0
	} else if f.cur != nil {
		f.status.Size = f.cur.size
	}
}
