package store

import (
	"fmt"
	"runtime"
	"sync"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// Records are written loose (one key each, in the records bucket) and,
// once codec.BlockTarget bytes of them have gathered, the oldest are
// sealed into a block (the blocks bucket, codec.AppendBlock) by the same
// transaction that wrote the last of them, so the acknowledgement after
// fsync is unchanged and no record is ever in both buckets. The newest
// records, fewer than a block's worth, stay loose. A completion or a
// retention trim that reaches a sealed record rewrites its block.
//
// A commit seals with zstd, or with S2 (~2.5× faster, ~25% more bytes)
// when it is busy: more appends already wait behind it, or it seals more
// than two blocks at once (a burst), so that compressing never holds the
// acknowledgements back much. Rewrites and the background sealing use
// zstd.
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
const blockCacheBytes = 8 << 20

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
	b, err := codec.DecodeBlock(v)
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", last, err)
	}
	if b.Last() != last {
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

// recCursor walks the records of a transaction in ID order, loose and
// sealed alike. Forward from first or seek with next; backward from last
// or below with prev. Each returns the record's ID and value (nil at the
// end or on an error, kept in err). A value read from a block stays valid
// after the transaction; a loose one, only during it.
type recCursor struct {
	loose, blocks *bbolt.Cursor
	cache         *blockCache
	err           error

	lid uint64 // the loose head: its ID and value (nil: none)
	lv  []byte
	blk *codec.Block // the block head: record bi of blk (nil: none)
	bi  int
	bk  []byte // blk's key
	out int    // which head was returned last: 1 loose, 2 block
}

func (d *DB) cursor(tx *bbolt.Tx) *recCursor {
	return &recCursor{loose: tx.Bucket(codec.RecordsBucket).Cursor(), blocks: tx.Bucket(codec.BlocksBucket).Cursor(), cache: &d.blocks}
}

func (c *recCursor) setLoose(k, v []byte) {
	c.lid, c.lv = 0, nil
	if k == nil {
		return
	}
	id, err := codec.ID(k)
	if err != nil {
		c.err = err
		return
	}
	c.lid, c.lv = id, v
}

// setBlock makes (k, v) the block head at record i (-1: its last).
func (c *recCursor) setBlock(k, v []byte, i int) {
	c.blk, c.bk = nil, nil
	if k == nil {
		return
	}
	b, err := c.cache.get(k, v)
	if err != nil {
		c.err = err
		return
	}
	if i < 0 {
		i = b.Len() - 1
	}
	c.blk, c.bi, c.bk = b, i, k
}

func (c *recCursor) first() (uint64, []byte) { return c.seek(0) }

// seek starts forward at the first record with an ID ≥ id.
func (c *recCursor) seek(id uint64) (uint64, []byte) {
	key := codec.Key(id)
	c.setLoose(c.loose.Seek(key))
	k, v := c.blocks.Seek(key)
	c.setBlock(k, v, 0)
	if c.blk != nil {
		c.bi = c.blk.Find(id)
	}
	return c.pick(+1)
}

func (c *recCursor) last() (uint64, []byte) {
	c.setLoose(c.loose.Last())
	k, v := c.blocks.Last()
	c.setBlock(k, v, -1)
	return c.pick(-1)
}

// below starts backward at the last record with an ID < id.
func (c *recCursor) below(id uint64) (uint64, []byte) {
	key := codec.Key(id)
	if k, _ := c.loose.Seek(key); k == nil {
		c.setLoose(c.loose.Last())
	} else {
		c.setLoose(c.loose.Prev())
	}
	k, v := c.blocks.Seek(key)
	if k == nil {
		k, v = c.blocks.Last()
		c.setBlock(k, v, -1)
		return c.pick(-1)
	}
	c.setBlock(k, v, 0)
	if c.blk != nil {
		if c.bi = c.blk.Find(id) - 1; c.bi < 0 {
			k, v = c.blocks.Prev()
			c.setBlock(k, v, -1)
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
		if dir > 0 {
			c.setLoose(c.loose.Next())
		} else {
			c.setLoose(c.loose.Prev())
		}
	case 2:
		c.bi += dir
		switch {
		case c.bi >= c.blk.Len():
			k, v := c.blocks.Next()
			c.setBlock(k, v, 0)
		case c.bi < 0:
			k, v := c.blocks.Prev()
			c.setBlock(k, v, -1)
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

// place writes a commit's new records (ascending IDs, above every stored
// one): with the loose records before them, as many blocks as they fill,
// and the rest loose. Behind a backlog of loose records (a store written
// before blocks) they go loose and the oldest loose records are sealed
// instead, a block more than they fill.
func place(tx *bbolt.Tx, s *oplog.Stats, ids []uint64, vals [][]byte, fast bool) error {
	recs := tx.Bucket(codec.RecordsBucket)
	all, allVals, size, err := oldestLoose(recs, func(size, _ int) bool { return size > 2*codec.BlockTarget })
	if err != nil {
		return err
	}
	if size > 2*codec.BlockTarget {
		return placeBehindBacklog(tx, s, ids, vals, fast)
	}
	old := len(all)
	all, allVals = append(all, ids...), append(allVals, vals...)
	var blocks []newBlock
	from := 0
	size = 0
	for i, v := range allVals {
		if size += len(v); size < codec.BlockTarget && i+1-from < maxBlockRecords {
			continue
		}
		blocks = append(blocks, newBlock{ids: all[from : i+1], vals: allVals[from : i+1], size: size})
		from, size = i+1, 0
	}
	if err := putBlocks(tx, s, blocks, fast); err != nil {
		return err
	}
	for i := range min(from, old) {
		if err := recs.Delete(codec.Key(all[i])); err != nil {
			return err
		}
	}
	for i := max(from, old); i < len(all); i++ {
		if err := recs.Put(codec.Key(all[i]), allVals[i]); err != nil {
			return fmt.Errorf("put record %d: %w", all[i], err)
		}
	}
	return nil
}

// newBlock is a block to write: its records and the bytes their values
// take in Stats.Bytes.
type newBlock struct {
	ids  []uint64
	vals [][]byte
	size int
	v    []byte // encoded
	err  error
}

// oldestLoose reads the loose records from the oldest on until enough
// says the ones read (their values' bytes and count) are enough, or none
// is left.
func oldestLoose(recs *bbolt.Bucket, enough func(size, n int) bool) (ids []uint64, vals [][]byte, size int, err error) {
	c := recs.Cursor()
	for k, v := c.First(); k != nil && !enough(size, len(ids)); k, v = c.Next() {
		id, err := codec.ID(k)
		if err != nil {
			return nil, nil, 0, err
		}
		ids, vals, size = append(ids, id), append(vals, v), size+len(v)
	}
	return ids, vals, size, nil
}

// putBlocks writes blocks, compressed on every core when there are
// several (a burst's commit seals dozens), and counts their stored bytes
// in Stats.Bytes instead of their values'.
func putBlocks(tx *bbolt.Tx, s *oplog.Stats, blocks []newBlock, fast bool) error {
	rev := uint64(tx.ID())
	if len(blocks) > 1 {
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for i := range blocks {
			b := &blocks[i]
			sem <- struct{}{}
			wg.Go(func() {
				b.v, b.err = codec.AppendBlock(nil, rev, b.ids, b.vals, fast)
				<-sem
			})
		}
		wg.Wait()
	} else if len(blocks) == 1 {
		blocks[0].v, blocks[0].err = codec.AppendBlock(nil, rev, blocks[0].ids, blocks[0].vals, fast)
	}
	bucket := tx.Bucket(codec.BlocksBucket)
	for _, b := range blocks {
		if b.err != nil {
			return b.err
		}
		if err := bucket.Put(codec.Key(b.ids[len(b.ids)-1]), b.v); err != nil {
			return fmt.Errorf("put block %d–%d: %w", b.ids[0], b.ids[len(b.ids)-1], err)
		}
		s.Bytes = s.Bytes + uint64(len(b.v)) - uint64(b.size)
	}
	return nil
}

// placeBehindBacklog is place behind a backlog of loose records.
func placeBehindBacklog(tx *bbolt.Tx, s *oplog.Stats, ids []uint64, vals [][]byte, fast bool) error {
	recs := tx.Bucket(codec.RecordsBucket)
	size := 0
	for i, id := range ids {
		if err := recs.Put(codec.Key(id), vals[i]); err != nil {
			return fmt.Errorf("put record %d: %w", id, err)
		}
		size += len(vals[i])
	}
	_, err := sealLoose(tx, s, size/codec.BlockTarget+2, fast)
	return err
}

// sealLoose seals the oldest loose records into at most maxBlocks blocks,
// each once codec.BlockTarget bytes of them are there, and returns how
// many it sealed.
func sealLoose(tx *bbolt.Tx, s *oplog.Stats, maxBlocks int, fast bool) (int, error) {
	recs := tx.Bucket(codec.RecordsBucket)
	n := 0
	for ; n < maxBlocks; n++ {
		ids, vals, size, err := oldestLoose(recs, func(size, count int) bool { return size >= codec.BlockTarget || count >= maxBlockRecords })
		if err != nil {
			return n, err
		}
		if size < codec.BlockTarget && len(ids) < maxBlockRecords {
			return n, nil
		}
		if err := putBlocks(tx, s, []newBlock{{ids: ids, vals: vals, size: size}}, fast); err != nil {
			return n, err
		}
		for _, id := range ids {
			if err := recs.Delete(codec.Key(id)); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// rewriteBlock replaces the block at key, whose stored value was old, with
// its records ids and values vals (none: the block goes), keeping
// Stats.Bytes.
func rewriteBlock(tx *bbolt.Tx, s *oplog.Stats, key, old []byte, ids []uint64, vals [][]byte) error {
	b := tx.Bucket(codec.BlocksBucket)
	s.Bytes -= uint64(len(old))
	if len(ids) == 0 {
		return b.Delete(key)
	}
	v, err := codec.AppendBlock(nil, uint64(tx.ID()), ids, vals, false)
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
	FileBytes                int64  // the data file, free pages included
}

// Layout counts the loose records and reads every block's header.
func (d *DB) Layout() (Layout, error) {
	var l Layout
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
			l.SealedRecords += n
			l.BlockBytes += uint64(len(v))
			return nil
		})
	})
	return l, err
}

// sealBacklog seals the loose records a store written before blocks (or
// salvaged) holds, sealBatch blocks a transaction, in the background after
// Open, so that an idle store is sealed too. Commits seal the records they
// write themselves.
func (d *DB) sealBacklog() {
	defer d.done.Done()
	const sealBatch = 16
	for {
		n := 0
		err := d.update(func(tx *bbolt.Tx, s *oplog.Stats) error {
			var err error
			if n, err = sealLoose(tx, s, sealBatch, false); err == nil && n == 0 {
				return errUnchanged
			}
			return err
		})
		if err != nil {
			d.opts.Logger.Error("sealing records into blocks failed", "err", err)
		}
		if err != nil || n < sealBatch {
			return
		}
		select {
		case <-d.stop:
			return
		default:
		}
	}
}
