package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mcplogd/mcplogd/oplog"
)

// position is where a previous run stopped, from its newest record.
type position struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	FileID string `json:"fileId"`
}

// lastPosition returns the position in the newest record of source that
// carries one, or nil when there is none.
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
		File   string `json:"file"`
		Offset *int64 `json:"offset"`
		FileID string `json:"fileId"`
	}
	if json.Unmarshal(data, &p) != nil || p.Offset == nil || p.FileID == "" {
		return nil
	}
	return &position{File: p.File, Offset: *p.Offset, FileID: p.FileID}
}

// open opens the file at the path, or at the first open after a restart
// the file the previous run was reading. It reports whether a file is open.
func (f *Follower) open() bool {
	fh, err := os.Open(f.opts.Path)
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
	if pos := f.resume; pos != nil {
		f.resume = nil
		switch {
		case cur.is(pos.FileID) && cur.size >= pos.Offset:
			cur.read, cur.stored = pos.Offset, pos.Offset
			f.logger.Info("follow: resuming", "offset", pos.Offset)
		case cur.is(pos.FileID):
			f.logger.Info("follow: the file was truncated while stopped; reading it from the start", "offset", pos.Offset, "size", cur.size)
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
	return true
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
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok || uint64(st.Dev) != dev || st.Ino != ino || info.Size() < pos.Offset {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fh, err := os.Open(path)
		if err != nil {
			continue
		}
		cur, err := newFile(fh, path)
		if err != nil || !cur.is(pos.FileID) {
			fh.Close()
			continue
		}
		cur.read, cur.stored = pos.Offset, pos.Offset
		f.logger.Info("follow: finishing the file rotated away while stopped", "rotated", path, "offset", pos.Offset, "size", cur.size)
		return cur
	}
	return nil
}
