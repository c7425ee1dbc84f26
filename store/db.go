package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/migrations"
	"github.com/mcplogd/mcplogd/oplog"
)

// Options configures a DB. A nil *Options means defaults; a zero field means
// its documented default.
type Options struct {
	// Timeout is how long Open waits for another process's lock on the file
	// before failing with ErrLocked. Default 1s.
	Timeout time.Duration

	// MaxRecords, MaxBytes and MaxAge bound what is kept (zero: no limit);
	// the oldest records are trimmed in the background. MaxBytes counts the
	// records' encoded size (the file shrinks only by compaction, compact.go). Hold (nil: none) is the highest
	// ID MaxRecords and MaxAge may trim: the rest (not forwarded yet) waits for MaxBytes.
	MaxRecords uint64
	MaxBytes   uint64
	MaxAge     time.Duration
	Hold       func() uint64

	// RetentionInterval is how often MaxAge is checked. Default one minute,
	// or MaxAge/10 when that is shorter.
	RetentionInterval time.Duration

	// TrimBatch is how many records one retention transaction removes at
	// most, so that trimming never holds the writer lock for long. Default 10,000.
	TrimBatch int

	// MaxCommitRecords is how many records one group commit takes at most
	// (a single larger batch still commits whole). Default 20,000.
	MaxCommitRecords int

	// Logger receives retention and error reports; nil discards them.
	Logger *slog.Logger

	// Now is the clock for retention by age; time.Now when nil.
	Now func() time.Time

	// OnCommit, when set, is called after each group commit that succeeded,
	// before its callers are answered (so an acknowledged append has been
	// reported), with what it wrote and how long it took. It runs on the
	// committer's goroutine and holds up the next commit: it must be quick.
	// Retention and Clear do not call it. Nil: none.
	OnCommit func(oplog.Commit)
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.RetentionInterval <= 0 {
		o.RetentionInterval = DefaultRetentionInterval
		if o.MaxAge > 0 {
			o.RetentionInterval = min(o.RetentionInterval, max(o.MaxAge/10, minRetentionInterval))
		}
	}
	if o.TrimBatch <= 0 {
		o.TrimBatch = DefaultTrimBatch
	}
	if o.MaxCommitRecords <= 0 {
		o.MaxCommitRecords = DefaultMaxCommitRecords
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// DB is a bbolt-backed oplog.Store. It is safe for concurrent use.
type DB struct {
	file     atomic.Pointer[dataFile] // the open data file (use); compaction replaces it
	txBase   atomic.Uint64            // added to bbolt's transaction IDs (txID)
	writeMu  sync.Mutex               // held by each write transaction, and by a compaction
	path     string                   // bbolt forgets it at Close
	pageSize int64
	opts     Options

	stats   atomic.Pointer[oplog.Stats] // as of the last commit
	statsMu sync.Mutex                  // orders publish calls
	statsTx uint64                      // the transaction (txID) that stats come from
	names   nameCache                   // write transactions only
	blocks  blockCache                  // blocks readers decoded
	damage  damageSet                   // damaged blocks found since Open (damage.go)

	mu            sync.RWMutex // guards closed against in-flight senders
	closed        bool
	inflight      sync.WaitGroup
	reqs          chan *request
	trim          chan struct{}               // wakes the retention loop; capacity 1
	sealWake      chan struct{}               // wakes the sealer; capacity 1
	settle        chan chan struct{}          // Settle's requests to the sealer
	loose         atomic.Int64                // the loose records' bytes, as committed (update)
	txLoose       int64                       // the change to loose a write transaction makes; write transactions only
	appended      atomic.Int64                // bytes of records appended since Open (sealLoop)
	sealHold      atomic.Pointer[func() bool] // HoldSealing's
	resealFrom    uint64                      // the ID from which the sealer looks for blocks of an older format (the sealer's goroutine; reseal.go)
	compactFailed int64                       // the file's size when a compaction last failed (the sealer's goroutine)
	room          roomWatch                   // room awaited after a full disk (compact_room.go)
	stop          chan struct{}               // closed by Close to end the retention loop
	done          sync.WaitGroup
}

var _ oplog.Store = (*DB)(nil)

// Open opens or creates the bbolt file at path, applies migrations, and
// starts the committer and retention goroutines. A file held by another
// process fails with ErrLocked after opts.Timeout; a file from a newer
// mcplogd fails with migrations.ErrNewer.
func Open(path string, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o = o.withDefaults()
	if err := checkFile(path); err != nil {
		return nil, err
	}
	bdb, err := openBolt(path, o.Timeout)
	if err != nil {
		return nil, openError(path, o.Timeout, err)
	}
	// The page size read now: bbolt's Info reads its mapping, which a
	// commit that grows the file replaces.
	d := &DB{path: path, pageSize: int64(bdb.Info().PageSize), opts: o, reqs: make(chan *request, requestQueue), trim: make(chan struct{}, 1), sealWake: make(chan struct{}, 1), settle: make(chan chan struct{}), stop: make(chan struct{})}
	d.file.Store(&dataFile{db: bdb})
	if err := d.guard(d.load); err != nil {
		_ = bdb.Close()
		if (errors.Is(err, codec.ErrCorrupt) || errors.Is(err, migrations.ErrCorrupt)) && !errors.Is(err, ErrDamaged) {
			err = damaged(path, err) // the schema version, the stats record, or a record a migration reads
		}
		return nil, err
	}
	if err := d.compactAtOpen(); err != nil {
		return nil, openError(path, o.Timeout, err)
	}
	unclean, err := markOpen(path)
	if err != nil { // a directory this process may not write: no check after an unclean stop
		o.Logger.Warn("cannot mark the data file open", "path", path, "err", err)
	}
	d.done.Add(3)
	go d.commitLoop()
	go d.retentionLoop()
	go d.sealLoop()
	if unclean {
		d.done.Add(1)
		go d.checkBlocks()
	}
	d.kickRetention()
	d.sealWake <- struct{}{} // records left loose by the last run, or a store written before blocks
	return d, nil
}

// openError is the error of Open for bbolt's err opening path.
func openError(path string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return fmt.Errorf("%w: %s (no lock within %s)", ErrLocked, path, timeout)
	case errors.Is(err, ErrDamaged):
		return err
	}
	return fmt.Errorf("open %s: %w", path, err)
}

func (d *DB) load() error {
	isNew := false
	db := d.file.Load().db
	from, to, err := migrations.Apply(db, migrations.All, func(m migrations.Migration) {
		// A new file runs every step from the first; that is creation, not news.
		if isNew = isNew || m.Version == 1; !isNew {
			d.opts.Logger.Info("migrating data file", "path", d.path, "version", m.Version, "step", m.Name)
		}
	})
	if err != nil {
		return err
	}
	if from != to && from != 0 {
		d.opts.Logger.Info("data file migrated", "path", d.path, "from", from, "to", to)
	}
	if err := removeStaleCopy(d.path); err != nil {
		return err
	}
	return db.View(func(tx *bbolt.Tx) error {
		s, err := readStats(tx)
		if err != nil {
			return err
		}
		d.txBase.Store(readTxBase(tx))
		d.publish(d.txID(tx), &s)
		var loose int64
		err = tx.Bucket(codec.RecordsBucket).ForEach(func(_, v []byte) error { loose += int64(len(v)); return nil })
		d.loose.Store(loose)
		return err
	})
}

// Path returns the data file's path, also after Close.
func (d *DB) Path() string { return d.path }

// Stats returns the counters as of the last commit.
func (d *DB) Stats() oplog.Stats { return *d.stats.Load() }

// Size returns the data file's size in bytes.
func (d *DB) Size() int64 {
	var n int64
	_ = d.use(func(db *bbolt.DB) error {
		return db.View(func(tx *bbolt.Tx) error { n = tx.Size(); return nil })
	})
	return n
}

// FreeBytes is how much of the data file is free pages, which bbolt
// reuses before it grows the file (the pages of records sealed into
// blocks, of trimmed records); only a compaction (compact.go) gives them
// back.
func (d *DB) FreeBytes() int64 {
	var st bbolt.Stats
	_ = d.use(func(db *bbolt.DB) error { st = db.Stats(); return nil })
	return int64(st.FreePageN+st.PendingPageN) * d.pageSize
}

// Close waits for appends already accepted to commit, stops the background
// work and closes the file. Later calls return oplog.ErrClosed.
func (d *DB) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return oplog.ErrClosed
	}
	d.closed = true
	d.mu.Unlock()
	d.inflight.Wait()
	close(d.reqs)
	close(d.stop)
	d.done.Wait()
	err := d.file.Load().db.Close()
	if rerr := os.Remove(openMarker(d.path)); err == nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	return err
}

