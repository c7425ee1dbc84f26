package follow

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Sink is where Import stores records and its read position: an
// oplog.Log, or a client of a running server.
type Sink interface {
	AppendAt(ctx context.Context, recs []oplog.Record, pos oplog.Position) error
	Position(ctx context.Context, key string) ([]byte, error)
}

// ImportOptions configures Import.
type ImportOptions struct {
	Source string // the records' Source; required
	Parser string // "" or "auto": detected from the first lines; else a parser name
	File   string // the input's name, kept in each record's Data ("file"); "" for none
	// Decode, when set, reads lines of a wire format of records
	// (mcplogd's NDJSON): when the lines of the input's first 4 KiB all
	// decode, every line must, and each is a record as Decode made it;
	// otherwise the parser reads the input.
	Decode func(line []byte) (oplog.Record, error)
	// Date dates lines that carry only a time of day (the input file's
	// modification time); nil: now.
	Date func() time.Time
	// Progress, when set, is called after each stored batch with the
	// bytes read so far.
	Progress func(read int64, records int)
}

// ImportResult says what Import did.
type ImportResult struct {
	Records     int    // records appended
	First, Last uint64 // their IDs
	Skipped     int64  // bytes imported before, not read again
	Bytes       int64  // bytes of the input
	Parser      string // the parser that read it ("ndjson" for the wire format)
}

// importHead is how much of the input's beginning names it: the same
// beginning under the same source is taken for the same input (perhaps
// grown), and checked (importPosition.SHA256).
const importHead = 4 << 10

// Import reads a log, a file or standard input, once, with the parsers a
// Follower uses (run and compile markers too), and appends its records to
// s: imported records give the same records, runs and crash groups the
// same file followed gives. Its read position is stored with each batch
// under a key of the source and the file's name (standard input's: its
// first 4 KiB), with a hash of what was read, so importing the same input
// again adds nothing (Skipped is its size), an input that has grown since
// adds only what is new (a file however small), and an import that was
// cut short goes on where it stopped. An input that begins as one
// imported before but differs later (the log a game rewrote at its next
// launch) is imported whole when r can seek (a file), and refused
// otherwise.
func Import(ctx context.Context, s Sink, r io.Reader, opts ImportOptions) (ImportResult, error) {
	if err := checkName(opts.Source); err != nil {
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	in := bufio.NewReaderSize(r, chunkSize)
	head, err := in.Peek(importHead)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return ImportResult{}, err
	}
	sum := sha256.Sum256(head)
	im := &importer{s: s, opts: opts, r: r, in: in, hash: sha256.New(),
		headKey: "import\x00" + opts.Source + "\x00" + hex.EncodeToString(sum[:16])}
	im.key = im.headKey
	if k := "import\x00" + opts.Source + "\x00file\x00" + opts.File; opts.File != "" && len(k) <= oplog.MaxPositionKeyBytes {
		im.key = k // a path too long for a key (over 8 KiB) is kept by its first bytes
	}
	if opts.File != "" {
		im.file, _ = json.Marshal(opts.File)
	}
	if err := im.resume(ctx); err != nil {
		return im.res, err
	}
	if err := im.choose(head[min(len(head), int(im.res.Skipped)):]); err != nil {
		return im.res, err
	}
	im.fresh = im.res.Skipped == 0 && im.p != nil && hasRuns(ctx, s, opts.Source)
	err = im.read(ctx)
	return im.res, err
}

// importer is one Import under way.
type importer struct {
	s       Sink
	opts    ImportOptions
	r       io.Reader
	in      *bufio.Reader
	key     string    // where its position is kept: by the file's name, else by its first bytes
	headKey string    // by its first bytes, as imports of files were kept before
	hash    hash.Hash // of every byte read, from 0
	off     int64     // bytes read
	p       Parser    // nil: the wire format
	lines   lineCutter
	pending []oplog.Record
	ends    []int64
	lineNo  int
	file    []byte // opts.File as a JSON string, or nil
	res     ImportResult
	fresh   bool      // the input is read from its start into a source with runs: its first record starts a run
	last    time.Time // the time of the last record that gave one
}

