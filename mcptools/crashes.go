package mcptools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- find_crashes ----

func (t *toolset) addCrashTools(srv *mcp.Server) {
	addTool(srv, t, toolSpec{name: "find_crashes", title: "Find crashes",
		description: "Error and fatal records with stack traces (and operations that failed with one), grouped by a normalised " +
			"stack signature (line numbers, addresses, generic arguments and lambda numbering removed; the top frames kept), " +
			"newest group first: a crash that happened 500 times is one group with count 500. exampleId is the oldest " +
			"occurrence in range and lastId the newest: get_log_details shows the whole trace.",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultCrashLimit},
		example: map[string]any{"since": "-1h", "source": "unity-editor"}}, t.findCrashes)
}

type crashesIn struct {
	Since  string `json:"since,omitempty" jsonschema:"only occurrences at or after this time: RFC 3339, a date, Unix milliseconds or relative like -15m"`
	Until  string `json:"until,omitempty" jsonschema:"only occurrences before this time, written like since"`
	Source string `json:"source,omitempty" jsonschema:"only occurrences from this source"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most groups to return, newest first; capped at 1000"`
}

type crashGroupOut struct {
	Signature string   `json:"signature" jsonschema:"16 hex digits, the same for every occurrence of this crash"`
	Title     string   `json:"title" jsonschema:"one line: the exception and the top frame"`
	Frames    []string `json:"frames" jsonschema:"the normalised top frames the signature is made of"`
	Count     int      `json:"count" jsonschema:"occurrences in range"`
	FirstSeen string   `json:"firstSeen" jsonschema:"RFC 3339, UTC, milliseconds"`
	LastSeen  string   `json:"lastSeen" jsonschema:"RFC 3339, UTC, milliseconds"`
	Sources   []string `json:"sources"`
	ExampleID uint64   `json:"exampleId" jsonschema:"the oldest occurrence in range: get_log_details shows its stack"`
	LastID    uint64   `json:"lastId" jsonschema:"the newest occurrence in range"`
}

type crashesOut struct {
	Groups []crashGroupOut `json:"groups"`
	Total  int             `json:"total" jsonschema:"every matching group, whatever limit says"`
	LastID uint64          `json:"lastId" jsonschema:"the newest record ID the answer covers"`
}

func (t *toolset) findCrashes(ctx context.Context, _ *mcp.CallToolRequest, in crashesIn) (crashesOut, error) {
	f, err := oplog.FilterText{Since: in.Since, Until: in.Until}.Parse(time.Now())
	if err != nil {
		return crashesOut{}, err
	}
	p, err := t.log.FindCrashes(ctx, oplog.CrashQuery{Since: f.Since, Until: f.Until, Source: in.Source, Limit: in.Limit})
	if err != nil {
		return crashesOut{}, err
	}
	out := crashesOut{Groups: make([]crashGroupOut, len(p.Groups)), Total: p.Total, LastID: p.LastID}
	for i, g := range p.Groups {
		out.Groups[i] = crashGroupOut{Signature: g.Signature, Title: g.Title, Frames: g.Frames, Count: g.Count,
			FirstSeen: g.FirstSeen.Format(listTime), LastSeen: g.LastSeen.Format(listTime), Sources: g.Sources,
			ExampleID: g.ExampleID, LastID: g.LastID}
		if out.Groups[i].Frames == nil {
			out.Groups[i].Frames = []string{}
		}
		if out.Groups[i].Sources == nil {
			out.Groups[i].Sources = []string{}
		}
	}
	return out, nil
}
