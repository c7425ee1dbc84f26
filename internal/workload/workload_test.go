package workload_test

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
)

func generate(seed int64, n int) []oplog.Record {
	recs := make([]oplog.Record, n)
	workload.New(seed).Fill(recs)
	return recs
}

func TestGenerator_Fill_Deterministic(t *testing.T) {
	want := generate(42, 5000)

	t.Run("SameSeed", func(t *testing.T) {
		if got := generate(42, 5000); !reflect.DeepEqual(got, want) {
			t.Fatal("two generators with seed 42 made different records")
		}
	})
	t.Run("AnyBatching", func(t *testing.T) {
		// The stream must not depend on how it is cut into batches, so that
		// every benchmark configuration writes the same records.
		g := workload.New(42)
		var got []oplog.Record
		for _, n := range []int{1, 7, 100, 999, 3893} {
			batch := make([]oplog.Record, n)
			g.Fill(batch)
			got = append(got, batch...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatal("batches of 1, 7, 100, 999, 3893 differ from one batch of 5000")
		}
	})
	t.Run("ReusedSlice", func(t *testing.T) {
		g := workload.New(42)
		batch := make([]oplog.Record, 1000)
		var got []oplog.Record
		for range 5 {
			g.Fill(batch)
			got = append(got, batch...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatal("refilling one slice changed the records already handed out")
		}
	})
	t.Run("OtherSeed", func(t *testing.T) {
		other := generate(43, 5000)
		same := 0
		for i := range other {
			if other[i].Text == want[i].Text {
				same++
			}
		}
		if same > 10 {
			t.Fatalf("seeds 42 and 43 share %d of 5000 texts", same)
		}
	})
}

func TestGenerator_Fill_Mix(t *testing.T) {
	const n = 200_000
	recs := generate(1, n)

	var (
		kinds                              = map[oplog.Kind]int{}
		levels                             = map[oplog.Level]int{}
		srcs                               = map[string]int{}
		logNames                           = map[string]int{}
		stacks, data, lines, errs, opFails int
		textBytes, stackBytes              int
		vocab                              = map[string]bool{}
		known                              = map[string]bool{}
	)
	for _, w := range workload.Vocabulary() {
		known[w] = true
	}
	prev := workload.Epoch
	for i := range recs {
		r := &recs[i]
		kinds[r.Kind]++
		srcs[r.Source]++
		if r.Time.Before(prev) {
			t.Fatalf("record %d: time %s before the previous record's %s", i, r.Time, prev)
		}
		prev = r.Time
		if r.Stack != "" {
			stacks++
			stackBytes += len(r.Stack)
		}
		if r.Level == oplog.LevelError {
			errs++
			if r.Stack == "" {
				t.Fatalf("record %d: an error without a stack trace", i)
			}
		}
		if r.Kind == oplog.KindOp {
			checkOp(t, i, r)
			if r.Status == oplog.StatusError {
				opFails++
			}
			continue
		}
		lines++
		levels[r.Level]++
		logNames[r.Name]++
		textBytes += len(r.Text)
		if r.Data != nil {
			data++
			if !json.Valid(r.Data) || r.Data[0] != '{' {
				t.Fatalf("record %d: data %q is not a JSON object", i, r.Data)
			}
		}
		for _, w := range strings.Fields(r.Text) {
			if known[w] {
				vocab[w] = true
			} else if !strings.HasPrefix(w, "id=") && !strings.HasSuffix(w, "ms") {
				t.Fatalf("record %d: word %q is not in the vocabulary", i, w)
			}
		}
	}

	share := func(what string, got, of int, want, tol float64) {
		t.Helper()
		if f := float64(got) / float64(of); math.Abs(f-want) > tol {
			t.Errorf("%s: %.4f of records, want %.4f ± %.4f", what, f, want, tol)
		}
	}
	share("operations", kinds[oplog.KindOp], n, 0.01, 0.001)
	share("debug lines", levels[oplog.LevelDebug], lines, 0.30, 0.005)
	share("info lines", levels[oplog.LevelInfo], lines, 0.55, 0.005)
	share("warn lines", levels[oplog.LevelWarn], lines, 0.10, 0.005)
	share("error lines", levels[oplog.LevelError], lines, 0.05, 0.003)
	share("stack traces", stacks, n, 0.10, 0.004)
	share("errors", errs, n, 0.0505, 0.003)
	share("lines with data", data, lines, 0.15, 0.005)
	share("failed operations", opFails, kinds[oplog.KindOp], 0.10, 0.03)
	for _, s := range workload.Sources() {
		if srcs[s] == 0 {
			t.Errorf("source %q never used", s)
		}
	}
	if len(srcs) != 4 {
		t.Errorf("%d sources, want 4: %v", len(srcs), srcs)
	}
	if len(logNames) != 50 {
		t.Errorf("%d log names, want 50", len(logNames))
	}
	if avg := float64(textBytes) / float64(lines); avg < 110 || avg > 130 {
		t.Errorf("messages average %.1f bytes, want about 120", avg)
	}
	if avg := float64(stackBytes) / float64(stacks); avg < 900 || avg > 1150 {
		t.Errorf("stack traces average %.1f bytes, want about 1,000", avg)
	}
	if len(vocab) != workload.VocabularySize {
		t.Errorf("messages use %d distinct words, want all %d", len(vocab), workload.VocabularySize)
	}
}

func checkOp(t *testing.T, i int, r *oplog.Record) {
	t.Helper()
	switch {
	case !slices.Contains(workload.Tools(), r.Tool) || r.Name != r.Tool:
		t.Fatalf("record %d: tool %q, name %q", i, r.Tool, r.Name)
	case !json.Valid(r.Arguments):
		t.Fatalf("record %d: arguments %q are not JSON", i, r.Arguments)
	case r.Text != r.Tool+" "+string(r.Arguments):
		t.Fatalf("record %d: summary %q", i, r.Text)
	case r.Status == oplog.StatusSuccess && (!json.Valid(r.Result) || r.Error != ""):
		t.Fatalf("record %d: success with result %q, error %q", i, r.Result, r.Error)
	case r.Status == oplog.StatusError && (r.Result != nil || r.Error == ""):
		t.Fatalf("record %d: failure with result %q, error %q", i, r.Result, r.Error)
	case r.Status != oplog.StatusSuccess && r.Status != oplog.StatusError:
		t.Fatalf("record %d: status %s", i, r.Status)
	case !r.EndTime.After(r.StartTime) || !r.StartTime.Equal(r.Time):
		t.Fatalf("record %d: time %s, start %s, end %s", i, r.Time, r.StartTime, r.EndTime)
	}
}

// TestGenerator_Fill_Append checks that the records are valid and already in
// the form oplog.Log normalises to, so that Payload measured before an append
// is the payload stored, and that they come back from the store unchanged.
func TestGenerator_Fill_Append(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	recs := generate(3, 3000)
	want := slices.Clone(recs)
	if err := l.Append(context.Background(), recs); err != nil {
		t.Fatalf("append: %v", err)
	}
	for i := range recs {
		want[i].ID, want[i].Run = recs[i].ID, recs[i].Run // the store assigns both
		if recs[i].Run != 1 {
			t.Fatalf("record %d: run %d, want 1 (its source's first run)", i, recs[i].Run)
		}
		if !reflect.DeepEqual(recs[i], want[i]) {
			t.Fatalf("record %d changed when appended:\n got %+v\nwant %+v", i, recs[i], want[i])
		}
		got, err := l.Get(context.Background(), recs[i].ID)
		if err != nil {
			t.Fatalf("get %d: %v", recs[i].ID, err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("record %d read back differs:\n got %+v\nwant %+v", i, got, want[i])
		}
	}
}

func TestPayload(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    oplog.Record
		want int
	}{
		{"Empty", oplog.Record{}, 0},
		{"Line", oplog.Record{Time: workload.Epoch, Source: "src", Name: "nm", Text: "hello", Stack: "at x", Data: json.RawMessage(`{}`)}, 8 + 3 + 2 + 5 + 4 + 2},
		{"Op", oplog.Record{Kind: oplog.KindOp, Time: workload.Epoch, StartTime: workload.Epoch, EndTime: workload.Epoch.Add(time.Second),
			Tool: "query", Arguments: json.RawMessage(`{"a":1}`), Result: json.RawMessage(`2`), Error: "e"}, 24 + 5 + 7 + 1 + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := workload.Payload(&tt.r); got != tt.want {
				t.Errorf("Payload = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestVocabulary(t *testing.T) {
	v := workload.Vocabulary()
	seen := map[string]bool{}
	for _, w := range v {
		if w == "" || strings.ContainsAny(w, " \t\n") || seen[w] {
			t.Fatalf("bad or repeated word %q", w)
		}
		seen[w] = true
	}
	if len(v) != workload.VocabularySize {
		t.Fatalf("%d words, want %d", len(v), workload.VocabularySize)
	}
	if !reflect.DeepEqual(workload.Vocabulary(), v) {
		t.Fatal("the vocabulary changed between calls")
	}
}
