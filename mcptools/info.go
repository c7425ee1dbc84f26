package mcptools

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

type retentionOut struct {
	MaxRecords uint64 `json:"maxRecords" jsonschema:"0: no limit"`
	MaxBytes   uint64 `json:"maxBytes" jsonschema:"0: no limit"`
	MaxAge     string `json:"maxAge" jsonschema:"a Go duration; 0s: no limit"`
}

type storeInfoOut struct {
	Records        uint64                       `json:"records"`
	Lines          uint64                       `json:"lines"`
	Ops            uint64                       `json:"ops"`
	Levels         map[string]uint64            `json:"levels"`
	Counts         map[string]map[string]uint64 `json:"counts" jsonschema:"by kind, then level"`
	FirstID        uint64                       `json:"firstId"`
	LastID         uint64                       `json:"lastId"`
	Revision       uint64                       `json:"revision"`
	GenStart       uint64                       `json:"genStart" jsonschema:"the first ID of this generation"`
	Bytes          uint64                       `json:"bytes" jsonschema:"encoded size of the retained records"`
	FileBytes      int64                        `json:"fileBytes,omitempty" jsonschema:"size of the data file"`
	Trimmed        uint64                       `json:"trimmed" jsonschema:"records removed by retention in this generation"`
	Retention      *retentionOut                `json:"retention,omitempty"`
	StartedAt      string                       `json:"startedAt"`
	UptimeSeconds  float64                      `json:"uptimeSeconds"`
	Version        string                       `json:"version"`
	MaxTextChars   int                          `json:"maxTextChars" jsonschema:"list and tail texts are cut at this many characters"`
	TrimmedThrough uint64                       `json:"trimmedThrough"`
	Upstreams      []oplog.UpstreamStatus       `json:"upstreams,omitempty" jsonschema:"the game servers behind the gateway"`
	Followers      []oplog.FollowerStatus       `json:"followers,omitempty" jsonschema:"the log files followed"`
	indexInfoOut
}

func (t *toolset) storeInfo(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (storeInfoOut, error) {
	st := t.log.Stats()
	o := storeInfoOut{Records: st.Records, Lines: st.Count(oplog.KindLine, 0), Ops: st.Count(oplog.KindOp, 0),
		Levels: st.Counts.ByLevel(), Counts: st.Counts.Map(), FirstID: st.FirstID, LastID: st.LastID,
		Revision: st.Revision, GenStart: st.GenStart, Bytes: st.Bytes, Trimmed: st.Trimmed, TrimmedThrough: st.TrimmedThrough,
		StartedAt: formatTime(t.started.UTC()), UptimeSeconds: time.Since(t.started).Round(time.Millisecond).Seconds(),
		Version: t.opts.Version, MaxTextChars: t.opts.MaxTextChars}
	if t.opts.FileSize != nil {
		o.FileBytes = t.opts.FileSize()
	}
	if r := t.opts.Retention; r != nil {
		o.Retention = &retentionOut{MaxRecords: r.MaxRecords, MaxBytes: r.MaxBytes, MaxAge: r.MaxAge.String()}
	}
	o.indexInfoOut = t.indexInfo()
	if t.opts.Gateway != nil {
		o.Upstreams = t.opts.Gateway.Status()
	}
	if t.opts.Followers != nil {
		o.Followers = t.opts.Followers()
	}
	return o, nil
}

type pingOut struct {
	Status  string `json:"status" jsonschema:"ok"`
	Time    string `json:"time"`
	Version string `json:"version"`
}

func (t *toolset) ping(context.Context, *mcp.CallToolRequest, struct{}) (pingOut, error) {
	return pingOut{Status: "ok", Time: formatTime(time.Now().UTC()), Version: t.opts.Version}, nil
}

type helpIn struct {
	Tool string `json:"tool,omitempty" jsonschema:"only this tool; empty: every tool"`
}

type toolHelp struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Arguments   []argHelp      `json:"arguments"`
	Example     map[string]any `json:"example" jsonschema:"the arguments of one example call"`
}

type argHelp struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Required    bool            `json:"required,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Description string          `json:"description"`
}

func newToolHelp(spec toolSpec, in *jsonschema.Schema) toolHelp {
	h := toolHelp{Name: spec.name, Description: spec.description, Arguments: []argHelp{}, Example: spec.example}
	for _, name := range in.PropertyOrder {
		p := in.Properties[name]
		typ := p.Type
		if typ == "" {
			typ = strings.Join(p.Types, " or ")
		}
		if typ == "" {
			typ = "any JSON"
		}
		required := false
		for _, r := range in.Required {
			required = required || r == name
		}
		h.Arguments = append(h.Arguments, argHelp{Name: name, Type: typ, Required: required, Default: p.Default, Description: p.Description})
	}
	return h
}

type helpOut struct {
	Tools []toolHelp `json:"tools"`
}

func (t *toolset) helpTool(_ context.Context, _ *mcp.CallToolRequest, in helpIn) (helpOut, error) {
	if in.Tool == "" {
		return helpOut{Tools: t.help}, nil
	}
	names := make([]string, len(t.help))
	for i, h := range t.help {
		if h.Name == in.Tool {
			return helpOut{Tools: []toolHelp{h}}, nil
		}
		names[i] = h.Name
	}
	return helpOut{}, argError("tool", "no tool %q; the tools are %s", in.Tool, strings.Join(names, ", "))
}

// indexInfoOut is the search index's part of store_info; absent when the
// log has no index (or is a remote one).
type indexInfoOut struct {
	IndexedThrough *uint64  `json:"indexedThrough,omitempty" jsonschema:"the highest ID in the search index"`
	IndexLag       *uint64  `json:"indexLag,omitempty" jsonschema:"records not yet in the search index (searches match them anyway)"`
	Indexing       string   `json:"indexing,omitempty" jsonschema:"idle, indexing or rebuilding"`
	IndexProgress  *float64 `json:"indexProgress,omitempty" jsonschema:"while rebuilding: the fraction done, 0 to 1"`
	IndexBytes     int64    `json:"indexBytes,omitempty" jsonschema:"size of the search index on disk"`
}

func (t *toolset) indexInfo() indexInfoOut {
	l, ok := t.log.(interface {
		IndexStatus() (oplog.IndexStatus, bool)
	})
	if !ok {
		return indexInfoOut{}
	}
	s, ok := l.IndexStatus()
	if !ok {
		return indexInfoOut{}
	}
	o := indexInfoOut{IndexedThrough: &s.IndexedThrough, IndexLag: &s.Lag, Indexing: string(s.State), IndexBytes: s.Bytes}
	if s.State == oplog.IndexRebuilding {
		o.IndexProgress = &s.Progress
	}
	return o
}
