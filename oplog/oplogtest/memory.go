package oplogtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"sort"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Memory is an oplog.Store that keeps its records in a slice, the reference
// that TestStore's expectations are checked against. It is written to be
// obviously correct rather than fast: counters and names are recounted from
// the records at every call. It is safe for concurrent use.
type Memory struct {
	mu     sync.Mutex
	closed bool
	recs   []oplog.Record             // ascending IDs
	s      oplog.Stats                // Revision, GenStart, LastID and the trim counters; the rest is recounted
	pos    map[string][]byte          // positions by key; kept by Clear and Trim
	runs   map[string][]oplog.RunInfo // by source, run n at n-1; kept by Clear and Trim
	fixed  bool                       // NewMemoryRevision's: a Clear's generation is the next number, not a random one
}

var (
	_ oplog.Store    = (*Memory)(nil)
	_ oplog.RunStore = (*Memory)(nil)
)

// NewMemory returns an empty Memory with a new generation.
func NewMemory() *Memory {
	return &Memory{s: oplog.Stats{Revision: newRevision(), GenStart: 1}}
}

// NewMemoryRevision returns an empty Memory whose generation is revision
// (nonzero, below 2^52), and each Clear's the next number, for answers
// that must be the same in every run: cursors and tails carry it.
func NewMemoryRevision(revision uint64) *Memory {
	if revision == 0 || revision >= 1<<52 {
		panic("oplogtest: a fixed revision is nonzero and below 2^52")
	}
	return &Memory{s: oplog.Stats{Revision: revision, GenStart: 1}, fixed: true}
}

// newRevision returns a random nonzero generation below 2^53, as the bbolt
// store makes them.
func newRevision() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint64(b[:])&(1<<53-1) | 1
}

// Append stores copies of recs under the next IDs and sets recs[i].ID.
func (m *Memory) Append(ctx context.Context, recs []oplog.Record) error {
	return m.AppendAt(ctx, recs, nil)
}

// AppendAt is Append that also stores a copy of pos (when not nil) under
// the same lock: both or neither.
func (m *Memory) AppendAt(ctx context.Context, recs []oplog.Record, pos *oplog.Position) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return oplog.ErrClosed
	}
	if len(recs) == 0 {
		return nil
	}
	if pos != nil {
		if m.pos == nil {
			m.pos = map[string][]byte{}
		}
		m.pos[pos.Key] = append([]byte{}, pos.Value...)
	}
	for i := range recs {
		m.s.LastID++
		recs[i].ID = m.s.LastID
		m.assignRun(&recs[i])
		m.recs = append(m.recs, stored(recs[i]))
	}
	return nil
}

// Position returns a copy of the value stored under key; nil when none.
func (m *Memory) Position(key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, oplog.ErrClosed
	}
	v, ok := m.pos[key]
	if !ok {
		return nil, nil
	}
	return append([]byte{}, v...), nil
}

// Complete ends the pending operation id with c.
func (m *Memory) Complete(ctx context.Context, id uint64, c oplog.Completion) (oplog.Record, error) {
	if err := ctx.Err(); err != nil {
		return oplog.Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	i, err := m.lookup(id)
	if err != nil {
		return oplog.Record{}, err
	}
	r := stored(m.recs[i])
	if err := r.ApplyCompletion(c); err != nil {
		return oplog.Record{}, err
	}
	if r.Run > 0 {
		m.runs[r.Source][r.Run-1].Completed(&r, m.recs[i].Level)
	}
	m.recs[i] = stored(r)
	return r, nil
}

// assignRun sets r.Run as a Store must (oplog's marker.go) and counts r in
// its run. m.mu is held.
func (m *Memory) assignRun(r *oplog.Record) {
	if m.runs == nil {
		m.runs = map[string][]oplog.RunInfo{}
	}
	runs := m.runs[r.Source]
	if len(runs) == 0 || r.Kind == oplog.KindMarker && r.Name == oplog.MarkerRun {
		if len(runs) > 0 {
			runs[len(runs)-1].Next(r)
		}
		runs = append(runs, oplog.RunInfo{Source: r.Source, Run: uint64(len(runs) + 1)})
		m.runs[r.Source] = runs
	}
	info := &runs[len(runs)-1]
	r.Run = info.Run
	t := r.Time
	r.Time = nanos(t) // as stored
	info.Add(r)
	r.Time = t
}

// Runs returns the runs of source ("" every source), by source then run.
func (m *Memory) Runs(source string) ([]oplog.RunInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, oplog.ErrClosed
	}
	out := []oplog.RunInfo{}
	for src, runs := range m.runs {
		if source == "" || src == source {
			out = append(out, runs...)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Source < out[j].Source || out[i].Source == out[j].Source && out[i].Run < out[j].Run
	})
	return out, nil
}

