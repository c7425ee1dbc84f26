package studio

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// opKey names an operation across machines and revisions.
type opKey struct {
	machine      string
	revision, id uint64
}

// newest says, for each row, whether it is its record's newest row.
func (c *Client) newest(ctx context.Context, rows []studioRow) ([]bool, error) {
	out := make([]bool, len(rows))
	var ids []string
	seen := map[uint64]bool{}
	for i, r := range rows {
		out[i] = r.rec.Kind != oplog.KindOp
		if !out[i] && !seen[r.rec.ID] {
			seen[r.rec.ID] = true
			ids = append(ids, strconv.FormatUint(r.rec.ID, 10))
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	maxSeq := map[opKey]uint64{}
	q := streamFilter(c.opts.Project, "", "") + " kind:=op id:in(" + strings.Join(ids, ",") + ")" +
		" | stats by (machine, revision, id) max(seq) as seq"
	err := c.query(ctx, q, func(r row) error {
		maxSeq[opKey{r["machine"], r.num("revision"), r.num("id")}] = r.num("seq")
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		if r.rec.Kind == oplog.KindOp {
			out[i] = maxSeq[opKey{r.rec.Machine, r.rec.Revision, r.rec.ID}] == r.seq
		}
	}
	return out, nil
}

// List pages the records that pass q's filter, newest first.
func (c *Client) List(ctx context.Context, q oplog.StudioListQuery) (oplog.StudioPage, error) {
	n, err := oplog.CheckLimit("count", q.Count, oplog.DefaultListCount, oplog.MaxListCount)
	if err != nil {
		return oplog.StudioPage{}, err
	}
	cur, err := oplog.ParseStudioCursor(q.Cursor)
	if err != nil {
		return oplog.StudioPage{}, err
	}
	f, _, err := searchLogsQL(oplog.SearchQuery{Filter: q.Filter})
	if err != nil {
		return oplog.StudioPage{}, err
	}
	if q.Run != 0 {
		if q.Machine == "" || q.Source == "" {
			return oplog.StudioPage{}, oplog.Errorf(oplog.EINVALID, "run: a run is one machine's source's: name the machine and the source")
		}
		f = and(f, "run:="+strconv.FormatUint(q.Run, 10))
	}
	recs, next, at, err := c.page(ctx, and(streamFilter(c.opts.Project, q.Machine, q.Source), f), cur, n)
	if err != nil {
		return oplog.StudioPage{}, err
	}
	return oplog.StudioPage{Records: recs, NextCursor: next, Cursors: at}, nil
}

// Search answers q over every machine of the project (or q.Machine).
func (c *Client) Search(ctx context.Context, q oplog.StudioSearchQuery) (oplog.StudioSearchPage, error) {
	n, err := oplog.CheckLimit("limit", q.Limit, oplog.DefaultSearchLimit, oplog.MaxSearchLimit)
	if err != nil {
		return oplog.StudioSearchPage{}, err
	}
	if q.ReplayOf != 0 {
		return oplog.StudioSearchPage{}, oplog.Errorf(oplog.EINVALID, "replayOf: replays are one machine's; not in studio scope")
	}
	cur, err := oplog.ParseStudioCursor(q.Cursor)
	if err != nil {
		return oplog.StudioSearchPage{}, err
	}
	f, tree, err := searchLogsQL(q.SearchQuery)
	if err != nil {
		return oplog.StudioSearchPage{}, err
	}
	recs, next, at, err := c.page(ctx, and(streamFilter(c.opts.Project, q.Machine, q.Source), f), cur, n)
	if err != nil {
		return oplog.StudioSearchPage{}, err
	}
	terms := oplog.HighlightWords(tree)
	out := oplog.StudioSearchPage{Hits: make([]oplog.StudioHit, len(recs)), NextCursor: next, Cursors: at}
	for i := range recs {
		out.Hits[i] = oplog.StudioHit{StudioRecord: recs[i], Fragment: oplog.Fragment(&recs[i].Record, terms)}
	}
	return out, nil
}
