package studio

import (
	"context"
	"fmt"
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

// page reads up to n records that pass filter, from cur, newest first, and
// returns them with the cursor of the next page ("" at the end) and the
// cursor that reads on from each.
func (c *Client) page(ctx context.Context, filter string, cur oplog.StudioCursor, n int) (kept []oplog.StudioRecord, next string, at []string, err error) {
	batch := max(2*n, 64)
	upper, from := "", time.Now()
	if !cur.T.IsZero() {
		upper, from = "_time:<="+cur.T.Format(time.RFC3339Nano), cur.T
	}
	tie := oplog.StudioTies{T: cur.T, N: cur.Skip}
	read := 0 // rows of the order read past cur
	for _, w := range windows {
		lower := ""
		if w > 0 {
			lower = "_time:>=" + from.Add(-w).UTC().Format(time.RFC3339Nano)
		}
		for {
			rows, err := c.rows(ctx, and(filter, upper, lower)+" | "+newestFirst+fmt.Sprintf(" | offset %d | limit %d", cur.Skip+read, batch))
			if err != nil {
				return nil, "", nil, err
			}
			newest, err := c.newest(ctx, rows)
			if err != nil {
				return nil, "", nil, err
			}
			for i := range rows {
				here := tie.At(rows[i].rec.Time)
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
