package store

import (
	"bytes"
	"fmt"
	"math"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// Runs. The committer numbers each record's run as it assigns its ID, in
// the same transaction (oplog's marker.go says what a run is): per source,
// runs count from 1; a run marker starts the source's next run; any other
// record joins the source's current run, the last key of the source in the
// runs bucket, found by one cursor seek. Each run's RunInfo is updated in
// the transaction too. Retention leaves runs as they are (RunInfo.Records
// counts what was appended), and so does Clear: run numbers never repeat
// for a source, and a game that keeps running across a clear keeps its run.

var _ oplog.RunStore = (*DB)(nil)

type runKey struct {
	source string
	run    uint64
}

// runTally is one transaction's view of the runs bucket: the current run of
// each source it touched and the RunInfos it changed, written by flush.
type runTally struct {
	b       *bbolt.Bucket
	current map[string]uint64
	infos   map[runKey]*oplog.RunInfo
}

func newRunTally(tx *bbolt.Tx) *runTally {
	return &runTally{b: tx.Bucket(codec.RunsBucket), current: map[string]uint64{}, infos: map[runKey]*oplog.RunInfo{}}
}

// assign sets rec.Run (rec.ID is set) and counts rec in that run; a run
// marker ends the source's current run (oplog's outcome.go).
func (t *runTally) assign(rec *oplog.Record) error {
	cur, ok := t.current[rec.Source]
	if !ok {
		var err error
		if cur, err = currentRun(t.b, rec.Source); err != nil {
			return err
		}
	}
	if cur == 0 || rec.Kind == oplog.KindMarker && rec.Name == oplog.MarkerRun {
		if cur > 0 {
			prev, err := t.info(rec.Source, cur)
			if err != nil {
				return err
			}
			prev.Next(rec)
		}
		cur++
	}
	t.current[rec.Source] = cur
	rec.Run = cur
	info, err := t.info(rec.Source, cur)
	if err != nil {
		return err
	}
	info.Add(rec)
	return nil
}

// completed updates the run of rec, an operation completed in place from
// level old.
func (t *runTally) completed(rec *oplog.Record, old oplog.Level) error {
	if rec.Run == 0 {
		return nil
	}
	info, err := t.info(rec.Source, rec.Run)
	if err != nil || info.Records == 0 {
		return err
	}
	info.Completed(rec, old)
	return nil
}

// info returns the RunInfo of (source, run), read from the bucket the first
// time, a new one when the bucket has none.
func (t *runTally) info(source string, run uint64) (*oplog.RunInfo, error) {
	k := runKey{source, run}
	if info := t.infos[k]; info != nil {
		return info, nil
	}
	info := &oplog.RunInfo{Source: source, Run: run}
	key := codec.RunKey(source, run)
	if v := t.b.Get(key); v != nil {
		got, err := codec.DecodeRunInfo(key, v)
		if err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
		*info = got
	}
	t.infos[k] = info
	return info, nil
}

// flush writes the changed RunInfos.
func (t *runTally) flush() error {
	for _, info := range t.infos {
		if err := t.b.Put(codec.RunKey(info.Source, info.Run), codec.AppendRunInfo(nil, info)); err != nil {
			return err
		}
	}
	return nil
}

// currentRun returns the newest run of source in the runs bucket b, 0 when
// it has none, with one seek: its keys sort by run under its prefix.
func currentRun(b *bbolt.Bucket, source string) (uint64, error) {
	c := b.Cursor()
	last := codec.RunKey(source, math.MaxUint64)
	k, _ := c.Seek(last)
	switch {
	case k == nil:
		k, _ = c.Last()
	case !bytes.Equal(k, last):
		k, _ = c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, codec.SourcePrefix(source)) {
		return 0, nil
	}
	_, run, err := codec.DecodeRunKey(k)
	return run, err
}

// Run returns run of source, or for run 0 its newest, with one seek;
// false when there is none.
func (d *DB) Run(source string, run uint64) (oplog.RunInfo, bool, error) {
	var info oplog.RunInfo
	found := false
	err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		b := tx.Bucket(codec.RunsBucket)
		var err error
		if run == 0 {
			if run, err = currentRun(b, source); err != nil || run == 0 {
				return err
			}
		}
		k := codec.RunKey(source, run)
		v := b.Get(k)
		if v == nil {
			return nil
		}
		if info, err = codec.DecodeRunInfo(k, v); err != nil {
			return fmt.Errorf("runs: %w", err)
		}
		found = true
		return nil
	})
	return info, found, err
}

// Runs returns the runs of source ("" every source), by source then run.
func (d *DB) Runs(source string) ([]oplog.RunInfo, error) {
	out := []oplog.RunInfo{}
	err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		var prefix []byte
		if source != "" {
			prefix = codec.SourcePrefix(source)
		}
		c := tx.Bucket(codec.RunsBucket).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			info, err := codec.DecodeRunInfo(k, v)
			if err != nil {
				return fmt.Errorf("runs: %w", err)
			}
			out = append(out, info)
		}
		return nil
	})
	return out, err
}

// runSpan returns the IDs lo..hi that the runs f names can hold, from their
// RunInfos: 1..MaxUint64 when f names none (or run 0, records from before
// runs), and none when no run it names exists.
func runSpan(tx *bbolt.Tx, f *oplog.Filter) (lo, hi uint64, none bool, err error) {
	if f.Runs == nil {
		return 1, math.MaxUint64, false, nil
	}
	lo, hi, none = math.MaxUint64, 0, true
	b := tx.Bucket(codec.RunsBucket)
	for source, run := range f.Runs {
		if run == 0 {
			return 1, math.MaxUint64, false, nil
		}
		key := codec.RunKey(source, run)
		v := b.Get(key)
		if v == nil {
			continue
		}
		info, err := codec.DecodeRunInfo(key, v)
		if err != nil {
			return 0, 0, true, fmt.Errorf("runs: %w", err)
		}
		lo, hi, none = min(lo, info.FirstID), max(hi, info.LastID), false
	}
	return lo, hi, none, nil
}
