package oplogtest

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Paging, as studio.Client pages: the rows that pass a filter sorted
// newest first (then by machine, revision, ID and seq, each descending),
// a row kept only when it is its record's newest (an operation's row of
// the highest seq among all its rows, whether they pass the filter or
// not). A cursor is (T, k): the rows at or before time T, from the k-th
// of those at exactly T, so that a page reads on where the last ended
// however many newer rows came since (oplog.StudioCursor, as the Client).

// newestFirst orders rows as every studio list does.
func newestFirst(a, b *studioRow) int {
	return cmp.Or(b.rec.Time.Compare(a.rec.Time), strings.Compare(b.Machine, a.Machine), cmp.Compare(b.Revision, a.Revision),
		cmp.Compare(b.Record.ID, a.Record.ID), cmp.Compare(b.Seq, a.Seq))
}

// page returns up to n records of the rows that pass keep, from cur,
// newest first, with the cursor of the next page ("" at the end) and the
// cursor that reads on from each.
func (s *Studio) page(keep func(*studioRow) bool, cur oplog.StudioCursor, n int) (kept []oplog.StudioRecord, next string, at []string) {
	all := s.snapshot()
	maxSeq := map[opKey]uint64{}
	var rows []*studioRow
	for _, r := range all {
		if r.isOp() {
			maxSeq[r.opKey()] = max(maxSeq[r.opKey()], r.Seq)
		}
		if keep(r) && (cur.T.IsZero() || !r.rec.Time.After(cur.T)) {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, newestFirst)
	rows = rows[min(cur.Skip, len(rows)):]
	tie := oplog.StudioTies{T: cur.T, N: cur.Skip}
	for _, r := range rows {
		here := tie.At(r.rec.Time)
		if r.isOp() && maxSeq[r.opKey()] != r.Seq {
			continue
		}
		if len(kept) == n {
			return kept, here.String(), at
		}
		kept, at = append(kept, r.rec), append(at, here.String())
	}
	return kept, "", at
}
