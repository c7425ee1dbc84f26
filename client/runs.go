package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/mcplogd/mcplogd/oplog"
)

// RunsAnswer is GET /api/v1/runs's answer.
type RunsAnswer struct {
	Runs []oplog.RunInfo `json:"runs"`
}

// Runs returns the runs of source ("" every source), by source then run,
// oldest first.
func (c *Client) Runs(ctx context.Context, source string) ([]oplog.RunInfo, error) {
	return c.runs(ctx, source, "")
}

// SelectRuns returns the runs a selector (current, previous or a run
// number) picks among source's ("" every source's), as the server resolves
// it.
func (c *Client) SelectRuns(ctx context.Context, source, sel string) ([]oplog.RunInfo, error) {
	return c.runs(ctx, source, sel)
}

func (c *Client) runs(ctx context.Context, source, sel string) ([]oplog.RunInfo, error) {
	v := url.Values{}
	if source != "" {
		v.Set("source", source)
	}
	if sel != "" {
		v.Set("run", sel)
	}
	var a RunsAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/runs", v, nil, &a); err != nil {
		return nil, err
	}
	return a.Runs, nil
}

// ResolveRun turns a run selector into Filter.Runs as oplog.Log.ResolveRun
// does, the server resolving it ("" gives nil: any run).
func (c *Client) ResolveRun(ctx context.Context, source, sel string) (map[string]uint64, error) {
	if sel == "" {
		return nil, nil
	}
	runs, err := c.SelectRuns(ctx, source, sel)
	if err != nil {
		return nil, err
	}
	out := make(map[string]uint64, len(runs))
	for _, r := range runs {
		out[r.Source] = r.Run
	}
	return out, nil
}

// LastMarker returns the newest marker of one of the names (of source, ""
// any), and whether there is one, as oplog.Log.LastMarker does.
func (c *Client) LastMarker(ctx context.Context, source string, names ...string) (oplog.Record, bool, error) {
	var best oplog.Record
	for _, name := range names {
		p, err := c.List(ctx, oplog.Query{Filter: oplog.Filter{Kind: oplog.KindMarker, Name: name, Source: source}, Count: 1})
		if err != nil {
			return oplog.Record{}, false, err
		}
		if len(p.Records) > 0 && p.Records[0].ID > best.ID {
			best = p.Records[0]
		}
	}
	return best, best.ID != 0, nil
}
