package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
	FileFreeBytes  int64                        `json:"fileFreeBytes,omitempty" jsonschema:"of the file, free pages the next records reuse"`
	Trimmed        uint64                       `json:"trimmed" jsonschema:"records removed by retention in this generation"`
	Retention      *retentionOut                `json:"retention,omitempty"`
	StartedAt      string                       `json:"startedAt"`
	UptimeSeconds  float64                      `json:"uptimeSeconds"`
	Version        string                       `json:"version"`
	MaxTextChars   int                          `json:"maxTextChars" jsonschema:"list and tail texts are cut at this many characters"`
	TrimmedThrough uint64                       `json:"trimmedThrough"`
	Upstreams      []oplog.UpstreamStatus       `json:"upstreams,omitempty" jsonschema:"the game servers behind the gateway"`
	Followers      []oplog.FollowerStatus       `json:"followers,omitempty" jsonschema:"the log files followed"`
	Studio         *oplog.StudioStatus          `json:"studio,omitempty" jsonschema:"forwarding to the studio's VictoriaLogs"`
	Runs           []sourceRunsOut              `json:"runs,omitempty" jsonschema:"each source's runs (a launch of the game or editor), newest first"`
	Games          []oplog.GameHealth           `json:"games,omitempty" jsonschema:"each game's health: its latest run, how long ago, how it ended, its upstream"`
	Damaged        []string                     `json:"damaged,omitempty" jsonschema:"runs of IDs found unreadable: the data file is damaged there (mcplogd salvage)"`
	indexInfoOut

	now time.Time // when the answer was made: the games' ages count from it
}

// freeWorthSaying is how many free bytes of the data file store_info's
// text names: a new file has a few free pages.
const freeWorthSaying = 1 << 20

// text is store_info in a few lines: counts, IDs, size, retention,
// index, upstreams and followers.
func (o storeInfoOut) text() string {
	levels := make([]string, 0, len(o.Levels))
	for _, l := range []string{"debug", "info", "warn", "error", "fatal"} {
		if n := o.Levels[l]; n > 0 {
			levels = append(levels, fmt.Sprintf("%s %d", l, n))
		}
	}
	e := []string{fmt.Sprintf("%d records (%d lines, %d operations), IDs %d..%d, revision=%d", o.Records, o.Lines, o.Ops, o.FirstID, o.LastID, o.Revision)}
	if len(levels) > 0 {
		e = append(e, "levels: "+strings.Join(levels, ", "))
	}
	size := fmt.Sprintf("%d bytes of records as stored", o.Bytes)
	if o.FileBytes > 0 {
		size += fmt.Sprintf(", file %d bytes", o.FileBytes)
		if o.FileFreeBytes >= freeWorthSaying {
			size += fmt.Sprintf(" (%d of them free pages the next records reuse)", o.FileFreeBytes)
		}
	}
	if o.Records > 0 {
		size += fmt.Sprintf(", %d B/record", o.Bytes/o.Records)
		if o.IndexBytes > 0 {
			size += fmt.Sprintf(" and search index=%d B/record", uint64(o.IndexBytes)/o.Records)
		}
	}
	e = append(e, size+fmt.Sprintf(", %d trimmed by retention", o.Trimmed))
	if len(o.Damaged) > 0 {
		e = append(e, fmt.Sprintf("damage found in the data file: %d runs of records unreadable (readers skip them)", len(o.Damaged)))
		e = append(e, o.Damaged...)
	}
	if r := o.Retention; r != nil {
		e = append(e, fmt.Sprintf("retention: %d records, %d bytes, %s (0: no limit)", r.MaxRecords, r.MaxBytes, r.MaxAge))
	}
	if o.Indexing != "" {
		l := fmt.Sprintf("search index: %s through #%d (lag %d)", o.Indexing, *o.IndexedThrough, *o.IndexLag)
		if o.SegmentLag != nil && *o.SegmentLag > 0 {
			l += fmt.Sprintf(", %d not yet on disk", *o.SegmentLag)
		}
		if o.IndexProgress != nil {
			l += fmt.Sprintf(", %.0f%% rebuilt", *o.IndexProgress*100)
		}
		e = append(e, l)
	}
	for _, u := range o.Upstreams {
		e = append(e, fmt.Sprintf("upstream %s (%s %s): %s, %d tools, %d pending", u.Name, u.Transport, u.Target, u.State, u.Tools, u.Pending)+errorSuffix(u.Error))
	}
	for _, f := range o.Followers {
		e = append(e, fmt.Sprintf("follows %s as %s (%s): %s, %d of %d bytes read", f.Path, f.Name, f.Parser, f.State, f.Offset, f.Size)+errorSuffix(f.Error))
	}
	if s := o.Studio; s != nil {
		e = append(e, fmt.Sprintf("studio %s as %s/%s: %s, seq %d, lag %d records (%.1fs), %d resent, %d lost, %d too old",
			s.URL, s.Project, s.Machine, s.State, s.Seq, s.LagRecords, s.LagSeconds, s.Resent, s.Lost, s.TooOld)+errorSuffix(s.LastError))
	}
	for i := range o.Games {
		e = append(e, GameText(&o.Games[i], o.now))
	}
	for i := range o.Runs {
		e = append(e, o.Runs[i].runsText())
	}
	return lines(fmt.Sprintf("store_info: mcplogd %s, texts in lists cut at %d characters", o.Version, o.MaxTextChars), e)
}

