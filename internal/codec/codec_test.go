package codec_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

func sampleRecords() []oplog.Record {
	t0 := time.Date(2026, 11, 30, 7, 0, 0, 123, time.UTC)
	return []oplog.Record{
		{Kind: oplog.KindLine, Level: oplog.LevelInfo, Time: t0, Source: "default", Text: "hello"},
		{Kind: oplog.KindLine, Level: oplog.LevelError, Time: t0, Source: "unity", Name: "Player", Text: "NullReferenceException",
			Stack: "at Player.Update () [0x00001] in Player.cs:42\n", Data: json.RawMessage(`{"scene":"Main"}`)},
		{Kind: oplog.KindOp, Level: oplog.LevelInfo, Time: t0, Source: "tecs", Name: "run_lua", Text: "run_lua {}", Tool: "run_lua",
			Arguments: json.RawMessage(`{"code":"return 1"}`), Status: oplog.StatusSuccess, Result: json.RawMessage(`1`),
			StartTime: t0, EndTime: t0.Add(time.Millisecond), ReplayOf: 3},
		{Kind: oplog.KindOp, Level: oplog.LevelInfo, Time: t0, Source: "s", Tool: "t", Status: oplog.StatusPending, StartTime: t0},
		// crashed, the newest status: the same one byte (an older binary reads it as complete, unnamed)
		{Kind: oplog.KindOp, Level: oplog.LevelError, Time: t0, Source: "game", Name: "spawn_enemy", Text: "spawn_enemy", Tool: "spawn_enemy",
			Status: oplog.StatusCrashed, Error: "the game crashed during this call: KeyError: 'boss' (record #7); python3 exited with status 1",
			StartTime: t0, EndTime: t0.Add(time.Second), Run: 2},
		{Kind: oplog.KindMarker, Level: oplog.LevelError, Time: t0, Source: "unity", Name: oplog.MarkerCompileFailed, Text: "compile failed", Run: 300},
	}
}

func TestCodec_RoundTrip(t *testing.T) {
	for i, r := range sampleRecords() {
		v := codec.Append(nil, &r)
		r.ID = uint64(i + 1)
		got, err := codec.Decode(r.ID, v)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got, r)
		}
		kind, level, status, ns, err := codec.Header(v)
		if err != nil || kind != r.Kind || level != r.Level || status != r.Status || ns != r.Time.UnixNano() {
			t.Errorf("record %d: header %v %v %v %v %v", i, kind, level, status, ns, err)
		}
		src, name, err := codec.SourceName(v)
		if err != nil || string(src) != r.Source || string(name) != r.Name {
			t.Errorf("record %d: SourceName %q %q %v", i, src, name, err)
		}
		if run, err := codec.Run(v); err != nil || run != r.Run {
			t.Errorf("record %d: Run %d %v; want %d", i, run, err, r.Run)
		}
	}
}

// A record of format 1 (written before runs) is read as it was, with run 0.
func TestCodec_Format1_ReadsWithRunZero(t *testing.T) {
	r := sampleRecords()[1]
	r.Run = 7
	v2 := codec.Append(nil, &r)
	// Format 1 is format 2 without the run's uvarint (one byte for 7).
	v1 := append([]byte{codec.Format1}, v2[1:codec.HeaderSize]...)
	v1 = append(v1, v2[codec.HeaderSize+1:]...)
	got, err := codec.Decode(9, v1)
	r.ID, r.Run = 9, 0
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("format 1: %+v, %v; want %+v", got, err, r)
	}
	if run, err := codec.Run(v1); err != nil || run != 0 {
		t.Fatalf("Run of format 1: %d, %v", run, err)
	}
	if src, name, err := codec.SourceName(v1); err != nil || string(src) != r.Source || string(name) != r.Name {
		t.Fatalf("SourceName of format 1: %q %q %v", src, name, err)
	}
}

