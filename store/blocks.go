package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// Records are written loose (one key each, in the records bucket) and,
// once codec.BlockTarget bytes of them have gathered, the oldest are
// sealed into a block (the blocks bucket, codec.AppendBlock) by the
// sealer (sealLoop): compressed outside any transaction and written by
// the committer's next transaction, which deletes their loose copies, so
// that no record is ever in both buckets and compressing never holds an
// acknowledgement back (in-commit sealing cost the HTTP ingest ~25%).
// The newest records, fewer than a block's worth, stay loose. A
// completion or a retention trim that reaches a sealed record rewrites
// its block.
//
// Stats.Bytes counts what is stored: a loose record's value, a block's
// whole value.

// maxBlockRecords bounds the records of one block.
const maxBlockRecords = 8192

// blockCache keeps the blocks readers decoded last, by key and rev (a
// rewritten block gets a new rev, so a stale entry is never found).
type blockCache struct {
	mu      sync.Mutex
	entries []cachedBlock // least recently used first
	size    int
}

type cachedBlock struct {
	last, rev uint64
	b         *codec.Block
}

// blockCacheBytes bounds the decoded blocks kept: ~60 blocks, what a
// newest-50 query whose hits are 0.1% of the records reads.
const blockCacheBytes = 60 * codec.BlockTarget

// get returns the decoded block of the bucket entry (k, v).
func (c *blockCache) get(k, v []byte) (*codec.Block, error) {
	last, err := codec.ID(k)
	if err != nil {
		return nil, err
	}
	rev, _, _, err := codec.BlockRev(v)
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", last, err)
	}
	c.mu.Lock()
	for i, e := range c.entries {
		if e.last == last && e.rev == rev {
			// The newest last: a query's blocks stay while it reads them.
			copy(c.entries[i:], c.entries[i+1:])
			c.entries[len(c.entries)-1] = e
			c.mu.Unlock()
			return e.b, nil
		}
	}
	c.mu.Unlock()
	b, err := expandStored(v, last)
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", last, err)
	}
	if b.Last() != last && len(b.Lost) == 0 {
		return nil, fmt.Errorf("block %d: %w: its last record is %d", last, codec.ErrCorrupt, b.Last())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, cachedBlock{last, rev, b})
	c.size += b.Size()
	for len(c.entries) > 1 && c.size > blockCacheBytes {
		c.size -= c.entries[0].b.Size()
		c.entries = c.entries[1:]
	}
	return b, nil
}

// expandStored expands the block v stored under last; a damaged one with
// checksums by record is read in part (codec.SalvageBlock: b.Lost names
// the runs it lacks), else the error is the damage.
func expandStored(v []byte, last uint64) (*codec.Block, error) {
	b, err := codec.DecodeBlock(v)
	if err == nil || !isDamage(err) {
		return b, err
	}
	pb, _, perr := codec.SalvageBlock(v)
	if perr != nil || pb.Len() == 0 || pb.Last() > last {
		return nil, err
	}
	pb.LostCause = err
	return pb, nil
}

// recCursor walks the records of a transaction in ID order, loose and
// sealed alike. Forward from first or seek with next; backward from last
// or below with prev. Each returns the record's ID and value (nil at the
// end or on an error, kept in err). A value read from a block stays valid
// after the transaction; a loose one, only during it. A block that does
// not expand is stepped over (damage.go): its run of IDs is added to
// skipped, for the answer to say.
type recCursor struct {
	loose, blocks *bbolt.Cursor
	d             *DB
	tx            *bbolt.Tx
	newest        uint64 // the snapshot's newest ID (lastID)
	stRead        bool
	err           error
	skipped       []oplog.Damaged // damaged blocks stepped over, in the order met

	lid       uint64 // the loose head: its ID and value (nil: none)
	lv        []byte
	lastLoose uint64       // the loose ID made head last (looseID)
	blk       *codec.Block // the block head: record bi of blk (nil: none)
	bi        int
	bk        []byte // blk's key
	out       int    // which head was returned last: 1 loose, 2 block
}

func (d *DB) cursor(tx *bbolt.Tx) *recCursor {
	return &recCursor{loose: tx.Bucket(codec.RecordsBucket).Cursor(), blocks: tx.Bucket(codec.BlocksBucket).Cursor(), d: d, tx: tx}
}

// lastID is the newest ID of the cursor's snapshot (0: unreadable).
func (c *recCursor) lastID() uint64 {
	if !c.stRead {
		c.stRead = true
		if st, err := readStats(c.tx); err == nil {
			c.newest = st.LastID
		}
	}
	return c.newest
}

