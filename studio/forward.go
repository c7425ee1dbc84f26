package studio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/backoff"
	"github.com/mcplogd/mcplogd/oplog"
)

// Source is what the forwarder reads: an *oplog.Log.
type Source interface {
	Stats() oplog.Stats
	Tail(ctx context.Context, q oplog.TailQuery) (oplog.Tail, error)
	Get(ctx context.Context, id uint64) (oplog.Record, error)
	Changed() <-chan struct{}
}

// ForwardOptions configures a Forwarder. URL, Project, Machine and
// StatePath are required; a zero field otherwise means its default.
type ForwardOptions struct {
	URL     string // VictoriaLogs' root: a single node or a cluster's front
	Project string // the project stream field
	Machine string // the machine stream field
	// StatePath is the file that keeps the forwarding position (seq) and
	// the batches not reconciled yet, in the data directory.
	StatePath string

	// BatchRows and BatchBytes bound one insert request. Defaults 5,000
	// rows and 4 MiB.
	BatchRows  int
	BatchBytes int
	// Quiet and MaxDelay keep forwarding out of local bursts: sending
	// starts once no record was appended for Quiet, or once the oldest
	// record not sent has waited MaxDelay, whichever comes first; then
	// the backlog goes in full batches. Defaults 100 ms and 2 s.
	Quiet, MaxDelay time.Duration
	// Settle is how long after VictoriaLogs acknowledged rows they are
	// looked for (it buffers for about a second and writes to disk every
	// 5 s; a storage node killed before that loses them). Default 15 s.
	Settle time.Duration
	// MinBackoff and MaxBackoff bound the wait after a failed request,
	// doubled each time. Defaults 200 ms and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// Timeout bounds one request. Default 30 s.
	Timeout time.Duration
	// Retention is VictoriaLogs' -retentionPeriod: records older than it
	// are counted and not sent (VictoriaLogs would drop them). Zero: read
	// from its /flags page, 7 days when it does not say.
	Retention time.Duration

	// Logger receives the forwarder's reports; nil discards them.
	Logger *slog.Logger
	// HTTPClient sends the requests; nil: a client of its own.
	HTTPClient *http.Client
}

func (o ForwardOptions) withDefaults() ForwardOptions {
	if o.BatchRows <= 0 {
		o.BatchRows = DefaultBatchRows
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	if o.Quiet <= 0 {
		o.Quiet = DefaultQuiet
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.Settle <= 0 {
		o.Settle = DefaultSettle
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 200 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}}
	}
	return o
}

// Defaults of ForwardOptions.
const (
	DefaultBatchRows        = 5000
	DefaultBatchBytes       = 4 << 20
	DefaultSettle           = 15 * time.Second
	DefaultTimeout          = 30 * time.Second
	DefaultQuiet            = 100 * time.Millisecond
	DefaultMaxDelay         = 2 * time.Second
	defaultRetention        = 7 * 24 * time.Hour
	defaultFutureRetention  = 2 * 24 * time.Hour // VictoriaLogs' -futureRetention
	retentionMargin         = time.Hour          // not sent this close to either edge
	maxResends              = 5                  // a row missing after this many resends is given up
	maxPendingChecksPerStep = 1000
)

// Forwarder sends every record of a Source to VictoriaLogs in the
// background (see the package essay). It is safe for concurrent use.
type Forwarder struct {
	src    Source
	opts   ForwardOptions
	vl     *vlclient
	schema rowSchema

	st        state          // the loop's own
	retry     []byte         // a batch that did not reach VictoriaLogs, to send as it is
	retention time.Duration  // VictoriaLogs'; 0 until known
	attempts  map[uint64]int // resends per seq
	lag       lagSamples
	buf       []byte
	wake      time.Time // sending waits until then (lingers); zero: not waiting
	uncertain bool      // a batch's answer was lost: new batches wait until the journal is reconciled
	answering time.Time // since when VictoriaLogs has answered without a failure; zero: it failed last
	pendingAt int       // where the next look at Pending starts
	resumed   bool      // resume has run

	hold   atomic.Uint64
	mu     sync.Mutex
	status oplog.StudioStatus

	cancel context.CancelFunc
	done   chan struct{}
}

// Forward loads the forwarding state and starts forwarding src in the
// background. Errors: a bad option, a damaged state file.
func Forward(src Source, opts ForwardOptions) (*Forwarder, error) {
	o := opts.withDefaults()
	base, err := ParseURL(o.URL)
	if err != nil {
		return nil, err
	}
	if o.Project == "" || o.Machine == "" || o.StatePath == "" {
		return nil, errors.New("studio: project, machine and state path must not be empty")
	}
	st, err := loadState(o.StatePath)
	if err != nil {
		return nil, err
	}
	if st.Project != o.Project || st.Machine != o.Machine {
		if st.Project != "" {
			o.Logger.Warn("studio: project or machine changed; forwarding every retained record again under the new names",
				"was", st.Project+"/"+st.Machine, "now", o.Project+"/"+o.Machine)
		}
		st = state{Version: stateVersion, Project: o.Project, Machine: o.Machine}
	}
	f := &Forwarder{src: src, opts: o, vl: &vlclient{base: base, shown: redact(base), hc: o.HTTPClient}, st: st,
		retention: o.Retention, attempts: map[uint64]int{}, done: make(chan struct{})}
	// The signature the local crash index groups by, so the studio's
	// groups (query_crashes.go) are the same crashes.
	f.schema = rowSchema{project: o.Project, machine: o.Machine,
		signature: func(r *oplog.Record) string { s, _ := crash.RecordSignature(r); return s }}
	now := time.Now()
	if n := len(f.st.Journal); n > 0 && f.st.Journal[n-1].Acked.IsZero() {
		// Sent or not before the last stop: reconciliation will tell.
		f.st.adopt(&f.st.Journal[n-1], now, 0)
	}
	f.status = oplog.StudioStatus{URL: f.vl.shown, Project: o.Project, Machine: o.Machine, State: oplog.StudioStarting, Since: now}
	f.publish(now)
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go f.run(ctx)
	return f, nil
}