func TestRunInfo_RoundTrip(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 1, time.UTC)
	ri := oplog.RunInfo{Source: "unity", Run: 1 << 40, Start: start, Last: start.Add(time.Minute), FirstID: 3, LastID: 90, Records: 80, Errors: 2,
		Outcome: oplog.OutcomeCrashed, EndID: 88, End: start.Add(50 * time.Second), CrashID: 87, ErrorID: 87,
		AfterError: 2, ErrorTime: start.Add(49 * time.Second), InFlight: 1}
	k := codec.RunKey(ri.Source, ri.Run)
	if !bytes.HasPrefix(k, codec.SourcePrefix("unity")) || bytes.Compare(k, codec.RunKey("unity", 1<<40+1)) >= 0 {
		t.Fatalf("run key %q does not sort under its source", k)
	}
	got, err := codec.DecodeRunInfo(k, codec.AppendRunInfo(nil, &ri))
	if err != nil || got != ri {
		t.Fatalf("run info round trip: %+v, %v; want %+v", got, err, ri)
	}
	// An entry written before the records after the last error were
	// counted: none are.
	v := codec.AppendRunInfo(nil, &ri)
	v = v[:len(v)-1] // the calls in flight
	if older, err := codec.DecodeRunInfo(k, v); err != nil || older.InFlight != 0 || older.ErrorTime != ri.ErrorTime {
		t.Fatalf("run info without its calls in flight: %+v, %v", older, err)
	}
	older, err := codec.DecodeRunInfo(k, v[:len(v)-len(binary.AppendVarint(nil, ri.ErrorTime.UnixNano()))-1])
	if want := ri; err != nil || func() bool { want.AfterError, want.ErrorTime, want.InFlight = 0, time.Time{}, 0; return older != want }() {
		t.Fatalf("run info without the records after its error: %+v, %v", older, err)
	}
	// An entry written before outcomes were kept: its outcome is not known.
	old := binary.AppendVarint(nil, start.UnixNano())
	for _, x := range []uint64{3, 90, 80, 2} {
		old = binary.AppendUvarint(old, x)
	}
	if got, err := codec.DecodeRunInfo(k, old); err != nil || got.Outcome != "" || got.Records != 80 || !got.Last.IsZero() {
		t.Fatalf("run info of the older format: %+v, %v", got, err)
	}
	if _, err := codec.DecodeRunInfo([]byte("unity"), nil); !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("key without run: %v", err)
	}
}

func TestCodec_Decode_Corrupt(t *testing.T) {
	good := codec.Append(nil, &sampleRecords()[1])
	for name, v := range map[string][]byte{
		"Empty":     nil,
		"Short":     good[:5],
		"Format":    append([]byte{9}, good[1:]...),
		"Truncated": good[:len(good)-3],
		"Trailing":  append(bytes.Clone(good), 0),
	} {
		if _, err := codec.Decode(1, v); !errors.Is(err, codec.ErrCorrupt) {
			t.Errorf("%s: err = %v; want ErrCorrupt", name, err)
		}
	}
	if _, err := codec.ID([]byte{1, 2}); !errors.Is(err, codec.ErrCorrupt) {
		t.Errorf("short key: %v", err)
	}
}

func TestKey_OrderIsIDOrder(t *testing.T) {
	ids := []uint64{0, 1, 255, 256, 1 << 32, 1<<64 - 1}
	for i := 1; i < len(ids); i++ {
		if bytes.Compare(codec.Key(ids[i-1]), codec.Key(ids[i])) >= 0 {
			t.Fatalf("Key(%d) does not sort before Key(%d)", ids[i-1], ids[i])
		}
		if id, err := codec.ID(codec.Key(ids[i])); err != nil || id != ids[i] {
			t.Fatalf("ID(Key(%d)) = %d, %v", ids[i], id, err)
		}
	}
}

func TestStats_RoundTrip(t *testing.T) {
	s := oplog.Stats{Revision: 42, GenStart: 1, FirstID: 3, LastID: 9, Records: 7, Bytes: 900, Trimmed: 2, TrimmedThrough: 2}
	s.Counts[oplog.KindOp][oplog.LevelError] = 5
	s.Counts[oplog.KindMarker][oplog.LevelInfo] = 6
	got, err := codec.DecodeStats(codec.AppendStats(nil, &s))
	if err != nil || got != s {
		t.Fatalf("stats round trip: %+v, %v", got, err)
	}
	if _, err := codec.DecodeStats([]byte{1}); !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("short stats: %v", err)
	}
}

// FuzzDecode feeds arbitrary bytes to the decoder: it must return a record or
// ErrCorrupt, never panic, and what it returns must survive a round trip.
func FuzzDecode(f *testing.F) {
	for _, r := range append(sampleRecords(), bigStack()) {
		f.Add(codec.Append(nil, &r))
	}
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, v []byte) {
		r, err := codec.Decode(7, v)
		if err != nil {
			if !errors.Is(err, codec.ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if _, _, err := codec.SourceName(v); err != nil {
			t.Fatalf("Decode accepted what SourceName refuses: %v", err)
		}
		again, err := codec.Decode(7, codec.Append(nil, &r))
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("round trip of a decoded record: %+v, %v; want %+v", again, err, r)
		}
	})
}

