package migrations

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

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
	if RecordFormat2 != codec.Format || RecordFormat1 != codec.Format1 || v1HeaderSize != codec.HeaderSize {
		t.Errorf("record formats %d, %d/%d bytes, internal/codec %d, %d/%d", RecordFormat2, RecordFormat1, v1HeaderSize, codec.Format, codec.Format1, codec.HeaderSize)
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
