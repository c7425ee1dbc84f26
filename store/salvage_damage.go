package store

import (
	"fmt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// A block of the blocks bucket that does not expand (a flipped bit: zstd's
// frame checksum, the CRC-32C after an S2 block) loses the records it
// held: every one, but for a block with checksums by record (format
// BlockZstdWords), of which salvage copies the runs of 64 that their
// checksums vouch for (codec.SalvageBlock; about half of a block for one
// flipped bit). It notes the runs of IDs lost, as the store's readers do
// for whole blocks (damage.go), and counts in Skipped the IDs of those
// runs that it did not copy from another page (a stale copy on a free or
// orphan page).

// salvageFirst is the first ID of the run of the damaged block stored
// under last, whose header says first and n, the block walked before it
// having been under prev (0: none) and the file's oldest record firstID
// (0: unknown): the record after prev, its header's first when that lies
// within the run, else last alone.
func salvageFirst(v []byte, prev, last, firstID uint64) uint64 {
	from := last
	if prev > 0 && prev < last {
		from = prev + 1
	} else if firstID > 0 && firstID <= last {
		from = firstID
	}
	if _, first, n, err := codec.BlockRev(v); err == nil && n > 0 && first <= last && n <= last-first+1 && (first >= from || from == last) {
		from = first
	}
	return from
}

// block decodes one element of the blocks bucket and queues its records; a
// block that does not decode is noted as damaged.
func (s *salvager) block(flags uint32, k, v []byte) {
	if flags&flagBucketLeaf != 0 {
		return
	}
	id, err := codec.ID(k)
	if err != nil {
		s.rep.Skipped++
		s.rep.problem("block %x: %v", k, err)
		return
	}
	prev := s.prevBlock
	s.prevBlock = id
	recs, ok, err := decodeBlock(id, v)
	if ok && err == nil {
		s.batch = append(s.batch, recs...)
		if len(s.batch) >= salvageBatch {
			s.flush()
		}
		return
	}
	if !ok {
		_, err = codec.DecodeBlock(v)
		if err == nil {
			err = fmt.Errorf("%w: its last record is not %d", codec.ErrCorrupt, id)
		} else if s.partBlock(v, id, err) {
			return
		}
	}
	dm := oplog.Damaged{From: salvageFirst(v, prev, id, s.firstID), To: id}
	s.rep.Damaged = append(s.rep.Damaged, dm)
	s.rep.problem("block of records %d..%d: %v", dm.From, dm.To, err)
	if ok { // its records decoded up to a bad one: those are copied
		s.batch = append(s.batch, recs...)
	}
}

// partBlock copies the records of the damaged block v (stored under id,
// which failed with cause) that its checksums by record vouch for
// (codec.SalvageBlock), and notes the runs of the others as damaged; false
// when the block cannot be read so.
func (s *salvager) partBlock(v []byte, id uint64, cause error) bool {
	b, lost, err := codec.SalvageBlock(v)
	if err != nil || (b.Len() > 0 && b.Last() > id) || len(lost) > 0 && lost[len(lost)-1][1] > id {
		return false
	}
	for i := range b.Len() {
		r, err := codec.Decode(b.ID(i), b.Value(i))
		if err != nil {
			return false
		}
		s.batch = append(s.batch, r)
	}
	for _, l := range lost {
		dm := oplog.Damaged{From: l[0], To: l[1]}
		s.rep.Damaged = append(s.rep.Damaged, dm)
		s.rep.problem("block of records to %d: records %d..%d lost (%v), %d of the block copied", id, dm.From, dm.To, cause, b.Len())
	}
	if len(s.batch) >= salvageBatch {
		s.flush()
	}
	return true
}

// countDamaged adds to Skipped the IDs of the damaged blocks' runs that
// were not copied from elsewhere: the records lost with them.
func (s *salvager) countDamaged() {
	for _, dm := range s.rep.Damaged {
		for id := dm.From; id <= dm.To; id++ {
			if !s.copied.Contains(id) {
				s.rep.Skipped++
				s.rep.DamagedRecords++
			}
		}
	}
}
