package store

import (
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// runRecount tallies the retained records of each (source, run) for Check.
// Records of run 0 (written before schema 6) belong to no run.
type runRecount struct {
	runs   map[runKey]*oplog.RunInfo
	newest map[string]uint64 // each source's run of its newest record so far
	errs   []error
}

func newRunRecount() *runRecount {
	return &runRecount{runs: map[runKey]*oplog.RunInfo{}, newest: map[string]uint64{}}
}

// add counts one record; records come in ID order, so a source's runs must
// not go back.
func (rc *runRecount) add(id uint64, v []byte, source string, level oplog.Level, unixNano int64) {
	run, err := codec.Run(v)
	if err != nil {
		rc.errs = append(rc.errs, fmt.Errorf("record %d: %w", id, err))
		return
	}
	if run == 0 {
		return
	}
	if run < rc.newest[source] {
		rc.errs = append(rc.errs, fmt.Errorf("record %d: run %d of %s after run %d", id, run, source, rc.newest[source]))
	}
	rc.newest[source] = max(rc.newest[source], run)
	k := runKey{source, run}
	info := rc.runs[k]
	if info == nil {
		info = &oplog.RunInfo{Source: source, Run: run, FirstID: id, Start: oplog.FromUnixNano(unixNano)}
		rc.runs[k] = info
	}
	info.LastID = id
	info.Records++
	if level >= oplog.LevelError {
		info.Errors++
	}
}

// check compares the runs bucket of tx with the tally. A run that retention
// or Clear left whole must agree exactly; one that lost records must hold
// the ones that remain within its IDs and counts.
func (rc *runRecount) check(tx *bbolt.Tx) []error {
	errs := rc.errs
	c := tx.Bucket(codec.RunsBucket).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		kept, err := codec.DecodeRunInfo(k, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("runs %q: %w", k, err))
			continue
		}
		got := rc.runs[runKey{kept.Source, kept.Run}]
		delete(rc.runs, runKey{kept.Source, kept.Run})
		switch {
		case got == nil:
		case got.Records == kept.Records && (got.FirstID != kept.FirstID || got.LastID != kept.LastID ||
			got.Errors != kept.Errors || !got.Start.Equal(kept.Start)):
			errs = append(errs, fmt.Errorf("runs %s/%d: %+v, the records say %+v", kept.Source, kept.Run, kept, *got))
		case got.Records > kept.Records || got.Errors > kept.Errors || got.FirstID < kept.FirstID || got.LastID > kept.LastID:
			errs = append(errs, fmt.Errorf("runs %s/%d: %+v cannot hold the records' %+v", kept.Source, kept.Run, kept, *got))
		}
	}
	for _, got := range rc.runs {
		errs = append(errs, fmt.Errorf("runs %s/%d: missing, the records have %d", got.Source, got.Run, got.Records))
	}
	return errs
}
