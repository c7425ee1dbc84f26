package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// SalvageReport says what Salvage found and copied.
type SalvageReport struct {
	Copied    uint64   // records copied into the new file, with their IDs
	Skipped   uint64   // records found whose bytes do not decode
	BadPages  int      // pages that could not be read (a damaged page and the overflow pages after it count once): their records are lost, but for Carved
	Orphans   uint64   // of Copied, records found on pages no readable branch reaches
	Carved    uint64   // of Copied, records of blocks cut out of the overflow pages of a damaged leaf page (not in Orphans)
	Positions int      // followers' read positions copied
	Expected  uint64   // records the damaged file's counters say it held; 0 when unreadable
	LastID    uint64   // the newest ID copied
	Problems  []string // the first problems met, for the report

	// Damaged are the runs of IDs of the blocks that did not expand, oldest
	// first; DamagedRecords, of Skipped, the IDs of those runs not copied
	// from another page: the records lost with them. (A run may hold IDs
	// that retention had trimmed: its header's count is not trusted.)
	Damaged        []oplog.Damaged
	DamagedRecords uint64
}

// salvageBatch is how many records one transaction of the new file takes.
const salvageBatch = 10_000

// maxProblems is how many problems a SalvageReport lists.
const maxProblems = 10

// Salvage copies every record of the data file src that can still be read
// into a new data file dst (which must not exist), keeping each record's
// ID and run, and the followers' read positions. It reads src with the defensive
// reader of pages.go (never with bbolt, which may crash on it): the
// records bucket's tree from the newest valid meta page; when a page of
// that tree cannot be read, or the meta page leads to no records bucket,
// every other leaf page of the file that is neither reached nor free is
// read too, so the records under a damaged branch or root page are found,
// and the blocks on the overflow pages of a damaged leaf page are cut out
// of them (salvage_carve.go). The counters of dst are counted from what was
// copied, so dst passes Check.
func Salvage(src, dst string) (SalvageReport, error) {
	var rep SalvageReport
	if _, err := os.Stat(dst); err == nil {
		return rep, fmt.Errorf("salvage: %s exists; name a new file", dst)
	}
	bf, err := openBoltFile(src)
	if err != nil && bf == nil {
		return rep, fmt.Errorf("salvage: %s: %w", src, err)
	}
	defer bf.Close()
	if err != nil {
		rep.problem("%v; reading what the file holds", err)
	}
	out, err := Open(dst, nil)
	if err != nil {
		return rep, err
	}
	s := &salvager{bf: bf, out: out, rep: &rep, seen: map[uint64]bool{}, bad: map[uint64]bool{}, copied: roaring64.New()}
	err = s.run()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return rep, err
}

func (r *SalvageReport) problem(format string, args ...any) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// salvager copies one file's records.
type salvager struct {
	bf    *boltFile
	out   *DB
	rep   *SalvageReport
	seen  map[uint64]bool // pages reached by a tree walk
	bad   map[uint64]bool // pages a tree walk reached and could not read
	batch []oplog.Record
	// copied holds the IDs copied so far. The new file cannot tell: its
	// sealer moves the records copied first into blocks while salvage goes
	// on, and the same record is found again on a stale or orphan page.
	copied *roaring64.Bitmap
	err    error // the first write error: salvage stops

	prevBlock uint64 // the key of the block walked last (salvage_damage.go)
	firstID   uint64 // the oldest record, as the counters say; 0: unknown
}

func (s *salvager) run() error {
	buckets := map[string][]byte{}
	scan := false // read the pages no tree reaches
	if !s.bf.usable {
		s.rep.BadPages += len(s.bf.bad) // the meta pages
	} else {
		s.tree(s.bf.meta.root, nil, 0, func(flags uint32, k, v []byte) {
			if flags&flagBucketLeaf != 0 {
				buckets[string(k)] = v
			}
		})
	}
	if v, ok := buckets[string(codec.MetaBucket)]; ok {
		s.walkBucket(v, func(_ uint32, k, v []byte) {
			if bytes.Equal(k, codec.StatsKey) {
				if st, err := codec.DecodeStats(v); err == nil {
					s.rep.Expected, s.firstID = st.Records, st.FirstID
				}
			}
		})
	}
	if v, ok := buckets[string(codec.BlocksBucket)]; ok {
		s.walkBucket(v, s.block)
	}
	if v, ok := buckets[string(codec.RecordsBucket)]; ok {
		s.walkBucket(v, s.record)
	} else {
		s.rep.problem("the records bucket was not found from the meta page")
		scan = true
	}
	if scan || s.rep.BadPages > 0 {
		s.orphans()
	}
	s.flush()
	s.countDamaged()
	if v, ok := buckets[string(codec.PositionsBucket)]; ok && s.err == nil {
		s.err = s.positions(v)
	}
	if s.err == nil {
		s.err = s.out.recountRuns()
	}
	return s.err
}