// FuzzRoundTrip encodes records built from arbitrary fields and checks that
// they decode to the same record.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint8(1), uint8(2), int64(1764486000000000000), "src", "name", "text", "stack", "tool", []byte(`{"a":1}`))
	f.Add(uint8(2), uint8(4), int64(1), "", "", "", "", "run_lua", []byte(nil))
	f.Fuzz(func(t *testing.T, kind, level uint8, ns int64, source, name, text, stack, tool string, data []byte) {
		r := oplog.Record{ID: 1, Kind: oplog.Kind(kind%2 + 1), Level: oplog.Level(level), Source: source, Name: name, Text: text, Stack: stack}
		if ns != 0 {
			r.Time = time.Unix(0, ns).UTC()
		}
		if len(data) > 0 {
			r.Data = data
		}
		if r.Kind == oplog.KindOp {
			r.Tool, r.Arguments, r.Result, r.Error = tool, r.Data, r.Data, text
			r.StartTime, r.EndTime, r.ReplayOf = r.Time, r.Time, uint64(level)
		}
		got, err := codec.Decode(1, codec.Append(nil, &r))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
		}
	})
}

// bigStack is a record whose stack makes it worth compressing.
func bigStack() oplog.Record {
	r := sampleRecords()[1]
	r.Run = 5
	r.Stack = strings.Repeat("at Game.AI.PathManager:UpdateFoo () (at Assets/Scripts/Game/AI/PathManager.cs:42)\n", 20)
	return r
}

// A large record is written compressed (format 3) and every reader reads
// it as it reads format 2; a short one stays format 2.
func TestCodec_Compressed_RoundTrip(t *testing.T) {
	r := bigStack()
	v := codec.Append([]byte("prefix"), &r)[len("prefix"):]
	if v[0] != codec.FormatS2 || len(v) >= len(r.Stack)/2 {
		t.Fatalf("a %d-byte stack: format %d, %d bytes; want format %d and under half", len(r.Stack), v[0], len(v), codec.FormatS2)
	}
	got, err := codec.Decode(9, v)
	r.ID = 9
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("decode: %+v, %v; want %+v", got, err, r)
	}
	if kind, level, _, ns, err := codec.Header(v); err != nil || kind != r.Kind || level != r.Level || ns != r.Time.UnixNano() {
		t.Fatalf("header: %v %v %v %v", kind, level, ns, err)
	}
	if src, name, err := codec.SourceName(v); err != nil || string(src) != r.Source || string(name) != r.Name {
		t.Fatalf("SourceName: %q %q %v", src, name, err)
	}
	if run, err := codec.Run(v); err != nil || run != 5 {
		t.Fatalf("Run: %d %v", run, err)
	}
	if v := codec.Append(nil, &sampleRecords()[1]); v[0] != codec.Format {
		t.Fatalf("a short record is format %d, want %d", v[0], codec.Format)
	}
	// Random bytes do not shrink: written plain, whatever their size.
	r.Stack = string(randomBytes(4096))
	if v := codec.Append(nil, &r); v[0] != codec.Format {
		t.Fatalf("an incompressible record is format %d, want %d", v[0], codec.Format)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	x := uint64(88172645463325252)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

// A damaged compressed record is ErrCorrupt, never a panic or a record.
func TestCodec_Compressed_Corrupt(t *testing.T) {
	r := bigStack()
	v := codec.Append(nil, &r)
	// The S2 block, which starts with its expanded length, follows the name.
	at := bytes.Index(v, []byte(r.Name)) + len(r.Name)
	for name, bad := range map[string][]byte{
		"Truncated":   v[:len(v)-4],
		"NoBlock":     v[:at],
		"LengthOnly":  v[:at+2],
		"LongerClaim": slices.Concat(v[:at], binary.AppendUvarint(nil, uint64(len(r.Stack)*4)), v[at+2:]),
		"HugeClaim":   slices.Concat(v[:at], binary.AppendUvarint(nil, 1<<40), v[at+2:]),
	} {
		if got, err := codec.Decode(1, bad); !errors.Is(err, codec.ErrCorrupt) {
			t.Errorf("%s: %d-byte stack, %v; want ErrCorrupt", name, len(got.Stack), err)
		}
	}
}
