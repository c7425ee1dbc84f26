package search

import (
	"sync/atomic"

	"github.com/mcplogd/mcplogd/oplog"
)

// The term sets read the store a few records at a time, each read
// bounded by its records' bytes, not only their number (see sizeHint).

// recordOverhead is about what a decoded record takes beside its text,
// JSON and labels (the oplog.Record itself).
const recordOverhead = 288

// recordBytes is about the memory a decoded record takes: its strings and
// JSON share one buffer (codec.Decode), and the Record holds them.
func recordBytes(r *oplog.Record) int64 {
	return int64(recordOverhead + len(r.Source) + len(r.Name) + len(r.Text) + len(r.Stack) + len(r.Data) +
		len(r.Tool) + len(r.Arguments) + len(r.Result) + len(r.Error))
}

// sizeHint is the largest record the recent reads met, halved by each read
// that met none as large. A read takes as many records as its room holds
// at that size, or at the store's average size if larger, between 1 and
// maxReadRecords: a store of large records is read a few at a time, one of
// small records maxReadRecords at a time.
type sizeHint struct{ v atomic.Int64 }

// limit is how many records the next read of st takes to fill room bytes.
func (h *sizeHint) limit(room int64, st oplog.Store) int {
	size := h.v.Load()
	if s := st.Stats(); s.Records > 0 {
		size = max(size, int64(s.Bytes/s.Records)+recordOverhead)
	}
	return int(min(max(room/max(size, 1), 1), maxReadRecords))
}

// saw is told the records of a read.
func (h *sizeHint) saw(recs []oplog.Record) {
	var m int64
	for i := range recs {
		m = max(m, recordBytes(&recs[i]))
	}
	h.v.Store(max(m, h.v.Load()/2))
}

// eachRecord calls fn with the stored records lo..hi, oldest first, a read
// at a time (see sizeHint; hint nil: a new one), until fn returns false.
func eachRecord(st oplog.Store, hint *sizeHint, lo, hi uint64, fn func([]oplog.Record) bool) error {
	if hint == nil {
		hint = new(sizeHint)
	}
	for since := lo - 1; since < hi; {
		lim := min(uint64(hint.limit(readBytes, st)), hi-since)
		tl, err := st.Tail(oplog.TailQuery{SinceID: since, HasSince: true, Limit: int(lim)})
		if err != nil {
			return err
		}
		hint.saw(tl.Lines)
		n := len(tl.Lines)
		for n > 0 && tl.Lines[n-1].ID > hi {
			n--
		}
		if !fn(tl.Lines[:n]) || tl.Reset || tl.LastID <= since || len(tl.Lines) == 0 {
			return nil // done, or the store moved on (cleared): nothing more here
		}
		since = tl.LastID
	}
	return nil
}