// setLoose makes (k, v) the loose head. A key that is no record's (a
// damaged leaf page of bbolt's: not 8 bytes, or an ID never assigned) is
// stepped over to the next in dir.
func (c *recCursor) setLoose(k, v []byte, dir int) {
	c.lid, c.lv = 0, nil
	for ; k != nil; k, v = c.stepLoose(dir) {
		id, err := c.looseID(k, dir)
		if err == nil && v == nil { // a record's element flagged a bucket
			err = fmt.Errorf("%w: loose key %d holds a bucket", codec.ErrCorrupt, id)
		}
		if err == nil {
			c.lid, c.lv, c.lastLoose = id, v, id
			return
		}
		c.skipped = append(c.skipped, c.d.damagedKey(c.loose, c.lastID(), err))
	}
}

// looseID returns the ID of the loose key k met walking in dir, or an
// error wrapping codec.ErrCorrupt when k is no record's: not 8 bytes, past
// the newest ID, or out of order (a flipped bit moved it: behind the key
// returned before it, or, where it leaves a gap, past the key after it).
// Loose IDs are dense, so the look ahead is at a gap only.
func (c *recCursor) looseID(k []byte, dir int) (uint64, error) {
	id, err := codec.ID(k)
	if err != nil {
		return 0, err
	}
	newest := c.lastID()
	if newest == 0 {
		return id, nil
	}
	bad := id > newest
	if last := c.lastLoose; !bad && last != 0 {
		bad = dir > 0 && id <= last || dir < 0 && id >= last
	}
	if gap := c.lastLoose == 0 || dir > 0 && id > c.lastLoose+1 || dir < 0 && id+1 < c.lastLoose; !bad && gap {
		// A seek lands on k only where the keys around it are in order;
		// beside a key moved past it (the one stepped over), it lands on
		// that one, and k's neighbour is not known.
		pc := c.loose.Bucket().Cursor()
		if at, _ := pc.Seek(k); bytes.Equal(at, k) {
			var nk []byte
			if dir > 0 {
				nk, _ = pc.Next()
			} else {
				nk, _ = pc.Prev()
			}
			if next, err := codec.ID(nk); nk != nil && err == nil && next <= newest {
				bad = dir > 0 && next <= id || dir < 0 && next >= id
			}
		}
	}
	if bad {
		return 0, fmt.Errorf("%w: loose key %d out of order or past the newest ID %d", codec.ErrCorrupt, id, newest)
	}
	return id, nil
}

func (c *recCursor) stepLoose(dir int) ([]byte, []byte) {
	if dir > 0 {
		return c.loose.Next()
	}
	return c.loose.Prev()
}

// skipRecord reports whether err, from decoding the record id just
// returned, is damage to step over, and notes it: a loose record whose
// value no longer decodes (a damaged leaf page) is one ID lost.
func (c *recCursor) skipRecord(id uint64, err error) bool {
	if !isDamage(err) {
		return false
	}
	c.skipped = append(c.skipped, c.d.damagedRecord(id, err))
	return true
}

// setBlock makes (k, v) the block head at record i (-1: its last). A
// damaged block is stepped over to the next one in dir (its first record
// forward, its last backward).
func (c *recCursor) setBlock(k, v []byte, i, dir int) {
	c.blk, c.bk = nil, nil
	for k != nil {
		b, err := c.d.blocks.get(k, v)
		if err == nil {
			if i < 0 {
				i = b.Len() - 1
			}
			c.blk, c.bi, c.bk = b, i, k
			c.skipLost(b)
			return
		}
		if !isDamage(err) {
			c.err = err
			return
		}
		c.skipped = append(c.skipped, c.d.damagedBlock(c.blocks.Bucket(), k, v, err))
		if dir > 0 {
			k, v = c.blocks.Next()
			i = 0
		} else {
			k, v = c.blocks.Prev()
			i = -1
		}
	}
}

// skipLost adds to skipped the runs a block read in part lacks, as a
// damaged block's whole run is (what reads keep of them is what they
// walked: oplog.Crossed).
func (c *recCursor) skipLost(b *codec.Block) {
	for _, l := range b.Lost {
		dm := oplog.Damaged{From: l[0], To: l[1], File: c.d.path}
		c.d.noteDamage(dm, b.LostCause)
		c.skipped = append(c.skipped, dm)
	}
}

func (c *recCursor) first() (uint64, []byte) { return c.seek(0) }

