package migrations

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// The newest frozen codecs must still read and write what internal/codec
// does. When this fails, internal/codec changed a format: give it a new
// number, freeze it in a new vNcodec.go and add a step, rather than editing
// the frozen copies.

func TestFrozen_Layout_MatchesCodec(t *testing.T) {
	for _, c := range []struct{ frozen, today []byte }{
		{metaBucket, codec.MetaBucket}, {recordsBucket, codec.RecordsBucket}, {namesBucket, codec.NamesBucket}, {positionsBucket, codec.PositionsBucket},
		{runsBucket, codec.RunsBucket},
		{schemaKey, codec.SchemaKey}, {statsKey, codec.StatsKey},
	} {
		if !bytes.Equal(c.frozen, c.today) {
			t.Errorf("frozen name %q, internal/codec %q", c.frozen, c.today)
		}
	}
	if RecordFormat3 != codec.FormatS2 || RecordFormat2 != codec.Format || RecordFormat1 != codec.Format1 || v1HeaderSize != codec.HeaderSize {
		t.Errorf("record formats %d, %d, %d/%d bytes, internal/codec %d, %d, %d/%d", RecordFormat3, RecordFormat2, RecordFormat1, v1HeaderSize,
			codec.FormatS2, codec.Format, codec.Format1, codec.HeaderSize)
	}
}

// format1 turns a format-2 value of run 0 into the format-1 value schema 5
// wrote: the same without the run's one byte.
func format1(v []byte) []byte {
	return append(append([]byte{RecordFormat1}, v[1:v1HeaderSize]...), v[v1HeaderSize+1:]...)
}

// What the steps read of a format-1 record is what codec wrote before runs,
// and codec still reads those records, with run 0.
func TestFrozen_V1Record_CodecReadsIt(t *testing.T) {
	r := oplog.Record{ID: 4, Kind: oplog.KindLine, Level: oplog.LevelWarn, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Source: "unity", Name: "Player", Text: "hi"}
	v := format1(codec.Append(nil, &r))
	got, err := codec.Decode(4, v)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("codec reads a format-1 record as %+v, %v; want %+v", got, err, r)
	}
}

func TestFrozen_V1Record_ReadsCodec(t *testing.T) {
	t0 := time.Date(1972, 6, 1, 0, 0, 0, 5, time.UTC)
	for _, r := range []oplog.Record{
		{Kind: oplog.KindLine, Level: oplog.LevelWarn, Time: t0, Source: "unity", Name: "Player", Text: "hi", Data: json.RawMessage(`{"a":1}`)},
		{Kind: oplog.KindOp, Level: oplog.LevelInfo, Time: t0, Source: "s", Tool: "t", Status: oplog.StatusPending, StartTime: t0},
	} {
		v := format1(codec.Append(nil, &r))
		h, err := v1DecodeHeader(v)
		if err != nil || h.kind != uint8(r.Kind) || h.level != uint8(r.Level) || h.unixNano != r.Time.UnixNano() {
			t.Errorf("header of %+v: %+v, %v", r, h, err)
		}
		source, name, err := v1SourceName(v)
		if err != nil || source != r.Source || name != r.Name {
			t.Errorf("source/name of %+v: %q %q %v", r, source, name, err)
		}
	}
	if id, err := v1ID(codec.Key(258)); err != nil || id != 258 {
		t.Errorf("v1ID(Key(258)) = %d, %v", id, err)
	}
}

func TestFrozen_V6Stats_WritesCodec(t *testing.T) {
	s := v6Stats{revision: 1, genStart: 2, firstID: 3, lastID: 4, records: 5, bytes: 6, trimmed: 7, trimmedThru: 8}
	s.counts[2][4] = 9
	s.counts[3][2] = 10
	got, err := codec.DecodeStats(v6AppendStats(nil, &s))
	want := oplog.Stats{Revision: 1, GenStart: 2, FirstID: 3, LastID: 4, Records: 5, Bytes: 6, Trimmed: 7, TrimmedThrough: 8}
	want.Counts[2][4] = 9
	want.Counts[oplog.KindMarker][oplog.LevelInfo] = 10
	if err != nil || got != want {
		t.Fatalf("codec reads frozen stats as %+v, %v; want %+v", got, err, want)
	}
	v2 := v2Stats{revision: 1, lastID: 4}
	v2.counts[2][4] = 9
	if back, err := v2DecodeStats(v2AppendStats(nil, &v2)); err != nil || back != v2 {
		t.Fatalf("v2 stats round trip: %+v, %v", back, err)
	}
}

func TestFrozen_V6Name_WritesCodec(t *testing.T) {
	n := v6Name{first: 5, last: 6}
	n.counts[oplog.KindMarker][oplog.LevelError] = 3
	ni, err := codec.DecodeNameInfo(v3NameKey("unity", "run"), v6AppendName(nil, &n))
	if err != nil || ni.Counts[oplog.KindMarker][oplog.LevelError] != 3 || ni.Total != 3 || ni.FirstSeen.UnixNano() != 5 || ni.LastSeen.UnixNano() != 6 {
		t.Fatalf("codec reads frozen name as %+v, %v", ni, err)
	}
}

func TestFrozen_V3Name_RoundTrips(t *testing.T) {
	n := v3Name{first: time.Date(1972, 6, 1, 0, 0, 0, 0, time.UTC).UnixNano(), last: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()}
	n.counts[1][3] = 300
	key := v3NameKey("unity", "Player")
	if !bytes.Equal(key, codec.NameKey("unity", "Player")) {
		t.Fatalf("frozen key %q, codec %q", key, codec.NameKey("unity", "Player"))
	}
	back, err := v3DecodeName(v3AppendName(nil, &n))
	if err != nil || back != n {
		t.Fatalf("v3 name round trip: %+v, %v; want %+v", back, err, n)
	}
}

// codec writes a large record in format 3 as v7codec.go describes it: the
// header, run, source and name of format 2, then an S2 block of format 2's
// fields from text on.
func TestFrozen_V7Record_CodecWritesIt(t *testing.T) {
	r := oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelError, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Run: 300,
		Source: "unity", Name: "Player", Text: "boom", Stack: strings.Repeat("at Player.Update () in Player.cs:42\n", 30)}
	v := codec.Append(nil, &r)
	if v[0] != RecordFormat3 || v[1] != byte(r.Kind) || v[2] != byte(r.Level) || int64(binary.BigEndian.Uint64(v[4:12])) != r.Time.UnixNano() {
		t.Fatalf("header % x", v[:v1HeaderSize])
	}
	run, n := binary.Uvarint(v[v1HeaderSize:])
	off := v1HeaderSize + n
	if run != r.Run {
		t.Fatalf("run %d, want %d", run, r.Run)
	}
	for _, want := range []string{r.Source, r.Name} {
		l, n := binary.Uvarint(v[off:])
		if got := string(v[off+n : off+n+int(l)]); got != want {
			t.Fatalf("field %q, want %q", got, want)
		}
		off += n + int(l)
	}
	var want []byte
	for _, f := range []string{r.Text, r.Stack, ""} { // text, stack, no data
		want = append(binary.AppendUvarint(want, uint64(len(f))), f...)
	}
	got, err := s2.Decode(nil, v[off:])
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("S2 block after the name: %q, %v; want %q", got, err, want)
	}
}
