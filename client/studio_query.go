package client

import (
	"context"
	"net/http"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// StudioInfo asks GET /api/v1/studio whether the server has a studio (from
// its flags or its config.json) and which project it reads.
func (c *Client) StudioInfo(ctx context.Context) (StudioAnswer, error) {
	var a StudioAnswer
	err := c.do(ctx, http.MethodGet, "/api/v1/studio", nil, nil, &a)
	return a, err
}

// StudioSearch is Search with scope=studio: every machine of the server's
// studio project (or q.Machine), newest first, paged with NextCursor.
func (c *Client) StudioSearch(ctx context.Context, q oplog.StudioSearchQuery) (oplog.StudioSearchPage, error) {
	v := searchValues(&q.SearchQuery)
	v.Set("scope", "studio")
	if q.Machine != "" {
		v.Set("machine", q.Machine)
	}
	var a StudioRecordsAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/search", v, nil, &a); err != nil {
		return oplog.StudioSearchPage{}, err
	}
	p := oplog.StudioSearchPage{Hits: make([]oplog.StudioHit, len(a.Records)), NextCursor: a.NextCursor}
	for i, r := range a.Records {
		p.Hits[i] = oplog.StudioHit{StudioRecord: oplog.StudioRecord{Machine: r.Machine, Revision: r.Revision, Record: r.Record}, Fragment: r.Fragment}
	}
	return p, nil
}

// StudioCrashes is FindCrashes with scope=studio: groups over every
// machine of the server's studio project, with the machines of each.
func (c *Client) StudioCrashes(ctx context.Context, q oplog.StudioCrashQuery) (oplog.StudioCrashPage, error) {
	v := filterValues(&oplog.Filter{Since: q.Since, Until: q.Until, Source: q.Source})
	v.Del("kind")
	setNum(v, "limit", q.Limit)
	v.Set("scope", "studio")
	if q.Machine != "" {
		v.Set("machine", q.Machine)
	}
	if len(q.Classes) > 0 {
		v.Set("class", strings.Join(q.Classes, ","))
	}
	if q.MinLevel != 0 {
		v.Set("level", q.MinLevel.String())
	}
	var a StudioCrashesAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/crashes", v, nil, &a); err != nil {
		return oplog.StudioCrashPage{}, err
	}
	p := oplog.StudioCrashPage{Groups: make([]oplog.StudioCrashGroup, len(a.Groups)), Total: a.Total}
	for i, g := range a.Groups {
		p.Groups[i] = oplog.StudioCrashGroup{CrashGroup: g.CrashGroup, FirstMachine: g.FirstMachine, LastMachine: g.LastMachine, Machines: g.Machines}
	}
	return p, nil
}
