package codec_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestBlock_RoundTrip: a block of records, some stored S2-compressed
// alone, reads back as the same records with both codecs, and a block
// with one byte of its payload changed is an error (zstd's frame checksum,
// the CRC after an S2 block).
func TestBlock_RoundTrip(t *testing.T) {
	var ids []uint64
	var vals [][]byte
	var want []oplog.Record
	for i := range 300 {
		r := oplog.Record{ID: uint64(1000 + 3*i), Level: oplog.LevelInfo, Source: "game", Name: "Player",
			Text: fmt.Sprintf("player %d moved", i), Time: time.Unix(1_800_000_000+int64(i), 0).UTC()}
		if i%7 == 0 {
			r.Stack = strings.Repeat(fmt.Sprintf("  at Game.Update () in Game.cs:%d\n", i), 30)
		}
		ids, vals, want = append(ids, r.ID), append(vals, codec.Append(nil, &r)), append(want, r)
	}
	if vals[0][0] != codec.FormatS2 {
		t.Fatalf("record 0 is format %d; want a record stored S2-compressed alone", vals[0][0])
	}
	for _, fast := range []bool{false, true} {
		v, err := codec.AppendBlock([]byte("prefix"), 42, ids, vals, fast)
		if err != nil {
			t.Fatal(err)
		}
		v = v[len("prefix"):]
		b, err := codec.DecodeBlock(v)
		if err != nil {
			t.Fatalf("fast=%v: %v", fast, err)
		}
		if b.Rev != 42 || b.First != ids[0] || b.Last() != ids[len(ids)-1] || b.Len() != len(ids) {
			t.Fatalf("fast=%v: rev %d, %d records %d..%d", fast, b.Rev, b.Len(), b.First, b.Last())
		}
		for i := range b.Len() {
			r, err := codec.Decode(b.ID(i), b.Value(i))
			if err != nil || r.ID != want[i].ID || r.Text != want[i].Text || r.Stack != want[i].Stack || !r.Time.Equal(want[i].Time) {
				t.Fatalf("fast=%v: record %d reads %+v, %v", fast, i, r, err)
			}
		}
		if i := b.Find(ids[10] + 1); i != 11 {
			t.Fatalf("Find between IDs: %d, want 11", i)
		}
		if len(v) >= len(bytes.Join(vals, nil))/2 {
			t.Errorf("fast=%v: %d bytes for %d of values", fast, len(v), len(bytes.Join(vals, nil)))
		}
		for at := 16; at < len(v); at += len(v) / 40 { // past the ~8-byte header
			bad := bytes.Clone(v)
			bad[at] ^= 0x55
			if _, err := codec.DecodeBlock(bad); err == nil {
				t.Fatalf("fast=%v: byte %d of %d changed, the block still decodes", fast, at, len(v))
			}
		}
	}
	if _, err := codec.DecodeBlock(vals[1]); err == nil {
		t.Fatal("a record's value decodes as a block")
	}
}

// TestBlock_ZstdSize: a block of ~128 KiB of benchmark-workload records
// sealed with zstd takes at most 105 bytes a record (zstd's default level:
// 100; its fastest took 116) and under three quarters of S2's (146).
func TestBlock_ZstdSize(t *testing.T) {
	ids, vals, _ := workloadBlock()
	per := func(fast bool) float64 {
		v, err := codec.AppendBlock(nil, 1, ids, vals, fast)
		if err != nil {
			t.Fatal(err)
		}
		return float64(len(v)) / float64(len(ids))
	}
	z, s2 := per(false), per(true)
	if z > 105 || z > 0.75*s2 {
		t.Fatalf("zstd block %.1f B a record, S2 %.1f: want at most 105 and under 3/4 of S2", z, s2)
	}
}