// publish makes s the current stats unless a later transaction already
// published its own: the committer and retention commit in turn but may
// return in either order.
func (d *DB) publish(txid uint64, s *oplog.Stats) {
	d.statsMu.Lock()
	defer d.statsMu.Unlock()
	if txid >= d.statsTx {
		d.statsTx = txid
		d.stats.Store(s)
	}
}

// errUnchanged, returned by an update's fn, rolls the transaction back
// without an error: there was nothing to write.
var errUnchanged = errors.New("unchanged")

// update runs fn in a write transaction with the stats of that transaction,
// writes the stats fn left, and publishes them once committed.
func (d *DB) update(fn func(tx *bbolt.Tx, s *oplog.Stats) error) error {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	var s oplog.Stats
	var txid uint64
	var looseAdded int64
	db := d.file.Load().db // no compaction while writeMu is held
	err := d.guard(func() error {
		return db.Update(func(tx *bbolt.Tx) error {
			var err error
			txid = d.txID(tx)
			d.txLoose = 0
			if s, err = readStats(tx); err != nil {
				return err
			}
			if err := fn(tx, &s); err != nil {
				return err
			}
			if err := writeStats(tx, &s); err != nil {
				return err
			}
			// Counted before the commit, so that no transaction sees the
			// records before d.loose does; taken back below if it fails.
			looseAdded = d.txLoose
			d.loose.Add(looseAdded)
			return nil
		})
	})
	if err != nil && looseAdded != 0 {
		d.loose.Add(-looseAdded)
	}
	if errors.Is(err, errUnchanged) {
		return nil
	}
	if err == nil {
		d.publish(txid, &s)
	}
	return err
}

