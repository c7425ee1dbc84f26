package crash_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestRecordSignature_AsTheIndexGroups: the signature the studio forwarder
// sends is the one find_crashes groups by, for lines and failed operations;
// records that are no crash have none.
func TestRecordSignature_AsTheIndexGroups(t *testing.T) {
	l, _ := mustOpen(t, nil)
	unity := "NullReferenceException: Object reference not set\n  at Player.Update () [0x00012] in Assets/Player.cs:42\n"
	java := "java.lang.IllegalStateException: bad chunk\n\tat net.minecraft.world.Chunk.load(Chunk.java:120)\n\tat net.minecraft.Server.tick(Server.java:33)\n"
	recs := logtest.MustAppend(t, l,
		oplog.Record{Level: oplog.LevelError, Source: "unity", Text: "NullReferenceException: Object reference not set", Stack: unity},
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Text: "fine", Stack: unity},
		oplog.Record{Source: "gw", Tool: "load_world"},
		oplog.Record{Level: oplog.LevelError, Source: "unity", Text: "no stack"},
	)
	if _, err := l.Complete(context.Background(), recs[2].ID, oplog.Completion{Error: java}); err != nil {
		t.Fatal(err)
	}
	groups := map[string]bool{}
	for _, g := range find(t, l, oplog.CrashQuery{}).Groups {
		groups[g.Signature] = true
	}
	for i, r := range recs {
		r, err := l.Get(context.Background(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		sig, ok := crash.RecordSignature(&r)
		if crashes := i == 0 || i == 2; ok != crashes || ok && !groups[sig] {
			t.Errorf("record %d: signature %q, %v; find_crashes groups %v", i, sig, ok, groups)
		}
	}
	if len(groups) != 2 {
		t.Errorf("%d groups, want 2", len(groups))
	}
}

// TestRecordSignature_ExitStatus: a failing exit is a crash of its own
// status: 42 and 1 are two groups, two exits with 1 one.
func TestRecordSignature_ExitStatus(t *testing.T) {
	exit := func(code int) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelError,
			Text: "game exited with status " + strconv.Itoa(code), Data: []byte(`{"exitCode":` + strconv.Itoa(code) + `,"durationMs":12}`)}
	}
	a, b, c := exit(42), exit(1), exit(1)
	sa, _ := crash.RecordSignature(&a)
	sb, _ := crash.RecordSignature(&b)
	sc, ok := crash.RecordSignature(&c)
	if !ok || sa == sb || sb != sc {
		t.Fatalf("signatures: 42 %s, 1 %s, 1 again %s", sa, sb, sc)
	}
}
