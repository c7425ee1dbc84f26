package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

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
		everyRecord(tool, args)
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
