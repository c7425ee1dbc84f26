package mcptools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- list_log_names ----

type namesIn struct {
	Source string `json:"source,omitempty" jsonschema:"only names of this source; empty: every source"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most names to return; capped at 1000"`
}

type nameInfo struct {
	Name      string            `json:"name"`
	Source    string            `json:"source"`
	Total     uint64            `json:"total"`
	Counts    map[string]uint64 `json:"counts" jsonschema:"records per level (only levels that occur)"`
	FirstSeen string            `json:"firstSeen"`
	LastSeen  string            `json:"lastSeen"`
}

func newNameInfo(n *oplog.NameInfo) nameInfo {
	ni := nameInfo{Name: n.Name, Source: n.Source, Total: n.Total, Counts: map[string]uint64{},
		FirstSeen: n.FirstSeen.Format(listTime), LastSeen: n.LastSeen.Format(listTime)}
	for _, l := range oplog.Levels {
		if c := n.Count(0, l) - n.Count(0, l+1); c > 0 {
			ni.Counts[l.String()] = c
		}
	}
	return ni
}

type namesOut struct {
	Names []nameInfo `json:"names"`
	Total int        `json:"total" jsonschema:"every (source, name) pair that matched"`
	More  bool       `json:"more"`
}

func (t *toolset) listLogNames(ctx context.Context, _ *mcp.CallToolRequest, in namesIn) (namesOut, error) {
	names, err := t.log.Names(ctx, in.Source)
	if err != nil {
		return namesOut{}, err
	}
	limit := min(in.Limit, oplog.MaxListCount)
	if limit == 0 {
		limit = 200
	}
	out := namesOut{Names: []nameInfo{}, Total: len(names), More: len(names) > limit}
	for i := range names[:min(limit, len(names))] {
		out.Names = append(out.Names, newNameInfo(&names[i]))
	}
	return out, nil
}
