package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcplogd/mcplogd/oplog"
)

// position is where a previous run stopped: the file it was reading (its
// path then, and its identity) and the offset just past its last stored
// record. It is stored under the follower's positionKey with each batch of
// records (oplog.Log.AppendAt), as JSON, and also in each record's data.
//
// TailEnd and Tail (the Log position only, not the records) fingerprint the
// bytes the follower had read just before TailEnd (>= Offset: a partial
// line and a held entry are read but not stored), so that a file rewritten
// in place while mcplogd was stopped is told apart however it begins. A
// position without them (stored by an older mcplogd) is trusted as before.
type position struct {
	File    string `json:"file"`
	Offset  int64  `json:"offset"`
	FileID  string `json:"fileId"`
	TailEnd int64  `json:"tailEnd,omitempty"`
	Tail    string `json:"tail,omitempty"`
}

// positionKey is the follower's key in the Log's positions: its own, not
// its source's, so that other writers of the source (HTTP ingest, a second
// follower with the same name, each file of a directory) neither hide nor
// move it. It is the source name and the absolute path followed, so that a
// file followed under two names, or two files under one, each keep theirs.
func positionKey(name, path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "follow\x00" + name + "\x00" + filepath.Clean(path)
}

// positionValue is what the follower stores under its key with a batch
// whose last entry is p, read from c (the file read; nil: none), whose
// tail it fingerprints.
func positionValue(p *pendingEntry, c *file) []byte {
	out := make([]byte, 0, len(p.path)+len(p.id)+96)
	out = append(out, `{"file":`...)
	out = append(out, p.path...) // a JSON string already
	out = append(out, `,"offset":`...)
	out = strconv.AppendInt(out, p.end, 10)
	out = append(out, `,"fileId":`...)
	out = strconv.AppendQuote(out, p.id) // hex digits and colons
	if c != nil && c.id == p.id && c.tailN > 0 && c.read >= p.end {
		out = append(out, `,"tailEnd":`...)
		out = strconv.AppendInt(out, c.read, 10)
		out = append(out, `,"tail":"`...)
		out = append(c.appendTailSum(out), '"')
	}
	return append(out, '}')
}

// resumePosition returns where the follower with key stopped: the position
// stored under key, in O(1); else, for a store written before positions
// were stored apart, the one in the newest record of source that carries
// one (source "": none); nil when there is none.
func resumePosition(ctx context.Context, l *oplog.Log, key, source string) (*position, error) {
	v, err := l.Position(ctx, key)
	if err != nil {
		return nil, err
	}
	if v != nil {
		if pos := positionOf(v); pos != nil {
			return pos, nil
		}
		// Not one of ours: fall back rather than start from nothing.
	}
	if source == "" {
		return nil, nil
	}
	return lastPosition(ctx, l, source)
}

