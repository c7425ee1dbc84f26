package store_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// A store keeps short records plain and large ones compressed, side by
// side; every read returns them whole, an operation completed with a large
// result is compressed in place, and Check agrees with the counters.
func TestDB_CompressedRecords_ReadBesidePlain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	l := oplog.New(db, nil)
	stack := strings.Repeat("at Game.Combat.DamageSystem:ApplyHit (float) (at Assets/Scripts/Game/Combat/DamageSystem.cs:88)\n", 12)
	result := json.RawMessage(`[` + strings.Repeat(`{"name":"Enemy","x":1.5,"y":0},`, 40) + `{}]`)
	got := logtest.MustAppend(t, l,
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Player", Text: "short"},
		oplog.Record{Level: oplog.LevelError, Source: "unity", Name: "Player", Text: "NullReferenceException", Stack: stack},
		oplog.Record{Tool: "get_scene", Source: "unity"},
	)
	if _, err := l.Complete(ctx, got[2].ID, oplog.Completion{Result: result}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	formats := map[uint64]byte{}
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	err = bdb.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(codec.RecordsBucket).ForEach(func(k, v []byte) error {
			id, _ := codec.ID(k)
			formats[id] = v[0]
			return nil
		})
	})
	if cerr := bdb.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]byte{got[0].ID: codec.Format, got[1].ID: codec.FormatS2, got[2].ID: codec.FormatS2}
	for id, f := range want {
		if formats[id] != f {
			t.Errorf("record %d is stored in format %d, want %d", id, formats[id], f)
		}
	}

	db, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l = oplog.New(db, nil)
	defer l.Close()
	if err := db.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	r, err := l.Get(ctx, got[1].ID)
	if err != nil || r.Stack != stack || r.Text != "NullReferenceException" || r.Name != "Player" {
		t.Fatalf("Get of the compressed record: %q, %d-byte stack, %v", r.Text, len(r.Stack), err)
	}
	tail, err := l.Tail(ctx, oplog.TailQuery{HasSince: true, Limit: 10, Filter: oplog.Filter{Name: "Player"}})
	if err != nil || len(tail.Lines) != 2 || tail.Lines[0].Text != "short" || tail.Lines[1].Stack != stack {
		t.Fatalf("tail: %+v, %v", tail.Lines, err)
	}
	op, err := l.Get(ctx, got[2].ID)
	if err != nil || string(op.Result) != string(result) || op.Status != oplog.StatusSuccess {
		t.Fatalf("completed op: %s %v, %v", op.Result, op.Status, err)
	}
}
