package studio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/studio"
)

// forward starts a forwarder of l to url as project "game", machine m,
// closed at cleanup.
func forward(t *testing.T, l *oplog.Log, url, m string) *studio.Forwarder {
	t.Helper()
	f, err := studio.Forward(l, studio.ForwardOptions{URL: url, Project: "game", Machine: m,
		StatePath: filepath.Join(t.TempDir(), "studio-forward.json"), BatchRows: 700, Settle: 3 * time.Second,
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// rows returns machine m's rows, ordered by seq.
func rows(t *testing.T, v *vltest.VL, m string) []map[string]string {
	t.Helper()
	v.ForceFlush(t)
	rs := v.Query(t, fmt.Sprintf(`{project="game",machine=%q}`, m))
	sort.Slice(rs, func(i, j int) bool { return num(t, rs[i]["seq"]) < num(t, rs[j]["seq"]) })
	return rs
}

func num(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// caughtUp waits until every record of l is acknowledged and found in
// VictoriaLogs.
func caughtUp(t *testing.T, f *studio.Forwarder, l *oplog.Log, timeout time.Duration) oplog.StudioStatus {
	t.Helper()
	var s oplog.StudioStatus
	logtest.Eventually(t, timeout, "the forwarder to catch up and reconcile", func() bool {
		s = f.Status()
		return s.ForwardedID == l.Stats().LastID && s.LagRecords == 0 && s.Reconciled == s.Seq && s.Seq > 0
	})
	return s
}

// want is the row a record should be, field by field.
func want(t *testing.T, r *oplog.Record, seq, revision uint64) map[string]string {
	w := map[string]string{"project": "game", "machine": "m1", "source": r.Source, "_msg": r.Text,
		"_time": r.Time.UTC().Format(time.RFC3339Nano), "id": strconv.FormatUint(r.ID, 10),
		"seq": strconv.FormatUint(seq, 10), "revision": strconv.FormatUint(revision, 10),
		"kind": r.Kind.String(), "level": r.Level.String(), "name": r.Name, "stack": r.Stack, "tool": r.Tool,
		"status": r.Status.String()}
	if sig, ok := crash.RecordSignature(r); ok {
		w["signature"] = sig
	}
	if tm := oplog.RecordTemplate(r); tm != "" { // an operation's shape for a call
		w["template"], w["template_text"] = oplog.RecordTemplateID(r), tm
	}
	if r.Run != 0 {
		w["run"] = strconv.FormatUint(r.Run, 10)
	}
	if r.IsComplete() {
		w["end_time"] = r.EndTime.UTC().Format(time.RFC3339Nano)
	}
	if len(r.Data) > 0 {
		var d map[string]any
		if err := json.Unmarshal(r.Data, &d); err != nil {
			t.Fatal(err)
		}
		flatten(w, "data", d)
	}
	for k, v := range w {
		if v == "" {
			delete(w, k)
		}
	}
	return w
}

func flatten(w map[string]string, prefix string, d map[string]any) {
	for k, v := range d {
		switch v := v.(type) {
		case map[string]any:
			flatten(w, prefix+"."+k, v)
		default:
			w[prefix+"."+k] = fmt.Sprint(v)
		}
	}
}

func compare(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("row id %s: %s = %q, want %q", want["id"], k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && k != "_stream" && k != "_stream_id" {
			t.Errorf("row id %s: unexpected field %s = %q", want["id"], k, got[k])
		}
	}
}

func TestForward_OrderAndSchema(t *testing.T) {
	v := vltest.Start(t)
	l, _ := logtest.MustOpenLog(t, nil)
	ctx := context.Background()
	unity := "NullReferenceException: Object reference not set\n  at Player.Update () [0x00012] in Assets/Player.cs:42\n  at Game.Tick () [0x0001] in Assets/Game.cs:7\n"
	recs := logtest.MustAppend(t, l,
		oplog.Record{Kind: oplog.KindMarker, Source: "unity", Name: oplog.MarkerRun, Text: "run started"},
		oplog.Record{Source: "unity", Level: oplog.LevelInfo, Name: "Player", Text: "spawned \"hero\"\tat 3,4", Data: json.RawMessage(`{"hp":100,"pos":{"x":3,"y":"4"}}`)},
		oplog.Record{Source: "unity", Level: oplog.LevelError, Text: "NullReferenceException: Object reference not set", Stack: unity},
		oplog.Record{Source: "gateway", Tool: "build", Arguments: json.RawMessage(`{"target":"linux"}`)},
	)
	f := forward(t, l, v.URL, "m1")
	caughtUp(t, f, l, 30*time.Second)
	if _, err := l.Complete(ctx, recs[3].ID, oplog.Completion{Status: oplog.StatusError, Error: "link failed"}); err != nil {
		t.Fatal(err)
	}
	s := caughtUp(t, f, l, 30*time.Second)
	logtest.Eventually(t, 30*time.Second, "the completion row", func() bool { return f.Status().Seq == 5 })
	got := rows(t, v, "m1")
	if len(got) != 5 {
		t.Fatalf("%d rows, want 5 (4 records and a completion): %v", len(got), got)
	}
	rev := l.Stats().Revision
	for i := range 4 { // in ID order, one row each
		r, err := l.Get(ctx, recs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			r.Status, r.Level = oplog.StatusPending, oplog.LevelInfo // the first row was sent while pending
			r.Error = ""
		}
		compare(t, got[i], want(t, &r, uint64(i+1), rev))
	}
	done, err := l.Get(ctx, recs[3].ID)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, got[4], want(t, &done, 5, rev)) // the completion: a second row of the same id
	if got[1]["template_text"] != `spawned "<S>" at <N>,<N>` {
		t.Errorf("template_text %q", got[1]["template_text"])
	}
	if got[2]["signature"] == "" || got[4]["status"] != "error" {
		t.Errorf("crash row signature %q, completion status %q", got[2]["signature"], got[4]["status"])
	}
	if s.State != oplog.StudioUpToDate {
		t.Errorf("state %s, want %s", s.State, oplog.StudioUpToDate)
	}
}

// TestForward_TemplateSameEverywhere: the same message has one template
// in VictoriaLogs on two machines and across a restart of one, so that
// LogsQL groups it by template.
func TestForward_TemplateSameEverywhere(t *testing.T) {
	v := vltest.Start(t)
	msg := "Snapshot %d sent to peer 10.0.0.%d:7777"
	path, state := filepath.Join(t.TempDir(), "log.db"), filepath.Join(t.TempDir(), "studio-forward.json")
	for run := range 2 { // m1, closed and opened again between the two
		db := logtest.MustOpenDBAt(t, path, nil)
		l := oplog.New(db, nil)
		logtest.MustAppend(t, l, oplog.Record{Source: "unity", Level: oplog.LevelInfo, Text: fmt.Sprintf(msg, 100+run, run)})
		f, err := studio.Forward(l, studio.ForwardOptions{URL: v.URL, Project: "game", Machine: "m1", StatePath: state,
			Settle: 3 * time.Second, MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		caughtUp(t, f, l, 30*time.Second)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil { // and db
			t.Fatal(err)
		}
	}
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, oplog.Record{Source: "godot", Level: oplog.LevelWarn, Text: fmt.Sprintf(msg, 7, 9)},
		oplog.Record{Source: "godot", Level: oplog.LevelInfo, Text: "another message 5"})
	caughtUp(t, forward(t, l, v.URL, "m2"), l, 30*time.Second)
	v.ForceFlush(t)
	got := v.Query(t, `{project="game"} | stats by (template, template_text) count() n, count_uniq(machine) machines | sort by (n desc)`)
	id := oplog.TextTemplateID(fmt.Sprintf(msg, 1, 2))
	if len(got) != 2 || got[0]["template"] != id || got[0]["template_text"] != "Snapshot <N> sent to peer <IP>" ||
		got[0]["n"] != "3" || got[0]["machines"] != "2" {
		t.Fatalf("templates %v; want %s (Snapshot <N> sent to peer <IP>) 3 times on 2 machines, and one other", got, id)
	}
}

// TestForward_TwoMachinesOneCrash: the same crash on two machines has one
// signature in VictoriaLogs, so that LogsQL groups it across them.
func TestForward_TwoMachinesOneCrash(t *testing.T) {
	v := vltest.Start(t)
	stack := "NullReferenceException: Object reference not set\n  at Player.Update () [0x%05x] in Assets/Player.cs:%d\n"
	for i, m := range []string{"m1", "m2"} {
		l, _ := logtest.MustOpenLog(t, nil)
		logtest.MustAppend(t, l,
			oplog.Record{Source: "unity", Level: oplog.LevelError, Text: "NullReferenceException: Object reference not set",
				Stack: fmt.Sprintf(stack, 12+i, 42+i)}, // other addresses and lines: the same crash
			oplog.Record{Source: "unity", Level: oplog.LevelInfo, Text: "not a crash"})
		caughtUp(t, forward(t, l, v.URL, m), l, 30*time.Second)
	}
	v.ForceFlush(t)
	got := v.Query(t, `{project="game"} signature:* | stats by (signature) count() n, count_uniq(machine) machines`)
	if len(got) != 1 || got[0]["n"] != "2" || got[0]["machines"] != "2" {
		t.Fatalf("crash groups %v; want one signature seen on both machines", got)
	}
}