func readStats(tx *bbolt.Tx) (oplog.Stats, error) {
	v := tx.Bucket(codec.MetaBucket).Get(codec.StatsKey)
	s, err := codec.DecodeStats(v)
	if err != nil {
		return s, fmt.Errorf("meta/stats: %w", err)
	}
	return s, nil
}

func writeStats(tx *bbolt.Tx, s *oplog.Stats) error {
	return tx.Bucket(codec.MetaBucket).Put(codec.StatsKey, codec.AppendStats(make([]byte, 0, 256), s))
}

// Get returns one record; ENOTFOUND (saying why) when there is none.
func (d *DB) Get(id uint64) (oplog.Record, error) {
	var r oplog.Record
	err := d.view(func(tx *bbolt.Tx, s *oplog.Stats) error {
		v, err := d.value(tx, id)
		if err != nil {
			return err
		}
		if v == nil {
			return s.NotFound(id)
		}
		if r, err = codec.Decode(id, v); isDamage(err) {
			return d.recordDamaged(id, d.damagedRecord(id, err), err)
		}
		return err
	})
	return r, err
}

// value returns the stored value of record id, loose or sealed (nil: none).
// A record in a damaged block is an error naming its run and salvage
// (recordDamaged).
func (d *DB) value(tx *bbolt.Tx, id uint64) ([]byte, error) {
	if v := tx.Bucket(codec.RecordsBucket).Get(codec.Key(id)); v != nil {
		return v, nil
	}
	bucket := tx.Bucket(codec.BlocksBucket)
	k, v := bucket.Cursor().Seek(codec.Key(id))
	if k == nil {
		return nil, nil
	}
	b, err := d.blocks.get(k, v)
	if isDamage(err) {
		if dm := d.damagedBlock(bucket, k, v, err); dm.Contains(id) {
			return nil, d.recordDamaged(id, dm, err)
		}
		return nil, nil // below the block's run: trimmed
	} else if err != nil {
		return nil, err
	}
	if i := b.Find(id); i < b.Len() && b.ID(i) == id {
		return b.Value(i), nil
	}
	for _, l := range b.Lost {
		if dm := (oplog.Damaged{From: l[0], To: l[1], File: d.path}); dm.Contains(id) {
			d.noteDamage(dm, b.LostCause)
			return nil, d.recordDamaged(id, dm, b.LostCause)
		}
	}
	return nil, nil
}

