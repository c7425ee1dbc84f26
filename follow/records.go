package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// pendingEntry is a completed entry not yet appended, with its position:
// the file it came from, as named when it completed.
type pendingEntry struct {
	rec  oplog.Record
	end  int64
	path []byte // the path as a JSON string
	id   string
}

// store appends the pending entries in batches of batchSize, each record
// carrying its position in its data, and each batch storing the position
// after its last entry under the follower's key, in the same transaction.
func (f *Follower) store() error {
	if f.fatal != nil {
		return f.fatal
	}
	for len(f.pending) > 0 {
		n := min(len(f.pending), batchSize)
		for n < len(f.pending) && f.pending[n].end == f.pending[n-1].end {
			n++ // a marker and its entry are stored together, or a restart would skip one
		}
		recs := make([]oplog.Record, n)
		for i := range recs {
			recs[i] = f.record(&f.pending[i])
		}
		pos := oplog.Position{Key: f.posKey, Value: positionValue(&f.pending[n-1], f.cur)}
		if err := f.appendBatch(recs, pos); err != nil {
			if errors.Is(err, oplog.ErrClosed) {
				f.fatal = err
			}
			f.setState(StateFailing, err)
			return err
		}
		end := f.pending[n-1].end
		f.pending = f.pending[n:]
		if len(f.pending) == 0 {
			f.pending = nil // let the backing array go
		}
		if f.cur != nil {
			f.cur.stored = end
		}
		f.mu.Lock()
		f.status.Stored += uint64(n)
		f.status.Offset = end
		f.status.Parser = f.parser.Name() // auto detection may have chosen by now
		f.mu.Unlock()
	}
	return nil
}

// appendBatch appends recs with their position.
func (f *Follower) appendBatch(recs []oplog.Record, pos oplog.Position) error {
	return appendCutting(recs, func(recs []oplog.Record) error {
		return f.log.AppendAt(context.Background(), recs, pos)
	}, func(i int) {
		cutDown(&recs[i])
		recs[i].Data = withPosition(nil, &f.pending[i])
	}, f.logger, "follow")
}

// appendCutting appends recs with add, the way every reader of a game's
// output stores what it parsed: a record the Log refuses is made
// acceptable (cut) and the batch tried again, rather than stopping the
// output there.
func appendCutting(recs []oplog.Record, add func([]oplog.Record) error, cut func(i int), logger *slog.Logger, what string) error {
	for tries := 0; ; tries++ {
		err := add(recs)
		var be *oplog.BatchError
		if err == nil || !errors.As(err, &be) || be.Index >= len(recs) || tries >= len(recs) {
			return err
		}
		logger.Warn(what+": a record was refused; storing it cut down", "err", err)
		cut(be.Index)
	}
}

// record makes the record of one entry: the follower's source, a level,
// text and stack within the limits, and the position in Data.
func (f *Follower) record(p *pendingEntry) oplog.Record {
	r := prepare(p.rec, f.opts.Name)
	r.Data = withPosition(r.Data, p)
	return r
}

// prepare makes a parser's record one the Log takes: a line or a marker
// of source, a valid level, text and stack within the limits.
func prepare(r oplog.Record, source string) oplog.Record {
	r.ID = 0
	if r.Kind != oplog.KindMarker {
		r.Kind = oplog.KindLine
	}
	r.Source = source
	if !r.Level.Valid() {
		r.Level = oplog.LevelInfo
	}
	r.Text = oplog.ClipText(r.Text)
	r.Stack = oplog.ClipBytes(r.Stack, oplog.MaxStackBytes)
	return r
}

// cutDown makes a refused record acceptable: it keeps its kind, the text
// and stack (valid UTF-8, within limits) and a marker's name, and drops
// the rest, its time too (the Log gives it the time it is stored).
func cutDown(r *oplog.Record) {
	kind := oplog.KindLine
	if r.Kind == oplog.KindMarker {
		kind = oplog.KindMarker
	}
	*r = oplog.Record{
		Kind:   kind,
		Name:   markerName(r),
		Source: r.Source,
		Level:  oplog.LevelInfo,
		Text:   oplog.ClipText(strings.ToValidUTF8(r.Text, "\uFFFD")),
		Stack:  oplog.ClipBytes(strings.ToValidUTF8(r.Stack, "\uFFFD"), oplog.MaxStackBytes),
	}
}

// withPosition adds "file", "offset" and "fileId" (unless p has none) to
// the JSON object data.
// A "file" the parser set is kept (it may name a source file); offset and
// fileId are the follower's.
func withPosition(data json.RawMessage, p *pendingEntry) json.RawMessage {
	data = bytes.TrimSpace(data)
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		data = nil // not an object: the Log would refuse the record
	}
	if bytes.Contains(data, []byte(`"file`)) || bytes.Contains(data, []byte(`"offset"`)) {
		// Perhaps a key of ours: merge as objects.
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil {
			if _, ok := m["file"]; !ok {
				m["file"] = p.path
			}
			m["offset"] = strconv.AppendInt(nil, p.end, 10)
			if p.id != "" {
				m["fileId"] = strconv.AppendQuote(nil, p.id) // hex digits and colons
			}
			if b, err := json.Marshal(m); err == nil {
				return b
			}
		}
		data = nil
	}
	out := make([]byte, 0, len(data)+len(p.path)+len(p.id)+40)
	if len(data) > 0 && len(bytes.TrimSpace(data[1:len(data)-1])) > 0 {
		out = append(out, data[:len(data)-1]...)
		out = append(out, ',')
	} else {
		out = append(out, '{')
	}
	out = append(out, `"file":`...)
	out = append(out, p.path...)
	out = append(out, `,"offset":`...)
	out = strconv.AppendInt(out, p.end, 10)
	if p.id == "" { // an import's: no file identity
		return append(out, '}')
	}
	out = append(out, `,"fileId":"`...)
	out = append(out, p.id...)
	out = append(out, `"}`...)
	return out
}

// markerName keeps a marker's name when a refused record is cut down.
func markerName(r *oplog.Record) string {
	if r.Kind == oplog.KindMarker {
		return r.Name
	}
	return ""
}