// seek starts forward at the first record with an ID ≥ id.
func (c *recCursor) seek(id uint64) (uint64, []byte) {
	key := codec.Key(id)
	c.lastLoose = 0 // a new walk
	k, v := c.loose.Seek(key)
	c.setLoose(k, v, +1)
	k, v = c.blocks.Seek(key)
	c.setBlock(k, v, 0, +1)
	if c.blk != nil {
		c.bi = c.blk.Find(id)
	}
	return c.pick(+1)
}

func (c *recCursor) last() (uint64, []byte) {
	c.lastLoose = 0 // a new walk
	k, v := c.loose.Last()
	c.setLoose(k, v, -1)
	k, v = c.blocks.Last()
	c.setBlock(k, v, -1, -1)
	return c.pick(-1)
}

// below starts backward at the last record with an ID < id.
func (c *recCursor) below(id uint64) (uint64, []byte) {
	key := codec.Key(id)
	c.lastLoose = 0 // a new walk
	if k, _ := c.loose.Seek(key); k == nil {
		k, v := c.loose.Last()
		c.setLoose(k, v, -1)
	} else {
		k, v := c.loose.Prev()
		c.setLoose(k, v, -1)
	}
	k, v := c.blocks.Seek(key)
	if k == nil {
		k, v = c.blocks.Last()
		c.setBlock(k, v, -1, -1)
		return c.pick(-1)
	}
	// A damaged block here is stepped over backward: the one before holds
	// only IDs below id, where Find says Len.
	c.setBlock(k, v, 0, -1)
	if c.blk != nil {
		if c.bi = c.blk.Find(id) - 1; c.bi < 0 {
			k, v = c.blocks.Prev()
			c.setBlock(k, v, -1, -1)
		}
	}
	return c.pick(-1)
}

func (c *recCursor) next() (uint64, []byte) {
	c.step(+1)
	return c.pick(+1)
}

func (c *recCursor) prev() (uint64, []byte) {
	c.step(-1)
	return c.pick(-1)
}

// step moves the head returned last one record in dir.
func (c *recCursor) step(dir int) {
	switch c.out {
	case 1:
		k, v := c.stepLoose(dir)
		c.setLoose(k, v, dir)
	case 2:
		c.bi += dir
		switch {
		case c.bi >= c.blk.Len():
			k, v := c.blocks.Next()
			c.setBlock(k, v, 0, +1)
		case c.bi < 0:
			k, v := c.blocks.Prev()
			c.setBlock(k, v, -1, -1)
		}
	}
}

// pick returns the head that comes first in dir.
func (c *recCursor) pick(dir int) (uint64, []byte) {
	c.out = 0
	if c.err != nil {
		return 0, nil
	}
	hasBlock := c.blk != nil && c.bi >= 0 && c.bi < c.blk.Len()
	switch {
	case c.lv == nil && !hasBlock:
		return 0, nil
	case hasBlock && (c.lv == nil || dir > 0 && c.blk.ID(c.bi) < c.lid || dir < 0 && c.blk.ID(c.bi) > c.lid):
		c.out = 2
		return c.blk.ID(c.bi), c.blk.Value(c.bi)
	default:
		c.out = 1
		return c.lid, c.lv
	}
}

// inBlock reports whether the record returned last is sealed, and its block.
func (c *recCursor) inBlock() (key []byte, b *codec.Block, ok bool) {
	return c.bk, c.blk, c.out == 2
}

// sealBatch is the most blocks one round of the sealer hands the
// committer: ~2 MiB of records held, one commit's work.
const sealBatch = 16

// sealed is a block the sealer compressed: its records and the values
// they had when read (what the committer checks they still have).
type sealed struct {
	ids  []uint64
	vals [][]byte
	size int    // the values' bytes, counted in Stats.Bytes until sealed
	v    []byte // the block, rev 0 until written
	left bool   // not written: its records changed
	key  []byte // a block sealed again (reseal.go): its key,
	old  []byte // and its stored value when read
}

// The sealer waits while appends come faster than busyBytes per
// sealQuiet (~7,500 lines a second) and seals with zstd once they slow
// down; while they do not, it seals with S2 (~5× less CPU, ~45% more
// bytes) each time maxLoose bytes are loose. Compressing takes a core,
// and during a burst the acknowledgements want it: sealing with zstd
// during a 200,000-line HTTP burst cost its ingest ~25%. maxLoose bounds
// the loose records, whose pages bbolt frees once they are sealed but
// never gives back: the data file keeps the size they took.
const (
	sealQuiet = 100 * time.Millisecond
	busyBytes = 128 << 10
)

// maxLoose is a variable for the tests.
var maxLoose int64 = 64 << 20

