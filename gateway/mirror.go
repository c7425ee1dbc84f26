package gateway

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// The pace of polling: again at once while the game has more ready, soon
// while lines flow, slower and slower up to slowPoll while it is quiet.
const (
	fastPoll    = 100 * time.Millisecond
	slowPoll    = time.Second
	callTimeout = 30 * time.Second  // one console call; a frozen game is retried, not waited on forever
	tailLimit   = 1000              // lines per console_tail call: the seeds' whole buffer
	logsPage    = 100               // records per get_logs call
	maxCatchUp  = 1000              // get_logs records read back through offset in one poll
	mirrorName  = "mcplogd.gateway" // the log name of the mirror's own warnings
)

// mirror copies one upstream's console into the log. Its position in the
// upstream's console outlives a session, so that run, called again after a
// reconnect, goes on where it stopped. The upstream loop calls run once at a
// time, so the fields need no lock.
type mirror struct {
	source string
	log    *oplog.Log
	logger *slog.Logger

	resumed bool     // pos was looked up in the log
	pos     position // advanced only once the lines read are stored
	failing string   // the error last logged, so that a failing upstream is logged once
}

// position is where the mirror stands in the upstream's console.
type position struct {
	known    bool           // false before the first answer: ask for the whole buffer
	last     uint64         // console_tail's lastId; get_logs: the highest ID stored
	revision string         // the upstream's revision as last seen (compact JSON); "" when it sends none
	run      int            // the upstream's runs seen, from 1 (data.upstreamRun); a restart starts the next
	prev     map[string]int // get_logs without numeric IDs: the keys of the previous answer
}

// pace says how soon to poll again.
type pace int

const (
	paceIdle    pace = iota // nothing new: wait longer each time
	paceFlowing             // lines arrived: poll again soon
	paceMore                // the answer was full: poll again at once
	paceFailed              // the upstream or the store refused: wait slowPoll
)

// refusal is a failed poll that leaves the session usable: a tool error, a
// JSON-RPC error, a call that timed out, an answer of an unknown shape.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// newMirror returns the mirror of the upstream named source (records get
// Source = source). A nil logger discards.
func newMirror(source string, l *oplog.Log, logger *slog.Logger) *mirror {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &mirror{source: source, log: l, logger: logger}
}

// console reports which console tool of tools the mirror would poll:
// "console_tail" when offered, else "get_logs", else "" (nothing to mirror).
func console(tools []*mcp.Tool) string {
	found := ""
	for _, t := range tools {
		switch t.Name {
		case "console_tail":
			return t.Name
		case "get_logs":
			found = t.Name
		}
	}
	return found
}

// run polls the upstream's console through s until ctx ends (returns nil)
// or a call fails at the transport level (returns that error). tools is the
// upstream's current tool list; without a console tool run returns nil at once.
// Tool errors and a refusing store are logged and retried after slowPoll.
func (m *mirror) run(ctx context.Context, s *mcp.ClientSession, tools []*mcp.Tool) error {
	var tool *mcp.Tool
	name := console(tools)
	for _, t := range tools {
		if t.Name == name {
			tool = t
		}
	}
	if tool == nil {
		return nil
	}
	if !m.resumed {
		m.resume(ctx)
	}
	var delay time.Duration
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		p, err := m.poll(ctx, s, tool)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("mirror %s: %s: %w", m.source, tool.Name, err)
		}
		switch p {
		case paceMore:
			delay = 0
		case paceFlowing:
			delay = fastPoll
		case paceIdle:
			delay = min(max(2*delay, fastPoll), slowPoll)
		case paceFailed:
			delay = slowPoll
		}
		timer.Reset(delay)
	}
}

// poll reads the console once and stores what is new. Only a transport
// failure comes back as an error.
func (m *mirror) poll(ctx context.Context, s *mcp.ClientSession, tool *mcp.Tool) (pace, error) {
	read := m.tail
	if tool.Name != "console_tail" {
		read = m.logs
	}
	recs, next, p, err := read(ctx, s, tool)
	if r := (*refusal)(nil); errors.As(err, &r) {
		m.trouble(err)
		return paceFailed, nil
	} else if err != nil {
		return 0, err
	}
	// Without cancel: a batch read is stored, so that the position can move past it.
	if err := m.log.Append(context.WithoutCancel(ctx), recs); err != nil {
		m.trouble(fmt.Errorf("cannot store the console lines read: %w", err))
		return paceFailed, nil
	}
	m.pos = next
	m.trouble(nil)
	return p, nil
}