func (d *DB) isClosed() bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.closed
}

// match reports whether the encoded record v passes f, reading only what it needs.
func match(f *oplog.Filter, v []byte) (bool, error) {
	kind, level, _, t, err := codec.Header(v)
	if err != nil || !f.MatchHeader(kind, level, t) {
		return false, err
	}
	if f.Name == "" && f.Source == "" && f.Runs == nil {
		return true, nil
	}
	source, name, err := codec.SourceName(v)
	if err != nil {
		return false, err
	}
	if f.Source != "" && string(source) != f.Source || f.Name != "" && string(name) != f.Name {
		return false, nil
	}
	if f.Runs == nil {
		return true, nil
	}
	want, ok := f.Runs[string(source)]
	if !ok {
		return false, nil
	}
	run, err := codec.Run(v)
	return run == want, err
}

// List answers q newest first.
func (d *DB) List(q oplog.Query) (oplog.Page, error) {
	var p oplog.Page
	err := d.view(func(tx *bbolt.Tx, s *oplog.Stats) error {
		// Sized up front: growing by append makes twice the garbage, and
		// garbage collection is most of a read's tail latency.
		p.Records = make([]oplog.Record, 0, min(uint64(q.Count), s.Records))
		var err error
		if p.Total, err = d.total(tx, s, &q.Filter); err != nil {
			return err
		}
		_, hi, none, err := runSpan(tx, &q.Filter)
		if err != nil || none {
			return err
		}
		c := d.cursor(tx)
		var id uint64
		var v []byte
		// Start below Before and past no run's last record: with neither,
		// before wraps to 0 (from the newest).
		if before := min(q.Before-1, hi) + 1; before > 0 {
			id, v = c.below(before)
		} else {
			id, v = c.last()
		}
		p.Records, p.More, err = collect(c, id, v, c.prev, &q.Filter, q.Offset, q.Count, p.Records)
		// What the page walked: from below Before (or the newest) down to
		// its last record, or to the first when it is the last page.
		lo := uint64(0)
		if p.More {
			lo = p.Records[len(p.Records)-1].ID
		}
		p.Damaged = oplog.Crossed(c.skipped, lo, min(q.Before-1, hi))
		slices.Reverse(p.Damaged) // met newest first
		return err
	})
	return p, err
}

// total counts the records that match f: from the counters when f has no
// time bounds or runs, else by reading every record's header (and source
// and run when f names runs).
func (d *DB) total(tx *bbolt.Tx, s *oplog.Stats, f *oplog.Filter) (int64, error) {
	if !f.Since.IsZero() || !f.Until.IsZero() || f.Runs != nil {
		lo, hi, none, err := runSpan(tx, f)
		if err != nil || none {
			return 0, err
		}
		var n int64
		c := d.cursor(tx)
		for id, v := c.seek(lo); v != nil && id <= hi; id, v = c.next() {
			ok, err := match(f, v)
			if err != nil && !c.skipRecord(id, err) {
				return 0, err
			}
			if ok {
				n++
			}
		}
		return n, c.err
	}
	count := func(c *oplog.Counts) uint64 {
		n := c.Count(f.Kind, f.MinLevel)
		if f.WithMarkers && f.Kind == oplog.KindLine {
			n += c.Count(oplog.KindMarker, f.MinLevel)
		}
		return n
	}
	if f.Name == "" && f.Source == "" {
		return int64(count(&s.Counts)), nil
	}
	var n uint64
	err := eachName(tx, f.Source, f.Name, func(ni *oplog.NameInfo) { n += count(&ni.Counts) })
	return int64(n), err
}