// lastPosition returns the position in the newest record of source that
// carries one, within resumeScan records, or nil when there is none.
func lastPosition(ctx context.Context, l *oplog.Log, source string) (*position, error) {
	// Without an index, List walks the store backwards until a record
	// matches: ask the names table first whether any will.
	names, err := l.Names(ctx, source)
	if err != nil {
		return nil, err
	}
	var lines uint64
	for i := range names {
		lines += names[i].Count(oplog.KindLine, 0)
	}
	if lines == 0 {
		return nil, nil
	}
	q := oplog.Query{Filter: oplog.Filter{Source: source, Kind: oplog.KindLine}, Count: 1}
	for seen := 0; seen < resumeScan; {
		page, err := l.List(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range page.Records {
			if pos := positionOf(page.Records[i].Data); pos != nil {
				return pos, nil
			}
		}
		seen += len(page.Records)
		if !page.More || len(page.Records) == 0 {
			return nil, nil
		}
		q.Before = page.Records[len(page.Records)-1].ID
		q.Count = oplog.MaxListCount
	}
	return nil, nil
}

func positionOf(data json.RawMessage) *position {
	if !bytes.Contains(data, []byte(`"fileId"`)) {
		return nil
	}
	var p struct {
		position
		Offset *int64 `json:"offset"`
	}
	if json.Unmarshal(data, &p) != nil || p.Offset == nil || p.FileID == "" {
		return nil
	}
	p.position.Offset = *p.Offset
	if p.TailEnd < p.position.Offset {
		p.TailEnd, p.Tail = 0, "" // not one of ours
	}
	return &p.position
}

// open opens the file at the path, or at the first open after a restart
// the file the previous run was reading. It reports whether a file is open.
func (f *Follower) open() bool {
	fh, err := openShared(f.opts.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if f.resume != nil && !f.lookedForRotated {
			// The file was rotated away while mcplogd was down and no new one
			// exists yet: finish the old one if it can be found.
			f.lookedForRotated = true
			if old := f.findRotated(f.resume); old != nil {
				f.resume = nil
				f.switchTo(old)
				return true
			}
		}
		f.setState(StateWaiting, nil)
		return false
	}
	if err != nil {
		f.setState(StateFailing, err)
		return false
	}
	cur, err := newFile(fh, f.opts.Path)
	if err != nil {
		fh.Close()
		f.setState(StateFailing, err)
		return false
	}
	var why string // the file was rewritten in place while stopped: a run
	if pos := f.resume; pos != nil {
		f.resume = nil
		switch {
		case cur.is(pos.FileID) && cur.size >= pos.Offset:
			why, err = resumeAt(cur, pos)
			if err != nil {
				fh.Close()
				f.setState(StateFailing, err)
				return false
			}
			if why == "" {
				f.logger.Info("follow: resuming", "offset", pos.Offset)
			} else {
				f.logger.Info("follow: the file was rewritten while stopped; reading it from the start", "offset", pos.Offset, "size", cur.size)
			}
		case cur.is(pos.FileID):
			why = "truncated"
			f.logger.Info("follow: the file was truncated while stopped; reading it from the start", "offset", pos.Offset, "size", cur.size)
		case cur.sameNode(pos.FileID):
			why = "rewritten" // its first bytes changed: a new launch's
			f.logger.Info("follow: the file was rewritten while stopped; reading it from the start", "offset", pos.Offset, "size", cur.size)
		default:
			if old := f.findRotated(pos); old != nil {
				fh.Close()
				f.switchTo(old)
				return true
			}
			f.logger.Info("follow: another file than when stopped; reading it from the start")
		}
	}
	f.switchTo(cur)
	if why != "" {
		f.startRun(why)
	}
	return true
}

// resumeAt sets cur, the file pos names, to be read from pos.Offset, unless
// it no longer holds the bytes read before pos.TailEnd: then it returns
// "rewritten" and cur is read from 0.
func resumeAt(cur *file, pos *position) (why string, err error) {
	ok, err := cur.holdsTail(pos.TailEnd, pos.Tail)
	if err != nil || !ok {
		return "rewritten", err
	}
	cur.read, cur.stored = pos.Offset, pos.Offset
	return "", cur.loadTail()
}

// findRotated looks in the path's directory for the file that pos names
// (moved to a rotation name such as Editor-prev.log or app.log.1) with
// bytes after pos.Offset, opened at pos.Offset; nil when there is none.
func (f *Follower) findRotated(pos *position) *file {
	dev, ino, _, _, ok := parseFileID(pos.FileID)
	if !ok {
		return nil
	}
	dir := filepath.Dir(f.opts.Path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if info.Size() < pos.Offset {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if d, i, err := infoID(path, info); err != nil || d != dev || i != ino {
			continue
		}
		fh, err := openShared(path)
		if err != nil {
			continue
		}
		cur, err := newFile(fh, path)
		if err != nil || !cur.is(pos.FileID) {
			fh.Close()
			continue
		}
		if why, err := resumeAt(cur, pos); why != "" || err != nil {
			fh.Close() // rewritten before it was moved: not what was read
			continue
		}
		f.logger.Info("follow: finishing the file rotated away while stopped", "rotated", path, "offset", pos.Offset, "size", cur.size)
		return cur
	}
	return nil
}
