package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
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
	// runsOwned: another writer starts the game's runs (Upstream.RunsOwned),
	// so a restart of the upstream's console writes no run marker.
	runsOwned bool
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
	page, err := m.log.List(ctx, oplog.Query{Filter: oplog.Filter{Kind: oplog.KindLine, Source: m.source}, Count: resumeScan})
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