// walkBucket walks the tree of a bucket whose value (in its parent) is v.
func (s *salvager) walkBucket(v []byte, leaf func(flags uint32, k, v []byte)) {
	if len(v) < 16 {
		s.rep.problem("a bucket header of %d bytes", len(v))
		return
	}
	root := binary.LittleEndian.Uint64(v)
	s.tree(root, v[16:], 0, leaf)
}

// tree walks the pages from root (0: the inline page) calling leaf for
// each element of its leaf pages; unreadable pages are counted and skipped.
func (s *salvager) tree(root uint64, inline []byte, depth int, leaf func(flags uint32, k, v []byte)) {
	if root == 0 {
		s.leaves(inline, leaf)
		return
	}
	if depth > maxTreeDepth || s.seen[root] {
		s.badPage(fmt.Errorf("page %d: reached twice (a cycle)", root))
		return
	}
	b, err := s.bf.page(root)
	if err != nil {
		s.bad[root] = true
		s.badPage(err)
		return
	}
	for i := uint64(0); i*uint64(s.bf.meta.pageSize) < uint64(len(b)); i++ {
		s.seen[root+i] = true
	}
	switch binary.LittleEndian.Uint16(b[8:]) {
	case flagLeaf:
		s.leaves(b, leaf)
	case flagBranch:
		n := int(binary.LittleEndian.Uint16(b[10:]))
		for i := range n {
			e := pageHeaderSize + i*elementSize
			if e+elementSize > len(b) {
				s.badPage(fmt.Errorf("page %d: %d branch elements do not fit", root, n))
				return
			}
			s.tree(binary.LittleEndian.Uint64(b[e+8:]), nil, depth+1, leaf)
		}
	default:
		s.badPage(fmt.Errorf("page %d: not a branch or leaf page", root))
	}
}

// leaves calls leaf for each element of the leaf page b whose key and
// value lie within b.
func (s *salvager) leaves(b []byte, leaf func(flags uint32, k, v []byte)) {
	if len(b) < pageHeaderSize {
		return
	}
	le := binary.LittleEndian
	n := int(le.Uint16(b[10:]))
	for i := range n {
		e := pageHeaderSize + i*elementSize
		if e+elementSize > len(b) {
			s.rep.problem("a leaf page's %d elements do not fit in it", n)
			return
		}
		flags, pos, ks, vs := le.Uint32(b[e:]), uint64(le.Uint32(b[e+4:])), uint64(le.Uint32(b[e+8:])), uint64(le.Uint32(b[e+12:]))
		k := uint64(e) + pos
		if k+ks+vs > uint64(len(b)) {
			s.rep.Skipped++
			s.rep.problem("a leaf element points past its page")
			continue
		}
		leaf(flags, b[k:k+ks], b[k+ks:k+ks+vs])
	}
}

func (s *salvager) badPage(err error) {
	s.rep.BadPages++
	s.rep.problem("%v", err)
}

// record decodes one element of the records or the blocks bucket and
// queues its records.
func (s *salvager) record(flags uint32, k, v []byte) {
	if flags&flagBucketLeaf != 0 {
		return
	}
	recs, err := decodeElement(k, v)
	if err != nil {
		s.rep.Skipped += uint64(max(len(recs), 1))
		s.rep.problem("record %x: %v", k, err)
		return
	}
	s.batch = append(s.batch, recs...)
	if len(s.batch) >= salvageBatch {
		s.flush()
	}
}

// decodeElement decodes a leaf element with an 8-byte key: a block (its
// payload has a checksum) or else one record.
func decodeElement(k, v []byte) ([]oplog.Record, error) {
	id, err := codec.ID(k)
	if err != nil {
		return nil, err
	}
	if recs, ok, err := decodeBlock(id, v); ok {
		return recs, err
	}
	r, err := codec.Decode(id, v)
	if err != nil {
		return nil, err
	}
	return []oplog.Record{r}, nil
}

// decodeBlock decodes v as the block stored under the key of id, its last
// record: ok is false when v is no such block.
func decodeBlock(id uint64, v []byte) (recs []oplog.Record, ok bool, err error) {
	b, err := codec.DecodeBlock(v)
	if err != nil || b.Last() != id {
		return nil, false, nil
	}
	recs = make([]oplog.Record, 0, b.Len())
	for i := range b.Len() {
		r, err := codec.Decode(b.ID(i), b.Value(i))
		if err != nil {
			return recs, true, err
		}
		recs = append(recs, r)
	}
	return recs, true, nil
}

func (s *salvager) flush() {
	if len(s.batch) == 0 || s.err != nil {
		return
	}
	fresh := s.batch[:0] // each ID once, as first found: the trees' pages come before the orphans
	for _, r := range s.batch {
		if r.ID != 0 && s.copied.CheckedAdd(r.ID) {
			fresh = append(fresh, r)
		}
	}
	n, err := s.out.putSalvaged(fresh)
	s.rep.Copied += n
	for _, r := range fresh {
		s.rep.LastID = max(s.rep.LastID, r.ID)
	}
	s.err = err
	s.batch = s.batch[:0]
}