// Close stops forwarding; what was not acknowledged goes at the next start.
func (f *Forwarder) Close() error {
	f.cancel()
	<-f.done
	return nil
}

// Hold returns the highest record ID that retention may trim without
// losing a record the studio still needs (store.Options.Hold).
func (f *Forwarder) Hold() uint64 { return f.hold.Load() }

// Status reports the forwarding for store_info and /metrics.
func (f *Forwarder) Status() oplog.StudioStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.status
	if s.LagRecords > 0 && !f.lag.since.IsZero() {
		s.LagSeconds = time.Since(f.lag.since).Seconds()
	}
	return s
}

// run is the forwarding loop: send while there is something to send, wait
// for the log to change otherwise, back off after a failure.
func (f *Forwarder) run(ctx context.Context) {
	defer close(f.done)
	pause := backoff.Backoff{Min: f.opts.MinBackoff, Max: f.opts.MaxBackoff}
	tick := time.NewTicker(max(f.opts.Settle/3, 100*time.Millisecond))
	defer tick.Stop()
	for {
		changed := f.src.Changed()
		busy, err := f.step(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			wait := pause.Next()
			f.failed(err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			continue
		}
		pause.Reset()
		if busy {
			continue
		}
		var linger *time.Timer
		if !f.wake.IsZero() {
			linger = time.NewTimer(time.Until(f.wake))
		} else {
			linger = time.NewTimer(time.Hour)
		}
		select {
		case <-ctx.Done():
			linger.Stop()
			return
		case <-changed:
		case <-tick.C:
		case <-linger.C:
		}
		linger.Stop()
	}
}

// failed records err as the last error and the state as unreachable, or
// refusing when VictoriaLogs answered that it takes no rows for now.
func (f *Forwarder) failed(err error) {
	now := time.Now()
	f.answering = time.Time{}
	state, msg := oplog.StudioUnreachable, "studio: VictoriaLogs unreachable; records wait in the local log and go when it answers"
	if errors.Is(err, errRefused) {
		state, msg = oplog.StudioRefusing, "studio: VictoriaLogs refuses rows (HTTP 429 or 503: its disk is full, or it is over its ingestion limits); "+
			"records wait in the local log and go when it takes them"
	}
	f.mu.Lock()
	prev := f.status.State
	if prev != state {
		f.status.State, f.status.Since = state, now
	}
	f.status.LastError, f.status.LastErrorAt = err.Error(), now
	f.mu.Unlock()
	if prev != state {
		f.opts.Logger.Warn(msg, "url", f.vl.shown, "err", err)
	}
}

// noteError records err as the last error without changing the state.
func (f *Forwarder) noteError(err error) {
	f.answering = time.Time{}
	f.mu.Lock()
	f.status.LastError, f.status.LastErrorAt = err.Error(), time.Now()
	f.mu.Unlock()
	f.opts.Logger.Warn("studio: reconciliation failed; retried later", "err", err)
}

// publish copies the loop's state into what Status and Hold report.
func (f *Forwarder) publish(now time.Time) {
	st := f.src.Stats()
	hold := f.st.Through
	for i := range f.st.Journal {
		if b := &f.st.Journal[i]; b.Lo != 0 && b.Revision == f.st.Revision {
			hold = min(hold, b.Lo-1)
		}
	}
	f.hold.Store(hold)
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &f.status
	s.Seq, s.Reconciled, s.ForwardedID, s.PendingOps = f.st.Seq, f.st.Reconciled, f.st.Through, len(f.st.Pending)
	s.Resent, s.Lost, s.TooOld = f.st.Resent, f.st.Lost, f.st.TooOld
	s.LagRecords = 0
	if st.Revision == f.st.Revision && st.LastID > f.st.Through {
		s.LagRecords = st.LastID - f.st.Through
	}
	f.lag.observe(st.LastID, f.st.Through, now)
	state := oplog.StudioCatchingUp
	if s.LagRecords == 0 && f.retry == nil {
		state = oplog.StudioUpToDate
	}
	if s.State != state {
		if s.State == oplog.StudioUnreachable || s.State == oplog.StudioRefusing {
			f.opts.Logger.Info("studio: VictoriaLogs answers again", "url", f.vl.shown)
		}
		s.State, s.Since = state, now
	}
}

// errorf is an error of the forwarder, naming VictoriaLogs' URL.
func (f *Forwarder) errorf(format string, args ...any) error {
	return fmt.Errorf("studio %s: "+format, append([]any{f.vl.shown}, args...)...)
}