// sealLoop seals the oldest loose records into blocks, in the background:
// woken once at Open (a store written before blocks holds only loose
// records) and by commits once a block's worth has gathered
// (noteLoose), it waits until appends slow down (busyBytes) and
// HoldSealing's function lets it go, or maxLoose bytes are loose, reads
// whole blocks' worth of records in a read transaction, compresses them
// outside any transaction, and hands the blocks to the committer, whose
// next transaction writes each block and deletes its records if they are
// still there, loose and unchanged. Then, appends quiet, it may compact
// the file (compact.go).
func (d *DB) sealLoop() {
	defer d.done.Done()
	for {
		var settled chan struct{} // Settle's: sealed now, held or not
		select {
		case <-d.stop:
			return
		case <-d.sealWake:
		case settled = <-d.settle:
		}
		fast := false // appends still came fast when maxLoose bytes were loose
		for settled == nil && d.loose.Load() < maxLoose {
			before := d.appended.Load()
			select {
			case <-d.stop:
				return
			case settled = <-d.settle:
				fast = false
				continue
			case <-time.After(sealQuiet):
			}
			if fast = d.appended.Load()-before >= busyBytes; !fast && !d.sealHeld() {
				break
			}
		}
		d.sealAll(fast)
		if fast {
			d.wakeSealer() // once appends pause: the S2 blocks sealed again, the pages given back
		} else if settled != nil || !d.sealHeld() {
			d.resealAll()
			d.maybeCompact()
		}
		if settled != nil {
			close(settled)
		}
	}
}