// orphans reads every leaf page below the high water mark that no walk
// reached and that is not free, for the records a damaged branch or root
// page hid, stepping over the overflow pages of each. Only elements that
// decode as records with 8-byte keys are taken; a record already copied
// is not copied again. The pages left, neither free nor readable nor
// overflow pages of a readable page, are damaged pages and their
// overflow pages: the blocks on them are cut out (carve).
func (s *salvager) orphans() {
	var free map[uint64]bool
	var err error
	if !s.bf.usable {
		err = errors.New("no meta page, so no free list")
	} else {
		free, err = s.bf.freePages()
	}
	if err != nil {
		s.rep.problem("%v; stale pages may be read too", err)
	}
	before := s.rep.Copied + uint64(len(s.batch))
	var damaged []pageRun
	for id := uint64(2); id < s.bf.meta.pgid; {
		if s.seen[id] || free[id] {
			id++
			continue
		}
		hdr, err := s.bf.pageHeader(id)
		if err != nil {
			if n := len(damaged); n > 0 && damaged[n-1].end == id {
				damaged[n-1].end++
			} else {
				damaged = append(damaged, pageRun{first: id, end: id + 1, err: err})
			}
			id++
			continue
		}
		if binary.LittleEndian.Uint16(hdr[8:]) == flagLeaf {
			s.orphanLeaf(id)
		}
		id += 1 + uint64(binary.LittleEndian.Uint32(hdr[12:]))
	}
	s.flush()
	s.rep.Orphans = s.rep.Copied - min(before, s.rep.Copied)
	for _, r := range damaged {
		s.damagedRun(r, free != nil)
	}
}

// orphanLeaf queues the records of the leaf page id.
func (s *salvager) orphanLeaf(id uint64) {
	b, err := s.bf.page(id)
	if err != nil {
		return
	}
	s.leaves(b, func(flags uint32, k, v []byte) {
		if flags&flagBucketLeaf == 0 && len(k) == 8 {
			if recs, err := decodeElement(k, v); err == nil {
				s.batch = append(s.batch, recs...)
			}
		}
	})
	if len(s.batch) >= salvageBatch {
		s.flush()
	}
}

// positions copies the positions bucket whose header is v.
func (s *salvager) positions(v []byte) error {
	kv := map[string][]byte{}
	s.walkBucket(v, func(flags uint32, k, v []byte) {
		if flags&flagBucketLeaf == 0 {
			kv[string(k)] = bytes.Clone(v)
		}
	})
	s.rep.Positions = len(kv)
	return s.out.update(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		b := tx.Bucket(codec.PositionsBucket)
		for k, v := range kv {
			if err := b.Put([]byte(k), append([]byte{}, v...)); err != nil {
				return err
			}
		}
		return nil
	})
}

// putSalvaged writes recs with their own IDs and runs in one transaction,
// counting them as the committer does (the runs bucket aside: see
// recountRuns), and returns how many it wrote; a record whose ID is stored
// already is left out.
func (d *DB) putSalvaged(recs []oplog.Record) (uint64, error) {
	var n uint64
	names := nameTally{}
	err := d.update(func(tx *bbolt.Tx, s *oplog.Stats) error {
		b := tx.Bucket(codec.RecordsBucket)
		for i := range recs {
			rec := &recs[i]
			key := codec.Key(rec.ID)
			if rec.ID == 0 || b.Get(key) != nil {
				continue
			}
			v := codec.Append(nil, rec)
			if err := b.Put(key, v); err != nil {
				return fmt.Errorf("put record %d: %w", rec.ID, err)
			}
			n++
			codec.Count(s, rec.Kind, rec.Level, len(v), +1)
			names.add(rec.Source, rec.Name, rec.Kind, rec.Level, rec.Time.UnixNano(), +1)
			s.LastID = max(s.LastID, rec.ID)
			if s.FirstID == 0 || rec.ID < s.FirstID {
				s.FirstID = rec.ID
			}
		}
		return names.flush(tx, d.txID(tx), &d.names)
	})
	if err != nil {
		return 0, errors.Join(errors.New("salvage: write"), err)
	}
	return n, nil
}

// recountRuns writes the runs bucket from the records: each keeps the run
// it had, and the records come in no order (orphans after the tree).
func (d *DB) recountRuns() error {
	return d.update(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		rc := newRunRecount()
		if _, _, err := recount(tx, rc); err != nil {
			return err
		}
		b := tx.Bucket(codec.RunsBucket)
		for _, info := range rc.runs {
			if err := b.Put(codec.RunKey(info.Source, info.Run), codec.AppendRunInfo(nil, info)); err != nil {
				return err
			}
		}
		return nil
	})
}
