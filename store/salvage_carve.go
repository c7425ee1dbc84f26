package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mcplogd/mcplogd/internal/codec"
)

// A leaf page of the blocks bucket holds a few blocks (bbolt never splits
// a leaf of four elements or fewer, whatever its size): its first page
// starts with the table of its elements (where each key and value lies),
// then each block's key and value one after the other, running on over
// its overflow pages. A damaged first page loses the table, and with
// it the way bbolt finds every block of the page, though only the blocks
// with bytes on that page are damaged: the others lie whole on the
// overflow pages. Salvage cuts them out: a block is recognised by its key
// (its last record's ID, 8 bytes) followed by a block header whose first
// ID and count fit under it, and it is taken only when it decodes,
// checksums and all, with the key's ID as its last.

// pageRun is a run of pages [first, end) that no readable page accounts
// for: a damaged page and the overflow pages after it, or more damage;
// err is what was wrong with the first.
type pageRun struct {
	first, end uint64
	err        error
}

const (
	// maxCarveBytes bounds the bytes of one run of damaged pages that
	// salvage reads to cut blocks out of.
	maxCarveBytes = 64 << 20
	// maxCarveValue bounds how far after its start salvage looks for the
	// end of a leaf's last block, which no next key marks: each end tried
	// costs a decoding.
	maxCarveValue = 2 * codec.BlockTarget
	// maxCarveStarts is how many of the next block starts salvage tries
	// as a block's end: a start found in a damaged page may be no block's.
	maxCarveStarts = 4
	// maxBlockID bounds the IDs a key of a carved block may hold.
	maxBlockID = 1 << 48
)

// damagedRun counts the run r of damaged pages as one bad page, unless a
// tree walk counted its first page already or the free list is unknown
// (then r may be the overflow pages of a page freed long ago), and copies
// the blocks cut out of it.
func (s *salvager) damagedRun(r pageRun, freeKnown bool) {
	if freeKnown && !s.bad[r.first] {
		if r.end-r.first > 1 {
			s.badPage(fmt.Errorf("%w, and the %d pages after it are not readable pages either (its overflow pages, or more damage)", r.err, r.end-r.first-1))
		} else {
			s.badPage(r.err)
		}
	}
	before, skipped := s.rep.Copied, s.rep.Skipped
	blocks := s.carve(r)
	s.flush()
	if carved := s.rep.Copied - before; blocks > 0 {
		s.rep.Carved += carved
		s.rep.problem("pages %d-%d: %d blocks (%d records, %d undecodable) cut out of the overflow pages of a damaged page", r.first, r.end-1, blocks, carved, s.rep.Skipped-skipped)
	}
}

// carve queues the records of the blocks found whole on the pages of r,
// and returns how many blocks it found.
func (s *salvager) carve(r pageRun) int {
	ps := uint64(s.bf.meta.pageSize)
	n := min(r.end-r.first, maxCarveBytes/ps)
	b := make([]byte, n*ps)
	if _, err := s.bf.f.ReadAt(b, int64(r.first*ps)); err != nil && !errors.Is(err, io.EOF) {
		s.rep.problem("pages %d-%d: %v", r.first, r.end-1, err)
		return 0
	}
	starts := blockStarts(b)
	found, taken := 0, 0 // b before taken is a block found
	for i, at := range starts {
		if at < taken {
			continue
		}
		id := binary.BigEndian.Uint64(b[at-8:])
		for _, end := range blockEnds(b, starts[i+1:], at, int(ps)) {
			recs, ok, err := decodeBlock(id, b[at:end])
			if !ok {
				continue
			}
			found, taken = found+1, end
			if err != nil {
				s.rep.Skipped += uint64(max(len(recs), 1))
				s.rep.problem("block %d on pages %d-%d: %v", id, r.first, r.end-1, err)
				break
			}
			s.batch = append(s.batch, recs...)
			if len(s.batch) >= salvageBatch {
				s.flush()
			}
			break
		}
	}
	return found
}

// blockStarts returns the offsets in b where a block may start: after 8
// bytes that read as a key, a block header whose records, first to last,
// fit under the key's ID.
func blockStarts(b []byte) []int {
	var starts []int
	for at := 8; at < len(b); at++ {
		if f := b[at]; f != codec.BlockZstd && f != codec.BlockS2 && f != codec.BlockZstdCols && f != codec.BlockZstdWords {
			continue
		}
		id := binary.BigEndian.Uint64(b[at-8:])
		if id == 0 || id >= maxBlockID {
			continue
		}
		_, first, n, err := codec.BlockRev(b[at:min(len(b), at+1+3*binary.MaxVarintLen64)])
		if err == nil && n > 0 && n <= maxBlockRecords && first <= id && id-first >= n-1 {
			starts = append(starts, at)
		}
	}
	return starts
}

// blockEnds returns where the block starting at at in b may end, likeliest
// first: where the key of one of the next starts begins (a leaf keeps its
// values one after the other), then, for a leaf's last value, at each
// page boundary after it, before the zero bytes bbolt filled the page
// with, or up to three bytes later (a checksum may end in zeros).
func blockEnds(b []byte, next []int, at, pageSize int) []int {
	var ends []int
	for _, n := range next[:min(len(next), maxCarveStarts)] {
		if n-8 > at {
			ends = append(ends, n-8)
		}
	}
	for p := (at/pageSize + 1) * pageSize; p <= min(len(b), at+maxCarveValue); p += pageSize {
		e := p
		for e > at && b[e-1] == 0 {
			e--
		}
		for z := e; z <= min(e+3, p); z++ {
			if z > at && !slices.Contains(ends, z) {
				ends = append(ends, z)
			}
		}
	}
	return ends
}