// importPosition is the value of an import's position.
type importPosition struct {
	Offset int64  `json:"offset"`
	SHA256 string `json:"sha256,omitempty"` // of the first Offset bytes, once the whole input was read
}

// resume skips what an import of the same input stored before.
func (im *importer) resume(ctx context.Context) error {
	v, err := im.s.Position(ctx, im.key)
	if err == nil && v == nil && im.key != im.headKey {
		v, err = im.s.Position(ctx, im.headKey)
	}
	if err != nil || v == nil {
		return err
	}
	var pos importPosition
	if json.Unmarshal(v, &pos) != nil || pos.Offset <= 0 {
		return nil
	}
	n, err := io.CopyN(im.hash, im.in, pos.Offset)
	im.off = n
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if n == pos.Offset && (pos.SHA256 == "" || pos.SHA256 == hex.EncodeToString(im.hash.Sum(nil))) {
		im.res.Skipped = n
		return nil
	}
	// Another input with the same beginning (two runs' godot.log): read
	// it all, when it can be read again.
	seeker, ok := im.r.(io.Seeker)
	if !ok {
		return fmt.Errorf("import: an input with the same first bytes was imported into source %q before, and this one differs after them; import it from a file, or under another --source", im.opts.Source)
	}
	if _, err := seeker.Seek(0, io.SeekStart); err != nil {
		return err
	}
	im.in.Reset(im.r)
	im.hash.Reset()
	im.off = 0
	return nil
}

// choose picks the wire format, when every complete line of the input's
// head decodes (a JSON logger's lines share some of its keys, but not all
// of their lines decode), or else a parser.
func (im *importer) choose(head []byte) error {
	if im.opts.Decode != nil && allDecode(head, im.opts.Decode) {
		im.res.Parser = "ndjson"
		im.lines.limit = maxWireLine
		return nil
	}
	date := im.opts.Date
	if date == nil {
		date = time.Now
	}
	p, err := NewParser(im.opts.Parser, date)
	if err != nil {
		return err
	}
	im.p = withMarkers(p)
	return nil
}

// allDecode reports whether head has a line and each of its complete
// non-blank lines decodes.
func allDecode(head []byte, decode func([]byte) (oplog.Record, error)) bool {
	n := 0
	for {
		line, rest, ok := bytes.Cut(head, []byte{'\n'})
		if !ok && len(rest) == 0 && n > 0 {
			return true // a line cut short by the head's end
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if _, err := decode(line); err != nil {
				return false
			}
			n++
		}
		if !ok {
			return n > 0
		}
		head = rest
	}
}

