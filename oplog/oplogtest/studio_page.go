package oplogtest

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Paging, as studio.Client pages: the rows that pass a filter sorted
// newest first (then by machine, revision, ID and seq, each descending),
// a row kept only when it is its record's newest (an operation's row of
// the highest seq among all its rows, whether they pass the filter or
// not). A cursor is (T, k): the rows at or before time T, from the k-th
// of those at exactly T, so that a page reads on where the last ended
// however many newer rows came since. Its text is the Client's.

// cursor is where a page starts: the rows at or before t (zero: the
// newest), from the skip-th of those at exactly t.
type cursor struct {
	t    time.Time
	skip int
}

func (c cursor) String() string {
	return "v" + strconv.FormatInt(c.t.UnixNano(), 10) + "." + strconv.Itoa(c.skip)
}

func decodeCursor(s string) (cursor, error) {
	if s == "" {
		return cursor{}, nil
	}
	bad := oplog.Errorf(oplog.EINVALID, "cursor: %q is not a studio cursor (pass the nextCursor of a studio answer)", s)
	ts, skip, ok := strings.Cut(strings.TrimPrefix(s, "v"), ".")
	ns, err1 := strconv.ParseInt(ts, 10, 64)
	k, err2 := strconv.Atoi(skip)
	if !ok || !strings.HasPrefix(s, "v") || err1 != nil || err2 != nil || k < 0 {
		return cursor{}, bad
	}
	return cursor{t: time.Unix(0, ns).UTC(), skip: k}, nil
}

// ties follows the rows in order to give each the cursor that starts at
// it: its time, and how many rows before it share that time.
type ties struct {
	t time.Time
	n int
}

func (x *ties) at(t time.Time) cursor {
	if !t.Equal(x.t) {
		x.t, x.n = t, 0
	}
	x.n++
	return cursor{t: t, skip: x.n - 1}
}

// newestFirst orders rows as every studio list does.
func newestFirst(a, b *studioRow) int {
	return cmp.Or(b.rec.Time.Compare(a.rec.Time), strings.Compare(b.Machine, a.Machine), cmp.Compare(b.Revision, a.Revision),
		cmp.Compare(b.Record.ID, a.Record.ID), cmp.Compare(b.Seq, a.Seq))
}

// page returns up to n records of the rows that pass keep, from cur,
// newest first, with the cursor of the next page ("" at the end) and the
// cursor that reads on from each.
func (s *Studio) page(keep func(*studioRow) bool, cur cursor, n int) (kept []oplog.StudioRecord, next string, at []string) {
	all := s.snapshot()
	maxSeq := map[opKey]uint64{}
	var rows []*studioRow
	for _, r := range all {
		if r.isOp() {
			maxSeq[r.opKey()] = max(maxSeq[r.opKey()], r.Seq)
		}
		if keep(r) && (cur.t.IsZero() || !r.rec.Time.After(cur.t)) {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, newestFirst)
	rows = rows[min(cur.skip, len(rows)):]
	tie := ties{t: cur.t, n: cur.skip}
	for _, r := range rows {
		here := tie.at(r.rec.Time)
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
