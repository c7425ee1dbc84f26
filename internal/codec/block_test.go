package codec_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/workload"
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

// TestBlock_ZstdSize: a block of ~256 KiB of benchmark-workload records
// sealed with zstd takes at most 85 bytes a record (by column at zstd's
// default level: 80; 90 in blocks of 128 KiB; one frame of the whole
// took 100 there, zstd's fastest level 116) and under three quarters of
// S2's; one of random-word lines at most 52 (60 with its texts whole).
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
	if z > 85 || z > 0.75*s2 {
		t.Fatalf("zstd block %.1f B a record, S2 %.1f: want at most 85 and under 3/4 of S2", z, s2)
	}
	// Random words: 60 B a record with the texts whole, 49 as words.
	ids, vals, _ = generatedBlock(workload.NewWords(1))
	if z := per(false); z > 52 {
		t.Fatalf("a block of random-word lines takes %.1f B a record; want at most 52, its texts kept as words", z)
	}
}

// TestBlock_Columns: a zstd block of 8 records or more keeps them by
// column (its texts as words) and reads them back as they were: operations with every field,
// lines without text, times that go back, records of format 1 (kept
// whole), and a block of format-1 records only (its other columns empty);
// a column cut short is an error. A block of fewer records is one frame.
func TestBlock_Columns(t *testing.T) {
	base := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	var recs []oplog.Record
	for i := range 40 {
		r := oplog.Record{Level: oplog.Level(i%5 + 1), Source: "game", Name: fmt.Sprint("n", i%3), Run: uint64(i / 10),
			Text: fmt.Sprintf("step %d", i), Time: base.Add(time.Duration(i%7-3) * time.Millisecond)}
		switch i % 4 {
		case 1:
			r = oplog.Record{Kind: oplog.KindOp, Level: oplog.LevelError, Source: "mcp", Name: "run_lua", Tool: "run_lua",
				Status: oplog.StatusError, Arguments: []byte(`{"code":"x"}`), Result: []byte(`{"ok":false}`), Error: "boom",
				Text: "run_lua", StartTime: base, EndTime: base.Add(time.Second), ReplayOf: 3, Time: base}
		case 2:
			r.Text, r.Time = "", time.Time{}
		case 3:
			r.Stack, r.Data = "at Main ()\nat Game ()", []byte(`{"hp":3}`)
		}
		recs = append(recs, r)
	}
	var ids []uint64
	var vals [][]byte
	for i := range recs {
		recs[i].ID = uint64(10 + i)
		v := codec.Append(nil, &recs[i])
		if i%5 == 4 { // format 1: format 2 without the run
			v = append(append([]byte{codec.Format1}, v[1:codec.HeaderSize]...), v[codec.HeaderSize+1:]...)
			recs[i].Run = 0
		}
		ids, vals = append(ids, recs[i].ID), append(vals, v)
	}
	check := func(ids []uint64, vals [][]byte, want []oplog.Record) {
		t.Helper()
		v, err := codec.AppendBlock(nil, 7, ids, vals, false)
		if err != nil {
			t.Fatal(err)
		}
		if v[0] != codec.BlockZstdWords {
			t.Fatalf("block format %d; want %d, by column with its texts as words", v[0], codec.BlockZstdWords)
		}
		b, err := codec.DecodeBlock(v)
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Len() {
			if !bytes.Equal(b.Value(i), vals[i]) {
				t.Fatalf("record %d: value %x; want %x", ids[i], b.Value(i), vals[i])
			}
			if r, err := codec.Decode(b.ID(i), b.Value(i)); err != nil || !reflect.DeepEqual(r, want[i]) {
				t.Fatalf("record %d reads %+v, %v; want %+v", ids[i], r, err, want[i])
			}
		}
		for cut := len(v) - 1; cut > len(v)-40 && cut > 8; cut-- {
			if _, err := codec.DecodeBlock(v[:cut]); err == nil {
				t.Fatalf("cut to %d of %d bytes, the block still decodes", cut, len(v))
			}
		}
	}
	check(ids, vals, recs)
	var ids1 []uint64
	var vals1 [][]byte
	var recs1 []oplog.Record
	for i := 4; i < len(recs); i += 5 {
		ids1, vals1, recs1 = append(ids1, ids[i]), append(vals1, vals[i]), append(recs1, recs[i])
	}
	check(ids1, vals1, recs1)
	// Fewer records than minColumnRecords (large ones): one frame.
	v, err := codec.AppendBlock(nil, 7, ids[:3], vals[:3], false)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := codec.DecodeBlock(v); v[0] != codec.BlockZstd || err != nil || b.Len() != 3 || !bytes.Equal(b.Value(2), vals[2]) {
		t.Fatalf("a block of 3 records: format %d, %v; want %d, whole, reading back", v[0], err, codec.BlockZstd)
	}
}
