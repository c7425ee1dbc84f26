package client

import (
	"context"
	"net/http"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// NameAnswer is one log name of GET /api/v1/names's answer.
type NameAnswer struct {
	Source    string                       `json:"source"`
	Name      string                       `json:"name"`
	Total     uint64                       `json:"total"`
	Counts    map[string]map[string]uint64 `json:"counts"` // by kind, then level
	FirstSeen time.Time                    `json:"firstSeen"`
	LastSeen  time.Time                    `json:"lastSeen"`
}

// NamesAnswer is GET /api/v1/names's answer.
type NamesAnswer struct {
	Names []NameAnswer `json:"names"`
}

// Names lists the server's log names.
func (c *Client) Names(ctx context.Context, source string) ([]oplog.NameInfo, error) {
	var a NamesAnswer
	v := map[string][]string{}
	if source != "" {
		v["source"] = []string{source}
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/names", v, nil, &a); err != nil {
		return nil, err
	}
	out := make([]oplog.NameInfo, len(a.Names))
	for i, n := range a.Names {
		out[i] = oplog.NameInfo{Source: n.Source, Name: n.Name, Total: n.Total, Counts: oplog.CountsFromMap(n.Counts), FirstSeen: n.FirstSeen, LastSeen: n.LastSeen}
	}
	return out, nil
}