// trouble logs err once, and that it is over when err is nil.
func (m *mirror) trouble(err error) {
	switch {
	case err == nil && m.failing != "":
		m.failing = ""
		m.logger.Info("upstream console mirrored again", "upstream", m.source)
	case err != nil && err.Error() != m.failing:
		m.failing = err.Error()
		m.logger.Warn("upstream console not mirrored; retrying", "upstream", m.source, "err", err)
	}
}

// call calls tool and returns the JSON of its answer: structuredContent,
// else its first text content. Failures that leave the session usable are
// a *refusal.
func (m *mirror) call(ctx context.Context, s *mcp.ClientSession, tool string, args map[string]any) (json.RawMessage, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := s.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err != nil && ctx.Err() == nil && (cctx.Err() != nil || answered(err)):
		return nil, &refusal{err}
	case err != nil:
		return nil, err
	case res.IsError:
		return nil, &refusal{fmt.Errorf("%s answered with an error: %s", tool, firstText(res))}
	case res.StructuredContent != nil:
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, &refusal{fmt.Errorf("%s: structuredContent: %w", tool, err)}
		}
		return b, nil
	}
	if t := firstText(res); json.Valid([]byte(t)) {
		return json.RawMessage(t), nil
	}
	return nil, &refusal{fmt.Errorf("%s: the answer holds no JSON", tool)}
}

// answered reports whether err is the upstream's JSON-RPC error answer,
// not a broken connection or a lost session.
func answered(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, mcp.ErrSessionMissing)
}

