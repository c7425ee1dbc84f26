package studio

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Paging. Rows are read newest first (newestFirst). VictoriaLogs finds
// every match of a filter before it sorts, so a page is asked of growing
// windows of time back from its start: the last minute, then 8 minutes,
// an hour... and at last all time. A window that holds enough rows holds
// the newest ones, since every row outside it is older than every row in
// it; an empty window costs little, as VictoriaLogs skips the days and
// blocks outside it. A cursor is (T, k): the rows at or before time T,
// from the k-th of those at exactly T. An operation has two rows
// (started, then completed, with a higher seq): a row is kept only when it
// is its record's newest, asked of VictoriaLogs for the page's operations
// at once, so a filter matches an operation as it is now and each record
// shows once. Lines and markers have one row each.

// windows are the spans of time a page looks back over, the last one
// without a bound.
var windows = []time.Duration{time.Minute, 8 * time.Minute, 64 * time.Minute, 512 * time.Minute, 4096 * time.Minute,
	32768 * time.Minute, 262144 * time.Minute, 0}

// studioRow is a decoded row and its forwarding sequence.
type studioRow struct {
	rec oplog.StudioRecord
	seq uint64
}

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

// page reads up to n records that pass filter, from cur, newest first, and
// returns them with the cursor of the next page ("" at the end) and the
// cursor that reads on from each.
func (c *Client) page(ctx context.Context, filter string, cur cursor, n int) (kept []oplog.StudioRecord, next string, at []string, err error) {
	batch := max(2*n, 64)
	upper, from := "", time.Now()
	if !cur.t.IsZero() {
		upper, from = "_time:<="+cur.t.Format(time.RFC3339Nano), cur.t
	}
	tie := ties{t: cur.t, n: cur.skip}
	read := 0 // rows of the order read past cur
	for _, w := range windows {
		lower := ""
		if w > 0 {
			lower = "_time:>=" + from.Add(-w).UTC().Format(time.RFC3339Nano)
		}
		for {
			rows, err := c.rows(ctx, and(filter, upper, lower)+" | "+newestFirst+fmt.Sprintf(" | offset %d | limit %d", cur.skip+read, batch))
			if err != nil {
				return nil, "", nil, err
			}
			newest, err := c.newest(ctx, rows)
			if err != nil {
				return nil, "", nil, err
			}
			for i := range rows {
				here := tie.at(rows[i].rec.Time)
				if !newest[i] {
					continue
				}
				if len(kept) == n {
					return kept, here.String(), at, nil
				}
				kept, at = append(kept, rows[i].rec), append(at, here.String())
			}
			read += len(rows)
			if len(rows) < batch {
				break // the window holds no more: widen it, or the end
			}
		}
	}
	return kept, "", at, nil
}

// rows runs q and decodes its rows.
func (c *Client) rows(ctx context.Context, q string) ([]studioRow, error) {
	var rows []studioRow
	err := c.query(ctx, q, func(r row) error {
		rows = append(rows, studioRow{rec: r.record(), seq: r.num("seq")})
		return nil
	})
	return rows, err
}
