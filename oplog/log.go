package oplog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// LogOptions configures a Log. A nil *LogOptions means defaults.
type LogOptions struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time

	// Logger is told what goes wrong after an append was stored (settling
	// the calls in flight of a crashed run, crashed.go); nil discards.
	Logger *slog.Logger
}

// Log is the operation log service: it validates and normalises records,
// appends them to its Store, and wakes readers waiting for new records. It is
// safe for concurrent use.
type Log struct {
	store   Store
	now     func() time.Time
	logger  *slog.Logger
	index   Index                             // full-text search; nil until SetIndex
	crashes CrashIndex                        // crash groups; nil until SetCrashes
	games   atomic.Pointer[map[string]string] // a game's other sources to its name (games.go)

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every change
	closed     bool
	stopExpire context.CancelFunc // ends ExpirePending's loop; nil until it runs

	journal  journal        // the newest completions (pending.go)
	pend     pendingOps     // the pending operations ExpirePending watches (expire.go)
	expiring sync.WaitGroup // ExpirePending's loop
}

// New returns a Log over s. The Log owns s: Close closes it.
func New(s Store, opts *LogOptions) *Log {
	l := &Log{store: s, now: time.Now, logger: slog.New(slog.DiscardHandler), changed: make(chan struct{})}
	if opts != nil && opts.Now != nil {
		l.now = opts.Now
	}
	if opts != nil && opts.Logger != nil {
		l.logger = opts.Logger
	}
	return l
}

// Close wakes every waiting reader and closes the store. Later calls return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closed = true
	close(l.changed)
	index, crashes, stopExpire := l.index, l.crashes, l.stopExpire
	l.mu.Unlock()
	if stopExpire != nil {
		stopExpire()
	}
	l.expiring.Wait()
	var errs []error
	if index != nil {
		errs = append(errs, index.Close())
	}
	if crashes != nil {
		errs = append(errs, crashes.Close())
	}
	return errors.Join(append(errs, l.store.Close())...)
}

// Changed returns a channel that is closed at the next append or completion
// (or at Close). Readers take it before reading, then wait on it.
func (l *Log) Changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

func (l *Log) notify() {
	l.mu.Lock()
	if !l.closed {
		close(l.changed)
		l.changed = make(chan struct{})
	}
	l.mu.Unlock()
}

func (l *Log) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// BatchError reports which record of a batch was refused. Nothing of the
// batch was written.
type BatchError struct {
	Index int // 0-based position in the batch
	Err   error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("record %d: %s", e.Index, ErrorMessage(e.Err))
}
func (e *BatchError) Unwrap() error { return e.Err }

// Append validates and normalises recs in place (kind, time, source, level,
// an operation's name and summary) and appends them as one durable batch,
// setting each recs[i].ID. A record that fails validation rejects the whole
// batch with a *BatchError (code EINVALID) and nothing is written. Once
// stored, an exit marker or run marker that shows a run ended crashed
// completes that run's calls in flight as crashed (crashed.go).
func (l *Log) Append(ctx context.Context, recs []Record) error {
	return l.append(ctx, recs, nil)
}

// append is Append, and AppendAt when pos is not nil.
func (l *Log) append(ctx context.Context, recs []Record, pos *Position) error {
	if len(recs) == 0 {
		return nil
	}
	if l.isClosed() {
		return ErrClosed
	}
	now := l.now().UTC()
	for i := range recs {
		if err := normalize(&recs[i], now); err != nil {
			be := &BatchError{Index: i, Err: err}
			return &Error{Code: EINVALID, Message: be.Error(), Err: be}
		}
		recs[i].Source = l.Game(recs[i].Source)
	}
	l.joinLaunches(recs)
	var err error
	if pos != nil {
		err = l.store.AppendAt(ctx, recs, pos)
	} else {
		err = l.store.Append(ctx, recs)
	}
	if err != nil {
		return err
	}
	l.pend.added(recs)
	l.notify()
	// The batch is stored whatever happens here: a failure is logged.
	if err := l.settleCrashedRuns(context.WithoutCancel(ctx), recs); err != nil && !errors.Is(err, ErrClosed) {
		l.logger.Error("completing the calls in flight of a crashed run failed", "err", err)
	}
	return nil
}

// Complete ends the pending operation id. A zero c.Status means success, or
// error when c.Error is set; a zero c.EndTime means now. ENOTFOUND for an
// unknown ID, EINVALID for a line or a bad completion, ECONFLICT when the
// operation already completed.
func (l *Log) Complete(ctx context.Context, id uint64, c Completion) (Record, error) {
	if l.isClosed() {
		return Record{}, ErrClosed
	}
	if err := normalizeCompletion(&c, l.now().UTC()); err != nil {
		return Record{}, err
	}
	r, err := l.store.Complete(ctx, id, c)
	if err != nil {
		return Record{}, err
	}
	l.journal.add(id) // after the commit, before Complete returns: see CompletedSince
	l.pend.remove(id)
	l.notify()
	return r, nil
}

// Get returns the record with the given ID; ENOTFOUND when there is none.
func (l *Log) Get(ctx context.Context, id uint64) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	if id == 0 {
		return Record{}, Errorf(EINVALID, "id: must be a positive integer")
	}
	return l.store.Get(id)
}

// Stats returns the store's counters.
func (l *Log) Stats() Stats { return l.store.Stats() }

// Names returns every (source, name) with its counts, ordered by source
// then name; source "" means every source.
func (l *Log) Names(ctx context.Context, source string) ([]NameInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.store.Names(source)
}

// Neighbors returns the IDs of the records just before and after id (0 when
// there is none); ENOTFOUND when id is not stored.
func (l *Log) Neighbors(ctx context.Context, id uint64) (prev, next uint64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	return l.store.Neighbors(id)
}

// Clear removes every record and starts a new generation (a new Revision),
// so that every tailer gets reset: true. IDs go on from the last one.
func (l *Log) Clear(ctx context.Context) (Stats, error) {
	if l.isClosed() {
		return Stats{}, ErrClosed
	}
	s, err := l.store.Clear(ctx)
	if err != nil {
		return Stats{}, err
	}
	l.pend.clear()
	l.notify()
	return s, nil
}

// AwaitComplete returns operation id once it has completed. When ctx ends
// first it returns the record as it stands with ctx's error; a line is
// returned at once.
func (l *Log) AwaitComplete(ctx context.Context, id uint64) (Record, error) {
	for {
		changed := l.Changed()
		r, err := l.Get(context.Background(), id)
		if err != nil || r.Kind != KindOp || r.IsComplete() {
			return r, err
		}
		if l.isClosed() {
			return r, ErrClosed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return r, ctx.Err()
		}
	}
}

// IsBatchError reports whether err says which record of a batch was refused,
// and returns that error.
func IsBatchError(err error) (*BatchError, bool) {
	var be *BatchError
	ok := errors.As(err, &be)
	return be, ok
}