// read reads the rest of the input, storing as it goes.
func (im *importer) read(ctx context.Context) error {
	buf := make([]byte, chunkSize)
	for {
		n, err := im.in.Read(buf)
		if n > 0 {
			im.hash.Write(buf[:n])
			im.off += int64(n)
			var lerr error
			im.lines.split(buf[:n], im.off, func(line []byte, end int64) {
				if lerr == nil {
					lerr = im.line(line, end)
				}
			})
			if lerr != nil {
				return lerr
			}
			if len(im.pending) >= batchSize {
				if err := im.store(ctx, false); err != nil {
					return err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if im.lines.held() {
		if err := im.line(im.lines.take(), im.off); err != nil {
			return err
		}
	}
	if im.p != nil {
		im.add(im.p.Flush())
		im.res.Parser = im.p.Name()
	}
	im.res.Bytes = im.off
	if n := len(im.pending); n > 0 && im.p != nil {
		// The run read last ends here as far as mcplogd can tell: what
		// came after it, if anything, is in no file it was given.
		end := prepare(oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerEnd, Time: im.pending[n-1].Time,
			Text: "run ended: the import reached the end of its input", Data: []byte(`{"reason":"` + oplog.ReasonImportEnded + `"}`)}, im.opts.Source)
		im.pending, im.ends = append(im.pending, end), append(im.ends, im.off)
	}
	return im.store(ctx, true)
}

// line reads one line.
func (im *importer) line(b []byte, end int64) error {
	im.lineNo++
	if im.p != nil {
		im.add(im.p.Line(cleanLine(b), end))
		return nil
	}
	if n := im.lines.lastCut; n > 0 {
		return fmt.Errorf("line %d: %d bytes is longer than a record can be (%d)", im.lineNo, n, maxWireLine)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	r, err := im.opts.Decode(b)
	if err != nil {
		return fmt.Errorf("line %d: %w", im.lineNo, err)
	}
	im.pending, im.ends = append(im.pending, r), append(im.ends, end)
	return nil
}

func (im *importer) add(es []Entry) {
	for _, e := range es {
		if im.fresh {
			im.startRun(&e)
		}
		r := prepare(e.Record, im.opts.Source)
		if r.Time.IsZero() {
			// A line without a time among lines with one (a panic, a
			// traceback amid a logger's lines) was printed after the
			// line before it, not when it is imported.
			r.Time = im.last
		} else {
			if im.last.IsZero() {
				im.backdate(r.Time)
			}
			im.last = r.Time
		}
		if im.file != nil {
			r.Data = withPosition(r.Data, &pendingEntry{end: e.End, path: im.file})
		}
		im.pending, im.ends = append(im.pending, r), append(im.ends, e.End)
	}
}

// backdate gives the records pending with no time (the run's marker, a
// header before a log's first time: logcat's "--------- beginning of
// main") the first time the log gives, not the time of the import.
func (im *importer) backdate(t time.Time) {
	for i := range im.pending {
		if im.pending[i].Time.IsZero() {
			im.pending[i].Time = t
		}
	}
}

// hasRuns reports whether source has a run already, when s can tell (an
// oplog.Log, a client of a server).
func hasRuns(ctx context.Context, s Sink, source string) bool {
	rl, ok := s.(oplog.RunLister)
	if !ok {
		return false
	}
	runs, err := rl.Runs(ctx, source)
	return err == nil && len(runs) > 0
}

// startRun begins a run with the first entry of an input read from its
// start into a source that has one, unless the entry begins one (an
// engine's banner): another log imported into a source is another
// session than the one before it (a game's log of each launch, imported
// one after the other), as a log the game rewrites or replaces is for a
// follower. Into a new source, the input's first record starts its first
// run, as when the file is followed.
func (im *importer) startRun(first *Entry) {
	im.fresh = false
	if first.Record.Kind == oplog.KindMarker && first.Record.Name == oplog.MarkerRun {
		return
	}
	what := "standard input"
	if im.opts.File != "" {
		what = im.opts.File
	}
	r := prepare(oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Time: first.Record.Time,
		Text: "run started: the import of " + what, Data: []byte(`{"reason":"import"}`)}, im.opts.Source)
	im.pending, im.ends = append(im.pending, r), append(im.ends, first.End)
}

// store appends what is pending in batches, each with the position after
// its last record; the last batch of the input says the whole was read.
func (im *importer) store(ctx context.Context, last bool) error {
	for len(im.pending) > 0 {
		n := min(len(im.pending), batchSize)
		for n < len(im.pending) && im.ends[n] == im.ends[n-1] {
			n++ // a marker and its entry go together
		}
		pos := importPosition{Offset: im.ends[n-1]}
		if last && n == len(im.pending) {
			pos = importPosition{Offset: im.off, SHA256: hex.EncodeToString(im.hash.Sum(nil))}
		}
		v, _ := json.Marshal(pos)
		batch := im.pending[:n]
		if err := im.s.AppendAt(ctx, batch, oplog.Position{Key: im.key, Value: v}); err != nil {
			return fmt.Errorf("storing records before byte %d: %w (%d records before them were stored; importing again goes on from there)", im.ends[n-1], err, im.res.Records)
		}
		if im.res.First == 0 {
			im.res.First = batch[0].ID
		}
		im.res.Last = batch[n-1].ID
		im.res.Records += n
		im.pending, im.ends = im.pending[n:], im.ends[n:]
		if im.opts.Progress != nil {
			im.opts.Progress(im.off, im.res.Records)
		}
	}
	im.pending, im.ends = nil, nil
	return nil
}