func firstText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// tail polls console_tail once (the Minecraft seed's shape, and mcplogd's
// own): lines oldest first after sinceId, lastId, revision, reset, dropped,
// maybe more. A reset answer holds the restarted game's buffer: every line
// of it is new. A revision that changed without reset means the game
// restarted and its new IDs already passed sinceId, so the new run is read
// again from its start.
func (m *mirror) tail(ctx context.Context, s *mcp.ClientSession, _ *mcp.Tool) ([]oplog.Record, position, pace, error) {
	args := map[string]any{"limit": tailLimit}
	if m.pos.known {
		args["sinceId"] = m.pos.last
	}
	raw, err := m.call(ctx, s, "console_tail", args)
	if err != nil {
		return nil, m.pos, 0, err
	}
	var a struct {
		Lines    []entry         `json:"lines"`
		LastID   number          `json:"lastId"`
		Revision json.RawMessage `json:"revision"`
		Reset    bool            `json:"reset"`
		Dropped  number          `json:"dropped"`
		More     bool            `json:"more"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || a.Lines == nil {
		return nil, m.pos, 0, &refusal{fmt.Errorf("console_tail: the answer has no lines array (%.200s)", raw)}
	}
	next := m.pos
	rev := compact(a.Revision)
	if next.known && !a.Reset && rev != "" && next.revision != "" && rev != next.revision {
		m.logger.Info("upstream restarted; reading its new run from the start", "upstream", m.source, "revision", rev)
		next.last, next.revision, next.run = 0, rev, next.run+1
		return nil, next, paceMore, nil
	}
	if a.Reset && next.known {
		m.logger.Info("upstream restarted (reset)", "upstream", m.source, "revision", rev)
		next.run++
	}
	next.known, next.run = true, max(next.run, 1)
	if rev != "" {
		next.revision = rev
	}
	var recs []oplog.Record
	if a.Dropped.v > 0 {
		recs = append(recs, m.lost(a.Dropped.v))
	}
	var newest uint64
	for _, e := range a.Lines {
		id, ok := e.id()
		if ok && !a.Reset && m.pos.known && id <= m.pos.last {
			continue // stored already; an upstream should not send it
		}
		recs = append(recs, m.record(e, next))
		newest = max(newest, id)
	}
	switch {
	case a.LastID.ok:
		next.last = a.LastID.v
	case newest > 0 || a.Reset:
		next.last = newest
	}
	switch {
	case a.More || len(a.Lines) >= tailLimit:
		return recs, next, paceMore, nil
	case len(recs) > 0:
		return recs, next, paceFlowing, nil
	}
	return recs, next, paceIdle, nil
}

// logs polls get_logs once. Assumed shape (the Lua ECS, Unity and mcplogd
// tools): arguments count and maybe offset (used only when the input schema
// declares it); newest first; records in the answer itself when it is an
// array, else under logs, lines, entries, records, items, messages or
// operations, also inside result. With numeric IDs everything above the
// highest ID stored is new, read back page by page through offset up to
// maxCatchUp, and IDs going back mean the game restarted. Without them a
// record is new when the previous answer did not hold it (by id, else by
// time, level, name and text), and nothing older than one page is reached.
func (m *mirror) logs(ctx context.Context, s *mcp.ClientSession, tool *mcp.Tool) ([]oplog.Record, position, pace, error) {
	next := m.pos
	paged := declares(tool, "offset")
	var got []entry
	seen := map[uint64]bool{}
	numeric := true
	for off := 0; ; off += logsPage {
		args := map[string]any{"count": logsPage}
		if off > 0 {
			args["offset"] = off
		}
		raw, err := m.call(ctx, s, tool.Name, args)
		if err != nil {
			return nil, m.pos, 0, err
		}
		page, err := entries(raw)
		if err != nil {
			return nil, m.pos, 0, &refusal{fmt.Errorf("%s: %w (%.200s)", tool.Name, err, raw)}
		}
		lo, hi, ok := idRange(page)
		numeric = numeric && ok
		if off == 0 && numeric && len(page) > 0 && next.known && hi < next.last {
			m.logger.Info("upstream restarted (its log IDs went back)", "upstream", m.source)
			next.last, next.run = 0, next.run+1
		}
		for _, e := range page {
			if id, _ := e.id(); !numeric || !seen[id] {
				seen[id] = true
				got = append(got, e)
			}
		}
		if len(page) < logsPage || !paged || !numeric || next.known && lo <= next.last || len(got) >= maxCatchUp {
			break
		}
	}
	next.run = max(next.run, 1)
	var fresh []entry
	if numeric {
		for _, e := range got {
			if id, _ := e.id(); !next.known || id > next.last {
				fresh = append(fresh, e)
			}
		}
		slices.SortFunc(fresh, func(a, b entry) int { x, _ := a.id(); y, _ := b.id(); return cmp.Compare(x, y) })
		if len(fresh) > 0 {
			next.last, _ = fresh[len(fresh)-1].id()
		}
		next.prev = nil
	} else {
		old := maps.Clone(m.pos.prev)
		next.prev = map[string]int{}
		for _, e := range slices.Backward(got) { // oldest first
			k := e.key()
			next.prev[k]++
			if old[k] > 0 {
				old[k]--
			} else {
				fresh = append(fresh, e)
			}
		}
	}
	next.known = true
	recs := make([]oplog.Record, 0, len(fresh))
	for _, e := range fresh {
		recs = append(recs, m.record(e, next))
	}
	switch {
	case len(got) >= maxCatchUp:
		return recs, next, paceMore, nil
	case len(recs) > 0:
		return recs, next, paceFlowing, nil
	}
	return recs, next, paceIdle, nil
}

// entry is one upstream console line as JSON, read through the field names
// that the engines use.
type entry map[string]json.RawMessage

// str returns the first of keys that holds a non-empty string, or a number
// or boolean as written.
func (e entry) str(keys ...string) string {
	for _, k := range keys {
		v := bytes.TrimSpace(e[k])
		if len(v) == 0 || string(v) == "null" || v[0] == '{' || v[0] == '[' {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return string(v)
		}
		if s != "" {
			return s
		}
	}
	return ""
}

// id returns the line's ID when it is a number or a string of digits.
func (e entry) id() (uint64, bool) {
	v, err := strconv.ParseUint(e.str("id"), 10, 64)
	return v, err == nil
}

var (
	idKeys    = []string{"id", "logId", "log_id"}
	timeKeys  = []string{"time", "timestamp", "ts"}
	levelKeys = []string{"level", "type", "logType", "severity"}
	nameKeys  = []string{"name", "logName", "log_name", "logger", "category"}
	textKeys  = []string{"text", "message", "msg"}
	stackKeys = []string{"stack", "stackTrace", "stack_trace", "traceback"}
)

// key identifies a line without a numeric ID across two get_logs answers.
func (e entry) key() string {
	if id := e.str(idKeys...); id != "" {
		return id
	}
	return strings.Join([]string{e.str(timeKeys...), e.str(levelKeys...), e.str(nameKeys...), e.str(textKeys...)}, "\x00")
}

// record turns an upstream line into a log record of run p.run. An unknown
// level is info; a time that cannot be read is kept in data.upstreamTime and
// the record gets the arrival time.
func (m *mirror) record(e entry, p position) oplog.Record {
	r := oplog.Record{Kind: oplog.KindLine, Source: m.source, Name: label(e.str(nameKeys...)),
		Text: clip(e.str(textKeys...), oplog.MaxTextBytes), Stack: clip(e.str(stackKeys...), oplog.MaxStackBytes)}
	if r.Text == "" && !slices.ContainsFunc(textKeys, func(k string) bool { _, ok := e[k]; return ok }) {
		b, _ := json.Marshal(e) // no message field: keep the whole record
		r.Text = clip(string(b), oplog.MaxTextBytes)
	}
	if l, err := oplog.ParseLevel(e.str(levelKeys...)); err == nil && l != 0 {
		r.Level = l
	} else {
		r.Level = oplog.LevelInfo
	}
	data := map[string]any{"upstreamRun": p.run}
	for _, k := range idKeys {
		if v := bytes.TrimSpace(e[k]); len(v) > 0 && len(v) <= 200 {
			data["upstreamId"] = json.RawMessage(v)
			break
		}
	}
	if p.revision != "" && len(p.revision) <= 200 {
		data["upstreamRevision"] = json.RawMessage(p.revision)
	}
	if src := e.str("source"); src != "" && src != m.source {
		data["upstreamSource"] = label(src)
	}
	if ts := e.str(timeKeys...); ts != "" {
		t, err := oplog.ParseTime(ts, time.Now())
		if y := t.Year(); err == nil && y > 1970 && y < 2262 { // the years oplog accepts
			r.Time = t
		} else {
			data["upstreamTime"] = clip(ts, 100)
		}
	}
	r.Data, _ = json.Marshal(data)
	return r
}

// lost is the warning that the game dropped n lines before they were read.
func (m *mirror) lost(n uint64) oplog.Record {
	text := fmt.Sprintf("%s: %d console lines were lost before mcplogd could read them (the game's buffer overflowed)", m.source, n)
	if n == 1 {
		text = fmt.Sprintf("%s: 1 console line was lost before mcplogd could read it (the game's buffer overflowed)", m.source)
	}
	data, _ := json.Marshal(map[string]uint64{"dropped": n})
	return oplog.Record{Kind: oplog.KindLine, Source: m.source, Name: mirrorName, Level: oplog.LevelWarn, Text: text, Data: data}
}

// resume takes up the position of the newest line that this source's mirror
// stored before, so that a restarted mcplogd neither stores the game's
// buffer again nor counts its runs from 1 again.
func (m *mirror) resume(ctx context.Context) {
	m.resumed = true
	page, err := m.log.List(ctx, oplog.Query{Filter: oplog.Filter{Kind: oplog.KindLine, Source: m.source}, Count: 100})
	if err != nil {
		m.logger.Warn("cannot look up where the console mirror stopped; reading the whole buffer", "upstream", m.source, "err", err)
		return
	}
	for _, r := range page.Records {
		var d struct {
			ID       number          `json:"upstreamId"`
			Run      int             `json:"upstreamRun"`
			Revision json.RawMessage `json:"upstreamRevision"`
		}
		if len(r.Data) == 0 || json.Unmarshal(r.Data, &d) != nil || d.Run == 0 {
			continue // not a mirrored line
		}
		m.pos = position{known: d.ID.ok, last: d.ID.v, revision: compact(d.Revision), run: d.Run}
		return
	}
}

// entries finds the records in a get_logs answer.
func entries(raw json.RawMessage) ([]entry, error) {
	var list []entry
	if json.Unmarshal(raw, &list) == nil {
		return list, nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil, errors.New("the answer is neither an object nor an array of records")
	}
	for _, k := range []string{"logs", "lines", "entries", "records", "items", "messages", "operations"} {
		if v, ok := obj[k]; ok && json.Unmarshal(v, &list) == nil {
			return list, nil
		}
	}
	if v, ok := obj["result"]; ok {
		return entries(v)
	}
	return nil, errors.New("no array of records (logs, lines, entries, ...) in the answer")
}

// idRange returns the lowest and highest ID of page, and whether every
// record has a numeric one.
func idRange(page []entry) (lo, hi uint64, ok bool) {
	for i, e := range page {
		id, isNum := e.id()
		if !isNum {
			return 0, 0, false
		}
		if i == 0 || id < lo {
			lo = id
		}
		hi = max(hi, id)
	}
	return lo, hi, true
}

// number is a non-negative integer sent as a JSON number or a string of
// digits; anything else reads as absent.
type number struct {
	v  uint64
	ok bool
}

func (n *number) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseUint(strings.Trim(string(b), `"`), 10, 64)
	*n = number{v, err == nil}
	return nil
}

// compact returns v as compact JSON, "" for nothing or null.
func compact(v json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil || buf.String() == "null" {
		return ""
	}
	return buf.String()
}

// clip cuts s to at most n bytes at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// label makes s fit a record's name or source: one line, bounded.
func label(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == 0 {
			return ' '
		}
		return r
	}, s)
	return clip(s, oplog.MaxLabelBytes)
}
