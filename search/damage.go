package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/mcplogd/mcplogd/oplog"
)

// Damage: a segment's files are checked before they are used, and a
// search that fails on a damaged segment starts the index over.
//
// Every zap file (bleve's segment format, every version bleve reads) ends
// with the CRC-32 (IEEE) of everything before it, which bleve writes but
// never checks. At Open each segment is opened read-only first (so no
// merger or persister of bleve runs on a damaged file: a panic in their
// goroutines would end the process) and each zap file its snapshot uses is
// checked; only then is it opened for writing. A search that fails, or
// panics, in a segment checks that segment's files the same way: when
// they are damaged the index starts over (searches stay exact: the records
// above the watermark are evaluated from the store), and the search runs
// again.

// zapFooterCRC is the size of the CRC that ends a zap file.
const zapFooterCRC = 4

// recheckAfter is how long after a failed search checked a segment's files
// another failure checks them again.
const recheckAfter = 10 * time.Second

// verifySegment opens the segment at path read-only and checks every zap
// file of its current snapshot. bleve may panic on a mangled file; that is
// damage too.
func verifySegment(path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic opening: %v", r)
		}
	}()
	idx, err := bleve.OpenUsing(path, map[string]any{"read_only": true})
	if err != nil {
		return err
	}
	defer idx.Close()
	return checkFiles(idx)
}

// checkFiles checks the CRC of every zap file idx's current snapshot uses.
func checkFiles(idx bleve.Index) error {
	files, err := segmentFiles(idx)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := checkZap(f); err != nil {
			return err
		}
	}
	return nil
}

// segmentFiles returns the paths of the zap files of idx's current snapshot.
func segmentFiles(idx bleve.Index) ([]string, error) {
	ai, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := ai.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, nil // not scorch: nothing to check
	}
	var files []string
	for _, ss := range snap.Segments() {
		if p, ok := ss.Segment().(interface{ Path() string }); ok {
			files = append(files, p.Path())
		}
	}
	return files, nil
}

// checkZap compares the CRC that ends the zap file at path with one
// computed over the rest of it.
func checkZap(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	n := fi.Size() - zapFooterCRC
	if n < 0 {
		return fmt.Errorf("%s: %d bytes, too short for a segment", path, fi.Size())
	}
	h := crc32.NewIEEE()
	if _, err := io.CopyN(h, f, n); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var tail [zapFooterCRC]byte
	if _, err := io.ReadFull(f, tail[:]); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if want := binary.BigEndian.Uint32(tail[:]); h.Sum32() != want {
		return fmt.Errorf("%s: checksum %08x, the file says %08x", path, h.Sum32(), want)
	}
	return nil
}

// segmentError is a search's failure in one segment.
type segmentError struct {
	seg *segment
	err error
}

func (e *segmentError) Error() string { return fmt.Sprintf("index: %s: %v", segName(e.seg.lo), e.err) }
func (e *segmentError) Unwrap() error { return e.err }

// safeSegmentIDs is segmentIDs with a panic turned into a segmentError.
func (x *Index) safeSegmentIDs(ctx context.Context, s *segment, c *compiled, lo, hi uint64) (ids []uint64, err error) {
	defer func() {
		if r := recover(); r != nil {
			ids, err = nil, &segmentError{seg: s, err: fmt.Errorf("panic: %v", r)}
		}
	}()
	ids, err = x.segmentIDs(ctx, s, c, lo, hi)
	if err != nil {
		err = &segmentError{seg: s, err: err}
	}
	return ids, err
}

// repair reports whether err is a search's failure in a segment whose
// files are damaged, and if so starts the index over, so that the search
// can run again (on the records, from the store).
func (x *Index) repair(err error) bool {
	var se *segmentError
	if !errors.As(err, &se) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var oe *oplog.Error
	if errors.As(err, &oe) {
		return false // the query's fault, or the store's
	}
	now := time.Now().UnixNano()
	if last := se.seg.checked.Load(); now-last < int64(recheckAfter) || !se.seg.checked.CompareAndSwap(last, now) {
		return false // checked a moment ago (a query that fails on every call need not read the files each time)
	}
	cerr := checkFiles(se.seg.idx)
	if cerr == nil {
		return false
	}
	x.mu.RLock()
	current := false
	for _, s := range x.segs {
		current = current || s == se.seg
	}
	x.mu.RUnlock()
	if current {
		x.opts.Logger.Warn("search index segment is damaged; rebuilding the index", "segment", segName(se.seg.lo), "err", cerr, "search", err)
		if rerr := x.restart("segment "+segName(se.seg.lo)+" is damaged", x.st.Stats()); rerr != nil {
			x.opts.Logger.Error("search index: starting over failed", "err", rerr)
			return false
		}
	}
	return true
}