// Settle seals every loose record and compacts the file now, as the
// sealer does once appends pause, and returns when it is done: a command
// that appends a whole file and exits (import) leaves the store as small
// as a server would, not its records loose (about three times their
// text's bytes) until the next Open.
func (d *DB) Settle(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan struct{})
	select {
	case d.settle <- done:
	case <-d.stop:
		return oplog.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-d.stop:
		return oplog.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// HoldSealing makes the sealer wait while held reports true, as it waits
// while appends come fast (up to maxLoose bytes loose, then it seals with
// zstd). The search index holds it while more than 10,000 records are in
// none of its term sets: after a burst, compressing the burst's records
// would take a core from the index's catch-up, whose reads find them
// loose, not in blocks to expand.
func (d *DB) HoldSealing(held func() bool) { d.sealHold.Store(&held) }

// sealHeld reports whether HoldSealing's function holds the sealer.
func (d *DB) sealHeld() bool {
	h := d.sealHold.Load()
	return h != nil && *h != nil && (*h)()
}

// sealAll seals every whole block's worth of loose records, with S2 when
// fast, else zstd.
func (d *DB) sealAll(fast bool) {
	for {
		n, left, err := d.sealRound(fast)
		if err != nil {
			if !errors.Is(err, oplog.ErrClosed) {
				d.opts.Logger.Error("sealing records into blocks failed", "err", err)
			}
			return
		}
		if n < sealBatch && !left {
			return
		}
	}
}

// noteLoose counts n bytes of records appended (the commit counted them
// in d.loose too), and wakes the sealer once a block's worth is loose.
func (d *DB) noteLoose(n int) {
	d.appended.Add(int64(n))
	if d.loose.Load() >= codec.BlockTarget {
		d.wakeSealer()
	}
}

func (d *DB) wakeSealer() {
	select {
	case d.sealWake <- struct{}{}:
	default:
	}
}

// sealHook, when set, runs between a round's read and its commit (tests).
var sealHook func()

// sealRound seals up to sealBatch blocks of the oldest loose records and
// returns how many it found, and whether it left any (their records
// changed since it read them).
func (d *DB) sealRound(fast bool) (n int, left bool, err error) {
	var blocks []*sealed
	err = d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		c := tx.Bucket(codec.RecordsBucket).Cursor()
		b := &sealed{}
		var buf []byte
		for k, v := c.First(); k != nil; k, v = c.Next() {
			id, err := codec.ID(k)
			if err != nil {
				return err
			}
			if buf == nil {
				buf = make([]byte, 0, codec.BlockTarget+len(v))
			}
			buf = append(buf, v...)
			b.ids, b.vals, b.size = append(b.ids, id), append(b.vals, buf[len(buf)-len(v):len(buf):len(buf)]), b.size+len(v)
			if b.size >= codec.BlockTarget || len(b.ids) >= maxBlockRecords {
				if blocks = append(blocks, b); len(blocks) == sealBatch {
					return nil
				}
				b, buf = &sealed{}, nil
			}
		}
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	if len(blocks) == 0 {
		return 0, false, nil
	}
	for _, b := range blocks {
		if b.v, err = codec.AppendBlock(nil, 0, b.ids, b.vals, fast); err != nil {
			return 0, false, err
		}
	}
	if sealHook != nil {
		sealHook()
	}
	if err := d.do(context.Background(), &request{seal: blocks}); err != nil {
		return 0, false, err
	}
	for _, b := range blocks {
		left = left || b.left
	}
	return len(blocks), left, nil
}

// seal writes, in the committer's transaction, each of blocks whose
// records are still loose with the values they were sealed with, under
// this transaction's rev, and deletes those records; a block whose
// records changed since (a completion, a retention trim) is left for the
// sealer's next round.
func (d *DB) seal(tx *bbolt.Tx, s *oplog.Stats, blocks []*sealed) error {
	recs, bucket := tx.Bucket(codec.RecordsBucket), tx.Bucket(codec.BlocksBucket)
	for _, b := range blocks {
		if b.old != nil {
			if err := d.reseal(tx, s, b); err != nil {
				return err
			}
			continue
		}
		if b.left = !stillLoose(recs.Cursor(), b); b.left {
			continue
		}
		v, err := codec.WithRev(b.v, d.txID(tx))
		if err != nil {
			return err
		}
		for _, id := range b.ids {
			if err := recs.Delete(codec.Key(id)); err != nil {
				return fmt.Errorf("delete sealed record %d: %w", id, err)
			}
		}
		if err := bucket.Put(codec.Key(b.ids[len(b.ids)-1]), v); err != nil {
			return fmt.Errorf("put block %d–%d: %w", b.ids[0], b.ids[len(b.ids)-1], err)
		}
		s.Bytes = s.Bytes + uint64(len(v)) - uint64(b.size)
		d.txLoose -= int64(b.size)
	}
	return nil
}

// stillLoose reports whether b's records are the loose records from its
// first on, with the same values.
func stillLoose(c *bbolt.Cursor, b *sealed) bool {
	k, v := c.Seek(codec.Key(b.ids[0]))
	for i, id := range b.ids {
		if got, err := codec.ID(k); k == nil || err != nil || got != id || !bytes.Equal(v, b.vals[i]) {
			return false
		}
		k, v = c.Next()
	}
	return true
}

// rewriteBlock replaces the block at key, whose stored value was old, with
// its records ids and values vals (none: the block goes), keeping
// Stats.Bytes.
func (d *DB) rewriteBlock(tx *bbolt.Tx, s *oplog.Stats, key, old []byte, ids []uint64, vals [][]byte) error {
	b := tx.Bucket(codec.BlocksBucket)
	s.Bytes -= uint64(len(old))
	if len(ids) == 0 {
		return b.Delete(key)
	}
	v, err := codec.AppendBlock(nil, d.txID(tx), ids, vals, false)
	if err != nil {
		return err
	}
	nk := codec.Key(ids[len(ids)-1])
	if string(nk) != string(key) {
		if err := b.Delete(key); err != nil {
			return err
		}
	}
	s.Bytes += uint64(len(v))
	return b.Put(nk, v)
}

// Layout is how the records are stored: loose, or sealed in blocks.
type Layout struct {
	LooseRecords, LooseBytes uint64 // records not in a block yet and their values' bytes
	Blocks                   uint64
	SealedRecords            uint64 // records in blocks
	BlockBytes               uint64 // the blocks' stored bytes
	OutdatedBlocks           uint64 // blocks of an older format, which the sealer will seal again (reseal.go)
	FileBytes                int64  // the data file, free pages included
	FreeBytes                int64  // its free pages, which bbolt reuses before it grows the file
}

// Layout counts the loose records and reads every block's header.
func (d *DB) Layout() (Layout, error) {
	var l Layout
	l.FreeBytes = d.FreeBytes()
	err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		l.FileBytes = tx.Size()
		if err := tx.Bucket(codec.RecordsBucket).ForEach(func(_, v []byte) error {
			l.LooseRecords++
			l.LooseBytes += uint64(len(v))
			return nil
		}); err != nil {
			return err
		}
		return tx.Bucket(codec.BlocksBucket).ForEach(func(k, v []byte) error {
			_, _, n, err := codec.BlockRev(v)
			if err != nil {
				return fmt.Errorf("block %x: %w", k, err)
			}
			l.Blocks++
			if codec.BlockOutdated(v) {
				l.OutdatedBlocks++
			}
			l.SealedRecords += n
			l.BlockBytes += uint64(len(v))
			return nil
		})
	})
	return l, err
}
