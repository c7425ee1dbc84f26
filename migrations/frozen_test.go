package migrations

import (
	"bytes"
	"encoding/json"
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
		{schemaKey, codec.SchemaKey}, {statsKey, codec.StatsKey},
	} {
		if !bytes.Equal(c.frozen, c.today) {
			t.Errorf("frozen name %q, internal/codec %q", c.frozen, c.today)
		}
	}
	if RecordFormat1 != codec.Format || v1HeaderSize != codec.HeaderSize {
		t.Errorf("record format %d/%d bytes, internal/codec %d/%d", RecordFormat1, v1HeaderSize, codec.Format, codec.HeaderSize)
	}
}

func TestFrozen_V1Record_ReadsCodec(t *testing.T) {
	t0 := time.Date(1972, 6, 1, 0, 0, 0, 5, time.UTC)
	for _, r := range []oplog.Record{
		{Kind: oplog.KindLine, Level: oplog.LevelWarn, Time: t0, Source: "unity", Name: "Player", Text: "hi", Data: json.RawMessage(`{"a":1}`)},
		{Kind: oplog.KindOp, Level: oplog.LevelInfo, Time: t0, Source: "s", Tool: "t", Status: oplog.StatusPending, StartTime: t0},
	} {
		v := codec.Append(nil, &r)
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

func TestFrozen_V2Stats_WritesCodec(t *testing.T) {
	s := v2Stats{revision: 1, genStart: 2, firstID: 3, lastID: 4, records: 5, bytes: 6, trimmed: 7, trimmedThru: 8}
	s.counts[2][4] = 9
	got, err := codec.DecodeStats(v2AppendStats(nil, &s))
	want := oplog.Stats{Revision: 1, GenStart: 2, FirstID: 3, LastID: 4, Records: 5, Bytes: 6, Trimmed: 7, TrimmedThrough: 8}
	want.Counts[2][4] = 9
	if err != nil || got != want {
		t.Fatalf("codec reads frozen stats as %+v, %v; want %+v", got, err, want)
	}
}

func TestFrozen_V3Name_RoundTripsWithCodec(t *testing.T) {
	n := v3Name{first: time.Date(1972, 6, 1, 0, 0, 0, 0, time.UTC).UnixNano(), last: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()}
	n.counts[1][3] = 300
	key := v3NameKey("unity", "Player")
	if !bytes.Equal(key, codec.NameKey("unity", "Player")) {
		t.Fatalf("frozen key %q, codec %q", key, codec.NameKey("unity", "Player"))
	}
	ni, err := codec.DecodeNameInfo(key, v3AppendName(nil, &n))
	if err != nil || ni.Counts[1][3] != 300 || ni.FirstSeen.UnixNano() != n.first || ni.LastSeen.UnixNano() != n.last {
		t.Fatalf("codec reads frozen name as %+v, %v", ni, err)
	}
	back, err := v3DecodeName(codec.AppendNameInfo(nil, &ni))
	if err != nil || back != n {
		t.Fatalf("frozen reads codec's name as %+v, %v; want %+v", back, err, n)
	}
}
