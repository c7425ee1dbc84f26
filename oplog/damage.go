package oplog

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
)

// Damaged is a run of record IDs, From through To, that a store could not
// read: a sealed block whose checksum or decoding failed (a flipped bit on
// the disk). Readers skip it and go on, and every answer that crossed it
// carries it (Page.Damaged, Tail.Damaged, SearchPage.Damaged), so that a
// reader knows what it did not see and how to get the rest back. Some IDs
// of the run may have been trimmed or never stored: the store cannot tell
// which, only that it holds none of them it can read.
type Damaged struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	File string `json:"file,omitempty"` // the data file's path ("" when not known)
}

// String is the marker a surface shows where its answer skipped d:
// "#a..#b unreadable: log.db is damaged there; run mcplogd salvage …".
func (d Damaged) String() string {
	if d.File == "" {
		return fmt.Sprintf("#%d..#%d unreadable: the data file is damaged there; run mcplogd salvage", d.From, d.To)
	}
	return fmt.Sprintf("#%d..#%d unreadable: %s is damaged there; run mcplogd salvage --data %s --out NEWDIR",
		d.From, d.To, filepath.Base(d.File), filepath.Dir(d.File))
}

// DamageText is the marker of each run of ds, for an answer's text and
// JSON; nil when none.
func DamageText(ds []Damaged) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// Contains reports whether id is in d's run.
func (d Damaged) Contains(id uint64) bool { return d.From <= id && id <= d.To }

// RecordDamagedError is the cause of a failed read of record ID, which is
// in the damaged run Run. Readers that go on past damage (the search
// index, the studio forwarder) test for it with IsDamaged.
type RecordDamagedError struct {
	ID  uint64
	Run Damaged
	Err error // the store's own error: what did not decode, and where
}

func (e *RecordDamagedError) Error() string {
	return fmt.Sprintf("record %d is unreadable: %s", e.ID, e.Run)
}

func (e *RecordDamagedError) Unwrap() error { return e.Err }

// RecordDamaged is the error of a read of record id in the damaged run d:
// code EDAMAGED (HTTP 500), its message naming the run and salvage (not a
// bare "internal error"), cause kept in the chain.
func RecordDamaged(id uint64, d Damaged, cause error) error {
	e := &RecordDamagedError{ID: id, Run: d, Err: cause}
	return &Error{Code: EDAMAGED, Message: e.Error(), Err: e}
}

// IsDamaged reports whether err is a read of a record in a damaged run.
func IsDamaged(err error) bool {
	var e *RecordDamagedError
	return errors.As(err, &e)
}

// DamageReporter is what a Store that skips damaged blocks adds: the runs
// it found damaged so far (by reading them, or by its background check),
// oldest first. Nil: none found.
type DamageReporter interface {
	Damage() []Damaged
}

// Crossed returns the runs of ds that share an ID with lo..hi, oldest first.
func Crossed(ds []Damaged, lo, hi uint64) []Damaged {
	var out []Damaged
	for _, d := range ds {
		if d.From <= hi && d.To >= lo {
			out = append(out, d)
		}
	}
	return out
}

// AddDamaged adds d to the runs ds (oldest first) unless a run of ds
// already starts and ends where it does, and returns them.
func AddDamaged(ds []Damaged, d Damaged) []Damaged {
	i, found := slices.BinarySearchFunc(ds, d, func(a, b Damaged) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	if found {
		return ds
	}
	return slices.Insert(ds, i, d)
}

// Damage returns the damaged runs the store found so far, oldest first;
// nil when it found none or cannot tell.
func (l *Log) Damage() []Damaged {
	if r, ok := l.store.(DamageReporter); ok {
		return r.Damage()
	}
	return nil
}

// damageIn returns the damaged runs the store knows of in the span a page
// read newest first walked: below before (zero: from the newest) down to
// last (zero: to the oldest).
func (l *Log) damageIn(before, last uint64) []Damaged {
	return Crossed(l.Damage(), last, before-1) // before 0: every ID
}
