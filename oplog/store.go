package oplog

import (
	"context"
	"time"
)

// Store is the durable half of the log, implemented by package store on bbolt.
// Log validates and normalises everything before it reaches a Store, so a
// Store may trust its input.
type Store interface {
	// Append assigns the next IDs to recs (setting recs[i].ID, strictly
	// increasing) and returns only after they are durable. On error none of
	// them were written.
	Append(ctx context.Context, recs []Record) error

	// AppendAt is Append that also sets the position pos.Key to pos.Value
	// in the same transaction, so that the position is durable exactly when
	// recs are (see Position). recs is not empty; pos is valid.
	AppendAt(ctx context.Context, recs []Record, pos *Position) error

	// Position returns the value the last successful AppendAt stored under
	// key, nil when none, in time independent of the records stored.
	// Retention and Clear keep positions.
	Position(key string) ([]byte, error)

	// Complete ends the pending operation id with c, applied by
	// Record.ApplyCompletion, and returns the updated record. ENOTFOUND when
	// there is no such record, EINVALID when it is a line, ECONFLICT when it
	// has already completed.
	Complete(ctx context.Context, id uint64, c Completion) (Record, error)

	// Get returns one record; ENOTFOUND when there is none.
	Get(id uint64) (Record, error)

	// List answers q newest first. q is normalised (Count > 0).
	List(q Query) (Page, error)

	// Tail answers q oldest first, without waiting. q is normalised (Limit > 0).
	Tail(q TailQuery) (Tail, error)

	// Stats returns the counters of the last committed transaction.
	Stats() Stats

	// Names returns every (source, name) with its counts, ordered by source
	// then name; source "" means every source.
	Names(source string) ([]NameInfo, error)

	// Neighbors returns the IDs of the records just before and after id
	// (0 when there is none); ENOTFOUND when id itself is not stored.
	Neighbors(id uint64) (prev, next uint64, err error)

	// Clear removes every record and starts a new generation: a new
	// Revision, GenStart after the last ID (IDs never go back), counters at zero.
	Clear(ctx context.Context) (Stats, error)

	// Close waits for pending appends and closes the file.
	Close() error
}

// Stats are a store's counters, kept in the same transaction as the records.
type Stats struct {
	Revision       uint64 // the generation: random, fixed at creation, changed when cleared
	GenStart       uint64 // the first ID of this generation
	FirstID        uint64 // the oldest retained ID; 0 when empty
	LastID         uint64 // the newest ID ever assigned; IDs never go back
	Records        uint64 // retained records
	Bytes          uint64 // encoded size of the retained records
	Counts         Counts // retained records by [Kind][Level]
	Trimmed        uint64 // records removed by retention in this generation
	TrimmedThrough uint64 // the highest ID retention removed; 0 when none
}

// Count returns the number of retained records of kind k (zero: any) at or
// above level min (zero: any).
func (s *Stats) Count(k Kind, min Level) uint64 { return s.Counts.Count(k, min) }

// NotFound is the ENOTFOUND error for a record id that is not stored,
// saying why as far as the counters tell: past the newest ID, trimmed by
// retention, or in a cleared generation.
func (s *Stats) NotFound(id uint64) error {
	switch {
	case id > s.LastID:
		return Errorf(ENOTFOUND, "no record %d: the newest ID is %d", id, s.LastID)
	case id <= s.TrimmedThrough && id >= s.GenStart:
		return Errorf(ENOTFOUND, "record %d was removed by retention (records up to %d were trimmed)", id, s.TrimmedThrough)
	case id < s.GenStart:
		return Errorf(ENOTFOUND, "record %d belongs to a cleared generation of this log", id)
	}
	return Errorf(ENOTFOUND, "no record %d", id)
}

// DroppedAfter returns how many records with IDs above since were removed by
// retention in this generation.
func (s *Stats) DroppedAfter(since uint64) uint64 {
	from := max(since, s.GenStart-1)
	if s.GenStart == 0 || s.TrimmedThrough <= from {
		return 0
	}
	return s.TrimmedThrough - from
}

// NameInfo describes one log name of one source: how many retained records
// of each kind and level carry it, and when it was first and last seen.
type NameInfo struct {
	Source    string
	Name      string
	Counts    Counts // by [Kind][Level]
	Total     uint64
	FirstSeen time.Time
	LastSeen  time.Time
}

// Count returns the number of retained records of kind k (zero: any) at or
// above level min (zero: any) with this name.
func (n *NameInfo) Count(k Kind, min Level) uint64 { return n.Counts.Count(k, min) }
