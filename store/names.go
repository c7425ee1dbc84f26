package store

import (
	"bytes"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// nameTally collects one transaction's changes to the names bucket, so that
// each (source, name) is read and written once per transaction.
type nameTally map[nameKey]*nameDelta

type nameKey struct{ source, name string }

type nameDelta struct {
	counts      [len(oplog.Counts{})][len(oplog.Counts{}[0])]int64
	first, last int64 // Unix nanoseconds of the records added; 0 when none
}

// add counts one record in (delta +1) or out (delta -1). Times are taken
// into first and last seen only for records counted in.
func (t nameTally) add(source, name string, kind oplog.Kind, level oplog.Level, unixNano int64, delta int64) {
	if int(kind) >= len(oplog.Counts{}) || int(level) >= len(oplog.Counts{}[0]) {
		return // a corrupt header is counted nowhere rather than panicking
	}
	k := nameKey{source, name}
	d := t[k]
	if d == nil {
		d = &nameDelta{}
		t[k] = d
	}
	d.counts[kind][level] += delta
	if delta > 0 && unixNano != 0 {
		if d.first == 0 || unixNano < d.first {
			d.first = unixNano
		}
		d.last = max(d.last, unixNano)
	}
}

// appendedBySource sums the tally by source. A completion counts its record
// out of one level and into another of the same (source, name), so what
// remains is the records appended.
func (t nameTally) appendedBySource() map[string]uint64 {
	out := make(map[string]uint64, 4)
	for k, d := range t {
		var n int64
		for kind := range d.counts {
			for level := range d.counts[kind] {
				n += d.counts[kind][level]
			}
		}
		if n > 0 {
			out[k.source] += uint64(n)
		}
	}
	return out
}

// flush applies the tally to the names bucket of tx, reading each entry
// from cache when cache holds it as of the transaction before tx.
func (t nameTally) flush(tx *bbolt.Tx, txid uint64, cache *nameCache) error {
	b := tx.Bucket(codec.NamesBucket)
	if cache.txid != txid-1 || cache.m == nil {
		cache.m = map[nameKey]oplog.NameInfo{}
	}
	cache.txid = 0 // until every entry is written: an error leaves it untrusted
	for k, d := range t {
		key := codec.NameKey(k.source, k.name)
		n, cached := cache.m[k]
		if !cached {
			if v := b.Get(key); v != nil {
				var err error
				if n, err = codec.DecodeNameInfo(key, v); err != nil {
					return fmt.Errorf("names: %w", err)
				}
			}
		}
		var total uint64
		for kind := range n.Counts {
			for level := range n.Counts[kind] {
				c := int64(n.Counts[kind][level]) + d.counts[kind][level]
				n.Counts[kind][level] = uint64(max(c, 0))
				total += n.Counts[kind][level]
			}
		}
		if total == 0 {
			delete(cache.m, k)
			if err := b.Delete(key); err != nil {
				return err
			}
			continue
		}
		if d.first != 0 {
			if first := oplog.FromUnixNano(d.first); n.FirstSeen.IsZero() || first.Before(n.FirstSeen) {
				n.FirstSeen = first
			}
			if last := oplog.FromUnixNano(d.last); last.After(n.LastSeen) {
				n.LastSeen = last
			}
		}
		if err := b.Put(key, codec.AppendNameInfo(nil, &n)); err != nil {
			return err
		}
		if cached {
			cache.m[k] = n
		} else if len(cache.m) < maxNameCache {
			// a record's label may share the bytes of a long text (a line
			// cut by a parser): the cache keeps copies
			cache.m[nameKey{strings.Clone(k.source), strings.Clone(k.name)}] = n
		}
	}
	cache.txid = txid
	return nil
}

// nameCache holds names entries as the write transaction txid left them,
// so that the next commit's tally does not decode each entry again. Only
// write transactions use it (bbolt runs one at a time), and only the one
// right after txid trusts it: one that rolled back or changed the bucket
// otherwise (a clear) leaves it behind, and the next flush starts it over.
type nameCache struct {
	txid uint64
	m    map[nameKey]oplog.NameInfo
}

// maxNameCache bounds the entries a nameCache holds (~250 bytes each).
const maxNameCache = 4096

// Names returns every (source, name) with its counts; source "" means all.
func (d *DB) Names(source string) ([]oplog.NameInfo, error) {
	var out []oplog.NameInfo
	err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		return eachName(tx, source, "", func(n *oplog.NameInfo) { out = append(out, *n) })
	})
	return out, err
}

// eachName calls fn for every names entry of source ("" for all) and name
// ("" for all).
func eachName(tx *bbolt.Tx, source, name string, fn func(*oplog.NameInfo)) error {
	b := tx.Bucket(codec.NamesBucket)
	if source != "" && name != "" {
		key := codec.NameKey(source, name)
		if v := b.Get(key); v != nil {
			n, err := codec.DecodeNameInfo(key, v)
			if err != nil {
				return err
			}
			fn(&n)
		}
		return nil
	}
	var prefix []byte
	if source != "" {
		prefix = codec.SourcePrefix(source)
	}
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		n, err := codec.DecodeNameInfo(k, v)
		if err != nil {
			return err
		}
		if name == "" || n.Name == name {
			fn(&n)
		}
	}
	return nil
}