// Run returns run of source, or for run 0 its newest; false when there is
// none.
func (m *Memory) Run(source string, run uint64) (oplog.RunInfo, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return oplog.RunInfo{}, false, oplog.ErrClosed
	}
	runs := m.runs[source]
	for i := len(runs) - 1; i >= 0; i-- {
		if run == 0 || runs[i].Run == run {
			return runs[i], true, nil
		}
	}
	return oplog.RunInfo{}, false, nil
}

// Get returns a copy of record id.
func (m *Memory) Get(id uint64) (oplog.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, err := m.lookup(id)
	if err != nil {
		return oplog.Record{}, err
	}
	return stored(m.recs[i]), nil
}

// GetMany returns the records of ids in their order, leaving out the IDs
// not stored.
func (m *Memory) GetMany(ids []uint64) ([]oplog.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, oplog.ErrClosed
	}
	out := make([]oplog.Record, 0, len(ids))
	for _, id := range ids {
		if i, err := m.lookup(id); err == nil {
			out = append(out, stored(m.recs[i]))
		}
	}
	return out, nil
}

// List answers q newest first.
func (m *Memory) List(q oplog.Query) (oplog.Page, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return oplog.Page{}, oplog.ErrClosed
	}
	var p oplog.Page
	skip := q.Offset
	for i := len(m.recs) - 1; i >= 0; i-- {
		r := &m.recs[i]
		if !q.Match(r) {
			continue
		}
		p.Total++
		switch {
		case q.Before > 0 && r.ID >= q.Before:
		case skip > 0:
			skip--
		case len(p.Records) == q.Count:
			p.More = true
		default:
			p.Records = append(p.Records, stored(*r))
		}
	}
	return p, nil
}

// Tail answers q oldest first.
func (m *Memory) Tail(q oplog.TailQuery) (oplog.Tail, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return oplog.Tail{}, oplog.ErrClosed
	}
	t := oplog.Tail{Revision: m.s.Revision, LastID: m.s.LastID}
	if !q.HasSince {
		for i := len(m.recs) - 1; i >= 0 && len(t.Lines) < q.Limit; i-- {
			if q.Match(&m.recs[i]) {
				t.Lines = append([]oplog.Record{stored(m.recs[i])}, t.Lines...)
			}
		}
		return t, nil
	}
	since := q.SinceID
	if q.Revision != 0 && q.Revision != m.s.Revision || since > m.s.LastID {
		t.Reset, since = true, m.s.GenStart-1
	}
	t.Dropped = m.s.DroppedAfter(since)
	t.LastID = max(since, m.s.LastID)
	for i := range m.recs {
		r := &m.recs[i]
		if r.ID <= since || !q.Match(r) {
			continue
		}
		if len(t.Lines) == q.Limit {
			t.More, t.LastID = true, t.Lines[len(t.Lines)-1].ID
			break
		}
		t.Lines = append(t.Lines, stored(*r))
	}
	return t, nil
}

// Stats recounts the records.
func (m *Memory) Stats() oplog.Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats()
}

func (m *Memory) stats() oplog.Stats {
	s := m.s
	for i := range m.recs {
		r := &m.recs[i]
		if s.FirstID == 0 {
			s.FirstID = r.ID
		}
		s.Records++
		s.Bytes += size(r)
		s.Counts[r.Kind][r.Level]++
	}
	return s
}

