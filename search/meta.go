package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/internal/atomicfile"
	"github.com/mcplogd/mcplogd/oplog"
)

// metaFile is DATA/index/meta.json.
type metaFile struct {
	MappingVersion int           `json:"mappingVersion"`
	Revision       uint64        `json:"revision"`
	IndexedThrough uint64        `json:"indexedThrough"`
	SegmentSize    uint64        `json:"segmentSize"`
	Segments       []segmentMeta `json:"segments"`
}

type segmentMeta struct {
	Lo   uint64 `json:"lo"`
	Docs uint64 `json:"docs"`
	Time span   `json:"time"` // absent (not Known) in an older meta.json: never skipped
}

// load opens what meta.json lists, or starts over.
func (x *Index) load() error {
	stats := x.st.Stats()
	fresh := func(why string) error {
		switch why {
		case "":
		case "no index":
			// A store that `mcplogd run` or `import` made without a server:
			// its first server builds the index, which is no problem to warn of.
			x.opts.Logger.Info("search index will be built", "dir", x.dir, "records", stats.Records)
		default:
			x.opts.Logger.Warn("search index will be rebuilt", "dir", x.dir, "reason", why, "records", stats.Records)
		}
		for _, s := range x.segs {
			_ = s.idx.Close()
		}
		x.segs, x.watermark, x.persisted, x.revision = nil, 0, 0, stats.Revision
		if stats.Records > 0 {
			x.state, x.rebuildTo = oplog.IndexRebuilding, stats.LastID
		}
		if err := removeSegments(x.dir, nil); err != nil {
			return err
		}
		return x.tolerateFull(x.writeMeta())
	}
	b, err := os.ReadFile(filepath.Join(x.dir, metaName))
	if errors.Is(err, os.ErrNotExist) {
		return fresh(map[bool]string{true: "no index", false: ""}[stats.Records > 0])
	}
	var m metaFile
	switch {
	case err != nil:
		return fresh("meta.json: " + err.Error())
	case json.Unmarshal(b, &m) != nil:
		return fresh("meta.json is corrupt")
	case m.MappingVersion != MappingVersion:
		return fresh(fmt.Sprintf("mapping version %d, want %d", m.MappingVersion, MappingVersion))
	case m.SegmentSize != x.opts.SegmentSize:
		return fresh(fmt.Sprintf("segment size %d, want %d", m.SegmentSize, x.opts.SegmentSize))
	case m.Revision != stats.Revision:
		return fresh("the log was cleared or replaced")
	case m.IndexedThrough > stats.LastID:
		return fresh("the index is ahead of the log")
	}
	x.revision, x.watermark, x.persisted = m.Revision, m.IndexedThrough, m.IndexedThrough
	keep := map[string]bool{}
	for _, sm := range m.Segments {
		s, err := x.openSegment(sm)
		if err != nil {
			// Everything from this segment up is indexed again.
			x.opts.Logger.Warn("search index segment is corrupt; rebuilding from it", "segment", segName(sm.Lo), "err", err)
			x.watermark = min(x.watermark, sm.Lo-1)
			x.persisted = x.watermark
			x.state, x.rebuildTo = oplog.IndexRebuilding, stats.LastID
			break
		}
		x.segs = append(x.segs, s)
		keep[segName(sm.Lo)] = true
	}
	if err := removeSegments(x.dir, keep); err != nil {
		return err
	}
	if err := x.tolerateFull(x.writeMeta()); err != nil {
		return err
	}
	return x.loadPending()
}

// openSegment opens one segment and checks it against what meta.json says.
// bleve may panic on a mangled file; that is corruption too.
func (x *Index) openSegment(sm segmentMeta) (s *segment, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic opening: %v", r)
		}
	}()
	path := filepath.Join(x.dir, segName(sm.Lo))
	if err := verifySegment(path); err != nil {
		return nil, err
	}
	idx, err := bleve.OpenUsing(path, scorchConfig())
	if err != nil {
		return nil, err
	}
	n, err := idx.DocCount()
	hi := sm.Lo + x.opts.SegmentSize - 1
	if err == nil && n > x.opts.SegmentSize {
		err = fmt.Errorf("%d documents in a segment of %d IDs", n, x.opts.SegmentSize)
	}
	if err == nil {
		// Read the whole segment once: a damaged file fails here, not in a search.
		_, err = idx.Search(bleve.NewSearchRequestOptions(query.NewMatchAllQuery(), 1, 0, false))
	}
	if err != nil {
		_ = idx.Close()
		return nil, err
	}
	return &segment{lo: sm.Lo, hi: hi, docs: n, span: sm.Time, times: newTimeCol(sm.Lo, x.opts.SegmentSize), idx: idx}, nil
}

// loadPending finds the operations indexed while pending: they may have
// completed since, and are matched from the store until indexed again.
func (x *Index) loadPending() error {
	tq := query.NewTermQuery(oplog.StatusPending.String())
	tq.SetField("status")
	for _, s := range x.segs {
		ids, err := searchIDs(context.Background(), s.idx, x.m, tq, s.lo, s.hi, nil, nil, nil)
		if err != nil {
			return fmt.Errorf("index: %s: %w", segName(s.lo), err)
		}
		x.dirty.add(ids...)
	}
	return nil
}

func segName(lo uint64) string { return fmt.Sprintf("%s%020d", segPrefix, lo) }

// removeSegments deletes the segment directories of dir not in keep.
func removeSegments(dir string, keep map[string]bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), segPrefix) && !keep[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("index: %w", err)
			}
		}
	}
	return nil
}

// writeMeta records the watermark and the segments, atomically, and
// durably.
func (x *Index) writeMeta() error { return x.writeMetaSync(true) }

// writeMetaSync is writeMeta that leaves the file to the system's write-back
// when sync is false: what it records is on disk already (persisted
// callbacks), so a crash leaves an older meta.json, whose records are
// indexed again, or at worst an empty one, and the index is rebuilt. The
// indexer writes it after every step, and an fsync there was dead time.
func (x *Index) writeMetaSync(sync bool) error {
	x.metaLock.Lock()
	defer x.metaLock.Unlock()
	x.mu.RLock()
	m := metaFile{MappingVersion: MappingVersion, Revision: x.revision, IndexedThrough: x.persisted, SegmentSize: x.opts.SegmentSize}
	for _, s := range x.segs {
		// Taken with the watermark: the span covers every document it counts.
		m.Segments = append(m.Segments, segmentMeta{Lo: s.lo, Docs: s.docs, Time: s.span})
	}
	x.mu.RUnlock()
	b, _ := json.Marshal(m)
	write := atomicfile.Replace
	if sync {
		write = atomicfile.WriteFile
	}
	if err := write(filepath.Join(x.dir, metaName), b, 0o600); err != nil {
		return fmt.Errorf("index: write %s: %w", metaName, err)
	}
	x.mu.Lock()
	x.metaWritten = m.IndexedThrough
	x.mu.Unlock()
	return nil
}

// HoldsRecords reports whether the index in dir has indexed records (its
// meta.json says so, or segment directories are there): then the log it
// was built from is not new, and a missing or empty log beside it is lost
// data, not a fresh start.
func HoldsRecords(dir string) bool {
	if b, err := os.ReadFile(filepath.Join(dir, metaName)); err == nil {
		var m metaFile
		if json.Unmarshal(b, &m) == nil && (m.IndexedThrough > 0 || len(m.Segments) > 0) {
			return true
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), segPrefix) {
			return true
		}
	}
	return false
}
