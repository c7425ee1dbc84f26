package store

import (
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

func (d *DB) kickRetention() {
	select {
	case d.trim <- struct{}{}:
	default:
	}
}

func (d *DB) overLimit(s *oplog.Stats) bool {
	return d.opts.MaxRecords > 0 && s.Records > d.opts.MaxRecords || d.opts.MaxBytes > 0 && s.Bytes > d.opts.MaxBytes
}

// held reports whether record id is held (Options.Hold) and the disk limit
// MaxBytes does not force it out.
func (d *DB) held(id uint64, s *oplog.Stats) bool {
	if d.opts.Hold == nil || id <= d.opts.Hold() {
		return false
	}
	return d.opts.MaxBytes == 0 || s.Bytes <= d.opts.MaxBytes
}

// retentionLoop trims the oldest records when a commit went over a limit
// and, for MaxAge, on a timer.
func (d *DB) retentionLoop() {
	defer d.done.Done()
	if d.opts.MaxRecords == 0 && d.opts.MaxBytes == 0 && d.opts.MaxAge == 0 {
		return
	}
	tick := time.NewTicker(d.opts.RetentionInterval)
	defer tick.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-d.trim:
		case <-tick.C:
		}
		sealed := false
		for {
			n, err := d.trimOnce(!sealed)
			if errors.Is(err, errSealFirst) {
				sealed = true
				d.sealAll(false)
				continue
			}
			if err != nil {
				d.opts.Logger.Error("retention failed", "err", err)
			}
			if n > 0 {
				d.opts.Logger.Debug("retention trimmed records", "records", n)
			}
			if err != nil || n < d.opts.TrimBatch {
				break
			}
			select {
			case <-d.stop:
				return
			default:
			}
		}
	}
}

// trimmedBlock is a block some of whose oldest records trimOnce removes:
// its first n.
type trimmedBlock struct {
	key, stored []byte
	b           *codec.Block
	n, shares   int
}

// errSealFirst: the store is over its byte limit with a block's worth or
// more of records loose, which take 2–3× their sealed bytes.
var errSealFirst = errors.New("seal the loose records before trimming")

// trimOnce removes up to TrimBatch of the oldest records that are over a
// limit, in one transaction, and returns how many it removed; with
// sealFirst, errSealFirst instead when sealing may bring the store under
// its byte limit.
func (d *DB) trimOnce(sealFirst bool) (int, error) {
	cutoff := int64(0)
	if d.opts.MaxAge > 0 {
		cutoff = d.opts.Now().Add(-d.opts.MaxAge).UnixNano()
	}
	var n int
	err := d.update(func(tx *bbolt.Tx, s *oplog.Stats) error {
		if sealFirst && d.opts.MaxBytes > 0 && s.Bytes > d.opts.MaxBytes && d.loose.Load() >= codec.BlockTarget {
			return errSealFirst
		}
		b := tx.Bucket(codec.RecordsBucket)
		names := nameTally{}
		var doomed [][]byte
		var sealed []trimmedBlock
		c := d.cursor(tx)
		id, v := c.first()
		for ; v != nil && n < d.opts.TrimBatch; id, v = c.next() {
			if len(c.skipped) > 0 {
				// A damaged block: its records cannot be counted out, so
				// retention stops before it until salvage copies the file.
				id = c.skipped[0].From
				break
			}
			kind, level, _, t, err := codec.Header(v)
			if err != nil {
				return fmt.Errorf("record %d: %w", id, err)
			}
			if !d.overLimit(s) && (cutoff == 0 || t >= cutoff) || d.held(id, s) {
				break
			}
			source, name, err := codec.SourceName(v)
			if err != nil {
				return fmt.Errorf("record %d: %w", id, err)
			}
			size := len(v)
			if key, blk, ok := c.inBlock(); ok {
				if len(sealed) == 0 || string(sealed[len(sealed)-1].key) != string(key) {
					sealed = append(sealed, trimmedBlock{key: key, b: blk, stored: tx.Bucket(codec.BlocksBucket).Get(key)})
				}
				tb := &sealed[len(sealed)-1]
				tb.n++
				size = len(tb.stored) * len(v) / max(blk.Expanded(), 1) // its share, until the block is rewritten
				tb.shares += size
			} else {
				doomed = append(doomed, codec.Key(id))
				d.txLoose -= int64(size)
			}
			n++
			codec.Count(s, kind, level, size, -1)
			names.add(string(source), string(name), kind, level, 0, -1)
			s.Trimmed++
			s.TrimmedThrough = id
		}
		if c.err != nil {
			return c.err
		}
		s.FirstID = id // 0 when none is left
		if n == 0 {
			return errUnchanged
		}
		for _, key := range doomed {
			if err := b.Delete(key); err != nil {
				return err
			}
		}
		for _, tb := range sealed {
			s.Bytes += uint64(tb.shares) // rewriteBlock takes the block's stored bytes off instead
			ids, vals := tb.b.IDs(), tb.b.Values()
			if err := d.rewriteBlock(tx, s, tb.key, tb.stored, ids[tb.n:], vals[tb.n:]); err != nil {
				return err
			}
		}
		return names.flush(tx, d.txID(tx), &d.names)
	})
	return n, err
}