// Names recounts the records by source and name, ordered by source then name.
func (m *Memory) Names(source string) ([]oplog.NameInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, oplog.ErrClosed
	}
	byKey := map[[2]string]*oplog.NameInfo{}
	var out []oplog.NameInfo
	for i := range m.recs {
		r := &m.recs[i]
		if source != "" && r.Source != source {
			continue
		}
		n := byKey[[2]string{r.Source, r.Name}]
		if n == nil {
			n = &oplog.NameInfo{Source: r.Source, Name: r.Name, FirstSeen: r.Time, LastSeen: r.Time}
			byKey[[2]string{r.Source, r.Name}] = n
		}
		n.Counts[r.Kind][r.Level]++
		n.Total++
		if r.Time.Before(n.FirstSeen) {
			n.FirstSeen = r.Time
		}
		if r.Time.After(n.LastSeen) {
			n.LastSeen = r.Time
		}
	}
	for _, n := range byKey {
		out = append(out, *n)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Source < out[j].Source || out[i].Source == out[j].Source && out[i].Name < out[j].Name
	})
	return out, nil
}

// Neighbors returns the IDs of the records just before and after id.
func (m *Memory) Neighbors(id uint64) (prev, next uint64, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, err := m.lookup(id)
	if err != nil {
		return 0, 0, err
	}
	if i > 0 {
		prev = m.recs[i-1].ID
	}
	if i+1 < len(m.recs) {
		next = m.recs[i+1].ID
	}
	return prev, next, nil
}

// Clear removes every record and starts a new generation.
func (m *Memory) Clear(ctx context.Context) (oplog.Stats, error) {
	if err := ctx.Err(); err != nil {
		return oplog.Stats{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return oplog.Stats{}, oplog.ErrClosed
	}
	m.recs = nil
	rev := newRevision()
	if m.fixed {
		rev = m.s.Revision + 1
	}
	m.s = oplog.Stats{Revision: rev, GenStart: m.s.LastID + 1, LastID: m.s.LastID}
	return m.stats(), nil
}

// Trim removes the n oldest records as retention would, so that tests can
// see them counted as dropped.
func (m *Memory) Trim(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n = min(n, len(m.recs))
	if n == 0 {
		return
	}
	m.s.Trimmed += uint64(n)
	m.s.TrimmedThrough = m.recs[n-1].ID
	m.recs = append([]oplog.Record(nil), m.recs[n:]...)
}

// Close closes the store; later calls return oplog.ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return oplog.ErrClosed
	}
	m.closed = true
	return nil
}

// lookup returns the index of record id; ErrClosed, or ENOTFOUND saying
// why. m.mu is held.
func (m *Memory) lookup(id uint64) (int, error) {
	if m.closed {
		return 0, oplog.ErrClosed
	}
	i := sort.Search(len(m.recs), func(i int) bool { return m.recs[i].ID >= id })
	if i == len(m.recs) || m.recs[i].ID != id {
		return 0, m.s.NotFound(id)
	}
	return i, nil
}

// stored returns a copy of r that shares no memory with it and holds what
// a store that encodes records gives back: times in UTC to the nanosecond,
// empty JSON as nil.
func stored(r oplog.Record) oplog.Record {
	r.Time, r.StartTime, r.EndTime = nanos(r.Time), nanos(r.StartTime), nanos(r.EndTime)
	r.Data, r.Arguments, r.Result = clone(r.Data), clone(r.Arguments), clone(r.Result)
	return r
}

func nanos(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.Unix(0, t.UnixNano()).UTC()
}

func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}

// size is what Stats.Bytes counts of r: its text and JSON, plus a header.
func size(r *oplog.Record) uint64 {
	return uint64(12 + len(r.Source) + len(r.Name) + len(r.Text) + len(r.Stack) + len(r.Data) +
		len(r.Tool) + len(r.Arguments) + len(r.Result) + len(r.Error))
}