// errorSuffix is ": err" on one line, or "" without an error.
func errorSuffix(err string) string {
	if err == "" {
		return ""
	}
	return ": " + oplog.OneLine(err, false)
}

func (t *toolset) storeInfo(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (storeInfoOut, error) {
	st := t.log.Stats()
	now := t.opts.Now()
	o := storeInfoOut{now: now, Records: st.Records, Lines: st.Count(oplog.KindLine, 0), Ops: st.Count(oplog.KindOp, 0),
		Levels: st.Counts.ByLevel(), Counts: st.Counts.Map(), FirstID: st.FirstID, LastID: st.LastID,
		Revision: st.Revision, GenStart: st.GenStart, Bytes: st.Bytes, Trimmed: st.Trimmed, TrimmedThrough: st.TrimmedThrough,
		StartedAt: formatTime(t.started.UTC()), UptimeSeconds: now.Sub(t.started).Round(time.Millisecond).Seconds(),
		Version: t.opts.Version, MaxTextChars: t.opts.MaxTextChars}
	if t.opts.FileSize != nil {
		o.FileBytes = t.opts.FileSize()
	}
	if t.opts.FileFree != nil {
		o.FileFreeBytes = t.opts.FileFree()
	}
	if r := t.opts.Retention; r != nil {
		o.Retention = &retentionOut{MaxRecords: r.MaxRecords, MaxBytes: r.MaxBytes, MaxAge: r.MaxAge.String()}
	}
	o.indexInfoOut = t.indexInfo()
	if r, ok := t.log.(oplog.DamageReporter); ok {
		o.Damaged = oplog.DamageText(r.Damage())
	}
	if t.opts.Gateway != nil {
		o.Upstreams = t.opts.Gateway.Status()
	}
	if t.opts.Followers != nil {
		o.Followers = t.opts.Followers()
	}
	if t.opts.Studio != nil {
		s := t.opts.Studio()
		o.Studio = &s
	}
	// One read of the runs for both: the runs listed and the games' health.
	runs, err := t.log.Runs(ctx, "")
	if err == nil {
		o.Runs = runsInfo(runs)
	}
	if err == nil || oplog.ErrorCode(err) == oplog.EUNAVAILABLE {
		o.Games = Games(ctx, t.log, runs, o.Upstreams)
	}
	return o, nil
}

type pingOut struct {
	Status  string `json:"status" jsonschema:"ok"`
	Time    string `json:"time"`
	Version string `json:"version"`
}

func (o pingOut) text() string { return "ping: " + o.Status + ", mcplogd " + o.Version }

func (t *toolset) ping(context.Context, *mcp.CallToolRequest, struct{}) (pingOut, error) {
	return pingOut{Status: "ok", Time: formatTime(t.opts.Now().UTC()), Version: t.opts.Version}, nil
}

type helpIn struct {
	Tool string `json:"tool,omitempty" jsonschema:"one tool in full; empty: all, one line each"`
}

// toolHelp is one tool in help's answer: name, summary and required
// arguments in the list of every tool; name, description, arguments and
// example for the one tool asked.
type toolHelp struct {
	Name        string         `json:"name"`
	Summary     string         `json:"summary,omitempty"`
	Required    []string       `json:"required,omitempty"`
	Description string         `json:"description,omitempty"`
	Arguments   []argHelp      `json:"arguments,omitempty"`
	Example     map[string]any `json:"example,omitempty" jsonschema:"the arguments of one example call"`
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
	if h.Example == nil {
		h.Example = map[string]any{}
	}
	for _, name := range in.PropertyOrder {
		p := in.Properties[name]
		typ := p.Type
		if typ == "" {
			typ = strings.Join(p.Types, " or ")
		}
		if typ == "" {
			typ = "any JSON"
		}
		required := slices.Contains(in.Required, name)
		if required {
			h.Required = append(h.Required, name)
		}
		h.Arguments = append(h.Arguments, argHelp{Name: name, Type: typ, Required: required, Default: p.Default, Description: p.Description})
	}
	return h
}

// short is h as help lists every tool: its name, the first sentence of its
// description, and its required arguments.
func (h *toolHelp) short() toolHelp {
	return toolHelp{Name: h.Name, Summary: firstSentence(h.Description, maxSummaryRunes), Required: h.Required}
}

// firstSentence is s up to its first full stop (not the one of "e.g."),
// cut at a word to n characters with "…".
func firstSentence(s string, n int) string {
	for i := 0; ; {
		j := strings.Index(s[i:], ". ")
		if j < 0 {
			break
		}
		if i += j + 1; !strings.HasSuffix(s[:i], "e.g.") && !strings.HasSuffix(s[:i], "i.e.") {
			s = s[:i]
			break
		}
	}
	c, cut := oplog.ClipRunes(s, n)
	if !cut {
		return s
	}
	if i := strings.LastIndexByte(c, ' '); i > 0 {
		c = c[:i]
	}
	return strings.TrimRight(c, ",;:") + "…"
}

// maxSummaryRunes bounds a tool's summary in help's list.
const maxSummaryRunes = 80

type helpOut struct {
	Tools []toolHelp `json:"tools"`
}

func (o helpOut) text() string {
	if len(o.Tools) == 1 && o.Tools[0].Description != "" {
		return o.Tools[0].text()
	}
	entries := make([]string, len(o.Tools))
	for i, h := range o.Tools {
		entries[i] = h.Name
		if len(h.Required) > 0 {
			entries[i] += " (" + strings.Join(h.Required, ", ") + ")"
		}
		entries[i] += ": " + h.Summary
	}
	return lines(fmt.Sprintf("help: %d tools (required arguments in brackets); help {tool: NAME} describes one whole", len(o.Tools)), entries)
}

// text describes one tool whole: its description, one line per argument
// (type, required or default) and an example call.
func (h toolHelp) text() string {
	entries := []string{h.Description, "arguments:"}
	if len(h.Arguments) == 0 {
		entries[1] = "arguments: none"
	}
	for _, a := range h.Arguments {
		l := "  " + a.Name + " " + a.Type
		if a.Required {
			l += ", required"
		}
		if len(a.Default) > 0 {
			l += " = " + string(a.Default)
		}
		entries = append(entries, l+": "+a.Description)
	}
	ex, _ := json.Marshal(h.Example)
	return lines("help: "+h.Name, append(entries, "example: "+h.Name+" "+string(ex)))
}

func (t *toolset) helpTool(_ context.Context, _ *mcp.CallToolRequest, in helpIn) (helpOut, error) {
	if in.Tool == "" {
		out := helpOut{Tools: make([]toolHelp, len(t.help))}
		for i := range t.help {
			out.Tools[i] = t.help[i].short()
		}
		return out, nil
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
	IndexedThrough *uint64  `json:"indexedThrough,omitempty" jsonschema:"every record up to this ID is in the search index"`
	IndexLag       *uint64  `json:"indexLag,omitempty" jsonschema:"records not yet in it (searches match them anyway)"`
	SegmentLag     *uint64  `json:"segmentLag,omitempty" jsonschema:"records indexed in memory only, not yet in the index on disk"`
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
	o := indexInfoOut{IndexedThrough: &s.IndexedThrough, IndexLag: &s.Lag, SegmentLag: &s.SegmentLag, Indexing: string(s.State), IndexBytes: s.Bytes}
	if s.State == oplog.IndexRebuilding {
		o.IndexProgress = &s.Progress
	}
	return o
}
