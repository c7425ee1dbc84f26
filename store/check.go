package store

import (
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// Check recounts the counters that every transaction keeps by hand — the
// stats (records, bytes, counts by kind and level, first and last ID) and
// each name's counts and first and last seen — from the records of one
// snapshot, with each run's RunInfo as far as the retained records tell
// (check_runs.go), and returns an error wrapping ErrInconsistent that names every
// counter that differs; nil when all agree. It reads the whole file: it is
// for tests and for repair tools, not for serving. ErrClosed after Close.
//
// First and last seen are compared exactly while nothing was trimmed in
// this generation; after retention a name keeps the times of records it no
// longer holds, so they need only bound the records that remain.
func (d *DB) Check() error {
	return d.view(func(tx *bbolt.Tx, s *oplog.Stats) error {
		var errs []error
		runs := newRunRecount()
		got, names, err := recount(tx, runs)
		if err != nil {
			return err
		}
		errs = append(errs, checkStats(s, &got)...)
		errs = append(errs, runs.check(tx)...)
		errs = append(errs, checkNames(tx, names, s.Trimmed == 0)...)
		if len(errs) == 0 {
			return nil
		}
		return fmt.Errorf("%w: %w", ErrInconsistent, errors.Join(errs...))
	})
}

// recount tallies every record of tx: stats as the committer counts them
// (Revision and the trim counters left zero, LastID the highest key) and
// the names bucket's entries by key; runs tallies the runs.
func recount(tx *bbolt.Tx, runs *runRecount) (oplog.Stats, map[string]*oplog.NameInfo, error) {
	var s oplog.Stats
	names := map[string]*oplog.NameInfo{}
	c := (&DB{}).cursor(tx)
	for id, v := c.first(); v != nil; id, v = c.next() {
		size := len(v)
		if _, _, sealed := c.inBlock(); sealed {
			size = 0 // its block's bytes are counted below
		}
		kind, level, _, t, err := codec.Header(v)
		if err != nil {
			return s, nil, fmt.Errorf("record %d: %w", id, err)
		}
		source, name, err := codec.SourceName(v)
		if err != nil {
			return s, nil, fmt.Errorf("record %d: %w", id, err)
		}
		if s.FirstID == 0 {
			s.FirstID = id
		}
		s.LastID = id
		codec.Count(&s, kind, level, size, +1)
		runs.add(id, v, string(source), level, t)
		key := string(codec.NameKey(string(source), string(name)))
		n := names[key]
		if n == nil {
			n = &oplog.NameInfo{Source: string(source), Name: string(name)}
			names[key] = n
		}
		if int(kind) < len(n.Counts) && int(level) < len(n.Counts[0]) {
			n.Counts[kind][level]++
			n.Total++
		}
		if seen := oplog.FromUnixNano(t); t != 0 && (n.FirstSeen.IsZero() || seen.Before(n.FirstSeen)) {
			n.FirstSeen = seen
		}
		if seen := oplog.FromUnixNano(t); seen.After(n.LastSeen) {
			n.LastSeen = seen
		}
	}
	if c.err != nil {
		return s, nil, c.err
	}
	if len(c.skipped) > 0 {
		dm := c.skipped[0]
		return s, nil, fmt.Errorf("%d damaged blocks, the first records %d..%d: %w", len(c.skipped), dm.From, dm.To, codec.ErrCorrupt)
	}
	err := tx.Bucket(codec.BlocksBucket).ForEach(func(_, v []byte) error {
		s.Bytes += uint64(len(v))
		return nil
	})
	return s, names, err
}

// checkStats compares the kept stats s with the recounted got.
func checkStats(s, got *oplog.Stats) []error {
	var errs []error
	differ := func(what string, kept, counted any) {
		errs = append(errs, fmt.Errorf("stats: %s is %v, the records say %v", what, kept, counted))
	}
	if s.Records != got.Records {
		differ("records", s.Records, got.Records)
	}
	if s.Bytes != got.Bytes {
		differ("bytes", s.Bytes, got.Bytes)
	}
	if s.Counts != got.Counts {
		differ("counts by kind and level", s.Counts.Map(), got.Counts.Map())
	}
	if s.FirstID != got.FirstID {
		differ("first ID", s.FirstID, got.FirstID)
	}
	if s.LastID < got.LastID {
		differ("last ID", s.LastID, fmt.Sprint("at least ", got.LastID))
	}
	if got.FirstID != 0 && (got.FirstID < s.GenStart || got.FirstID <= s.TrimmedThrough) {
		differ("first ID", got.FirstID, fmt.Sprintf("above generation start %d and trimmed through %d", s.GenStart, s.TrimmedThrough))
	}
	return errs
}

// checkNames compares the names bucket of tx with the recounted names;
// exactSeen asks first and last seen to equal the records' (see Check).
func checkNames(tx *bbolt.Tx, names map[string]*oplog.NameInfo, exactSeen bool) []error {
	var errs []error
	c := tx.Bucket(codec.NamesBucket).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		kept, err := codec.DecodeNameInfo(k, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("names %q: %w", k, err))
			continue
		}
		got := names[string(k)]
		delete(names, string(k))
		label := fmt.Sprintf("names %s/%s", kept.Source, kept.Name)
		if got == nil {
			errs = append(errs, fmt.Errorf("%s: kept with %d records, the records have none", label, kept.Total))
			continue
		}
		if kept.Counts != got.Counts || kept.Total != got.Total {
			errs = append(errs, fmt.Errorf("%s: counts %v (total %d), the records say %v (total %d)",
				label, kept.Counts.Map(), kept.Total, got.Counts.Map(), got.Total))
		}
		if !seenAgrees(kept.FirstSeen, got.FirstSeen, exactSeen, kept.FirstSeen.After) ||
			!seenAgrees(kept.LastSeen, got.LastSeen, exactSeen, kept.LastSeen.Before) {
			errs = append(errs, fmt.Errorf("%s: seen %s to %s, the records say %s to %s", label,
				kept.FirstSeen.Format(time.RFC3339Nano), kept.LastSeen.Format(time.RFC3339Nano),
				got.FirstSeen.Format(time.RFC3339Nano), got.LastSeen.Format(time.RFC3339Nano)))
		}
	}
	for _, got := range names {
		errs = append(errs, fmt.Errorf("names %s/%s: missing, the records have %d", got.Source, got.Name, got.Total))
	}
	return errs
}

// seenAgrees reports whether a kept time agrees with the recounted one:
// equal when exact, else not beyond it (wrong reports kept beyond counted).
func seenAgrees(kept, counted time.Time, exact bool, wrong func(time.Time) bool) bool {
	if exact {
		return kept.Equal(counted)
	}
	return !kept.IsZero() && !wrong(counted)
}