// collect walks c from (id, v) with step, skips the first skip records
// that pass f and appends the next ones to out until it holds limit; more
// reports that another record passed f after those.
func collect(c *recCursor, id uint64, v []byte, step func() (uint64, []byte), f *oplog.Filter, skip, limit int, out []oplog.Record) (_ []oplog.Record, more bool, err error) {
	for ; v != nil; id, v = step() {
		ok, err := match(f, v)
		if err != nil && !c.skipRecord(id, err) {
			return out, false, err
		}
		if !ok {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if len(out) == limit {
			return out, true, nil
		}
		r, err := codec.Decode(id, v)
		if c.skipRecord(id, err) {
			continue
		} else if err != nil {
			return out, false, err
		}
		out = append(out, r)
	}
	return out, false, c.err
}

// Tail answers q oldest first (see oplog.TailQuery), without waiting.
func (d *DB) Tail(q oplog.TailQuery) (oplog.Tail, error) {
	var t oplog.Tail
	err := d.view(func(tx *bbolt.Tx, s *oplog.Stats) error {
		t.Revision = s.Revision
		c := d.cursor(tx)
		if !q.HasSince {
			t.LastID = s.LastID
			t.Lines = make([]oplog.Record, 0, min(uint64(q.Limit), s.Records)) // see List
			return tailNewest(c, &q, &t)
		}
		since := q.SinceID
		if q.Revision != 0 && q.Revision != s.Revision || since > s.LastID {
			// The reader's position means nothing here: start over from
			// the beginning of this generation so that no line is missed.
			t.Reset = true
			since = s.GenStart - 1
		}
		t.Dropped = s.DroppedAfter(since)
		t.LastID = max(since, s.LastID)
		t.Lines = make([]oplog.Record, 0, min(uint64(q.Limit), t.LastID-since)) // see List
		var err error
		id, v := c.seek(since + 1)
		if t.Lines, t.More, err = collect(c, id, v, c.next, &q.Filter, 0, q.Limit, t.Lines); t.More {
			t.LastID = t.Lines[len(t.Lines)-1].ID
		}
		t.Damaged = oplog.Crossed(c.skipped, since+1, t.LastID)
		return err
	})
	return t, err
}

// tailNewest collects the newest q.Limit matching records, oldest first.
func tailNewest(c *recCursor, q *oplog.TailQuery, t *oplog.Tail) error {
	// Not collect: that would read on past the last match to tell More.
	for id, v := c.last(); v != nil && len(t.Lines) < q.Limit; id, v = c.prev() {
		ok, err := match(&q.Filter, v)
		if err != nil && !c.skipRecord(id, err) {
			return err
		}
		if !ok {
			continue
		}
		r, err := codec.Decode(id, v)
		if c.skipRecord(id, err) {
			continue
		} else if err != nil {
			return err
		}
		t.Lines = append(t.Lines, r)
	}
	if c.err != nil {
		return c.err
	}
	lo := uint64(0) // what was walked: down to the oldest line, or all when fewer matched
	if len(t.Lines) == q.Limit {
		lo = t.Lines[len(t.Lines)-1].ID
	}
	t.Damaged = oplog.Crossed(c.skipped, lo, t.LastID)
	slices.Reverse(t.Damaged)
	for i, j := 0, len(t.Lines)-1; i < j; i, j = i+1, j-1 {
		t.Lines[i], t.Lines[j] = t.Lines[j], t.Lines[i]
	}
	return nil
}

// Append queues recs for the next group commit and returns once it is durable.
func (d *DB) Append(ctx context.Context, recs []oplog.Record) error {
	r := &request{recs: recs}
	return d.do(ctx, r)
}

// Complete ends a pending operation in the next group commit.
func (d *DB) Complete(ctx context.Context, id uint64, c oplog.Completion) (oplog.Record, error) {
	r := &request{completeID: id, completion: c}
	err := d.do(ctx, r)
	return r.completed, err
}

// do hands r to the committer and waits for its commit. Once queued, r is
// waited for even if ctx ends: the caller must not be told that a record
// that will be written was not.
func (d *DB) do(ctx context.Context, r *request) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.RLock()
	if d.closed {
		d.mu.RUnlock()
		return oplog.ErrClosed
	}
	d.inflight.Add(1)
	d.mu.RUnlock()
	defer d.inflight.Done()
	r.done = make(chan struct{})
	d.reqs <- r
	<-r.done
	return r.err
}
