package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// tail polls console_tail once (the Minecraft seed's shape, and mcplogd's
// own): lines oldest first after sinceId, lastId, revision, reset, dropped,
// maybe more. A reset answer holds the restarted game's buffer: every line
// of it is new. A revision that changed without reset means the game
// restarted and its new IDs already passed sinceId, so the new run is read
// again from its start.
func (m *mirror) tail(ctx context.Context, s *mcp.ClientSession, tool *mcp.Tool) ([]oplog.Record, position, pace, error) {
	args := map[string]any{"limit": tailLimit}
	everyRecord(tool, args)
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
		return m.runMarker(nil, next, "its revision changed"), next, paceMore, nil
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
	if a.Reset && m.pos.known {
		recs = m.runMarker(recs, next, "its console was reset")
	}
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

// runMarker appends to recs the run marker of the upstream's restart:
// once per reset or revision change, before the new run's lines; none
// when another writer owns the game's runs.
func (m *mirror) runMarker(recs []oplog.Record, p position, why string) []oplog.Record {
	if m.runsOwned {
		return recs
	}
	data, _ := json.Marshal(map[string]any{"upstreamRun": p.run, "reason": why})
	return append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: m.source,
		Text: "run started: " + m.source + " restarted (" + why + ")", Data: data})
}

// everyRecord asks an upstream list tool that can (mcplogd's own) for
// every record as its own entry in structuredContent: runs not collapsed
// (collapse false) and the entries in the JSON (format json), which
// mcplogd otherwise leaves to the text block.
func everyRecord(tool *mcp.Tool, args map[string]any) {
	if declares(tool, "collapse") {
		args["collapse"] = false
	}
	if declares(tool, "format") {
		args["format"] = "json"
	}
}
