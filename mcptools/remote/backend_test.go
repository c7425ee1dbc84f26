package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools/remote"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestBackend_MatchesLocal checks that Backend, the Backend over HTTP, answers
// as the server's own *oplog.Log does.
func TestBackend_MatchesLocal(t *testing.T) {
	h := apitest.MustServe(t, nil)
	r := remote.NewBackend(client.NewClient(h.URL, apitest.Token))
	defer r.Close()
	ctx := context.Background()
	lines := []oplog.Record{
		{Level: oplog.LevelInfo, Source: "unity", Name: "Player", Text: "a"},
		{Level: oplog.LevelError, Source: "unity", Name: "Player", Text: "b", Stack: "at X ()"},
		{Level: oplog.LevelWarn, Source: "tecs", Name: "Physics", Text: "c"},
	}
	if err := r.Append(ctx, lines); err != nil || lines[2].ID != 3 {
		t.Fatalf("append: %v (id %d)", err, lines[2].ID)
	}
	op := []oplog.Record{{Tool: "run_lua", Arguments: json.RawMessage(`{"code":"1"}`)}}
	if err := h.Log.Append(ctx, op); err != nil {
		t.Fatal(err)
	}

	t.Run("Names", func(t *testing.T) {
		got, err := r.Names(ctx, "unity")
		want, _ := h.Log.Names(ctx, "unity")
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 1 || got[0].Counts[oplog.KindLine][oplog.LevelError] != 1 {
			t.Fatalf("remote names %+v, %v; local %+v", got, err, want)
		}
	})
	t.Run("Stats", func(t *testing.T) {
		if got, want := r.Stats(), h.Log.Stats(); got != want {
			t.Fatalf("remote stats %+v; local %+v", got, want)
		}
	})
	t.Run("Neighbors", func(t *testing.T) {
		prev, next, err := r.Neighbors(ctx, 2)
		if err != nil || prev != 1 || next != 3 {
			t.Fatalf("neighbors of 2: %d, %d, %v", prev, next, err)
		}
		if _, _, err := r.Neighbors(ctx, 99); oplog.ErrorCode(err) != oplog.ENOTFOUND {
			t.Fatalf("neighbors of 99: %v", err)
		}
	})
	t.Run("AwaitComplete", func(t *testing.T) {
		done := make(chan oplog.Record, 1)
		go func() {
			rec, err := r.AwaitComplete(ctx, op[0].ID)
			if err != nil {
				t.Error(err)
			}
			done <- rec
		}()
		if _, err := r.Complete(ctx, op[0].ID, oplog.Completion{Result: json.RawMessage(`{"n":1}`)}); err != nil {
			t.Fatal(err)
		}
		select {
		case rec := <-done:
			if rec.Status != oplog.StatusSuccess || string(rec.Result) != `{"n":1}` {
				t.Fatalf("awaited %+v", rec)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("AwaitComplete did not return")
		}
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		pending := []oplog.Record{{Tool: "query"}}
		h.Log.Append(ctx, pending)
		if rec, err := r.AwaitComplete(short, pending[0].ID); !errors.Is(err, context.DeadlineExceeded) || rec.ID != pending[0].ID || rec.Status != oplog.StatusPending {
			t.Fatalf("AwaitComplete of a pending op past its deadline: %+v, %v; want the pending record and DeadlineExceeded", rec, err)
		}
		expired, cancel2 := context.WithDeadline(ctx, time.Now().Add(-time.Second))
		defer cancel2()
		if rec, err := r.AwaitComplete(expired, op[0].ID); err != nil && !errors.Is(err, context.DeadlineExceeded) || !rec.IsComplete() {
			t.Fatalf("AwaitComplete with no time to wait: %+v, %v; want the completed record", rec, err)
		}
		if _, err := r.AwaitComplete(ctx, 1); oplog.ErrorCode(err) != oplog.EINVALID {
			t.Fatalf("AwaitComplete of a line: %v", err)
		}
	})
	t.Run("Changed", func(t *testing.T) {
		ch := r.Changed()
		// The watcher needs a first answer before it can notice a change;
		// keep appending until it does.
		deadline := time.After(20 * time.Second)
		for {
			h.Log.Append(ctx, []oplog.Record{{Level: oplog.LevelInfo, Text: "wake"}})
			select {
			case <-ch:
				return
			case <-time.After(100 * time.Millisecond):
			case <-deadline:
				t.Fatal("Changed did not fire after appends")
			}
		}
	})
	t.Run("Clear", func(t *testing.T) {
		if status, b := h.Call(http.MethodPost, "/api/v1/clear", `{}`); status != http.StatusBadRequest {
			t.Fatalf("clear without confirm: %d %s", status, b)
		}
		before := h.Log.Stats()
		s, err := r.Clear(ctx)
		if err != nil || s.Records != 0 || s.Revision == before.Revision || s != h.Log.Stats() {
			t.Fatalf("clear: %+v, %v", s, err)
		}
	})
}

// TestBackend_Append_Time: a record appended without a time comes back
// with the time it is stored with (append_log answers it), as
// oplog.Log.Append gives it.
func TestBackend_Append_Time(t *testing.T) {
	h := apitest.MustServe(t, nil)
	r := remote.NewBackend(client.NewClient(h.URL, apitest.Token))
	defer r.Close()
	before := time.Now()
	recs := []oplog.Record{{Level: oplog.LevelInfo, Text: "a note"}, {Level: oplog.LevelInfo, Text: "dated", Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}}
	if err := r.Append(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	if recs[0].Time.Before(before.Add(-time.Second)) || recs[0].Time.After(time.Now().Add(time.Second)) || recs[0].Time.Location() != time.UTC {
		t.Fatalf("the undated record's time: %v (appended after %v)", recs[0].Time, before)
	}
	for _, want := range recs {
		got, err := h.Log.Get(t.Context(), want.ID)
		if err != nil || !got.Time.Equal(want.Time) {
			t.Fatalf("record %d stored at %v (%v); Append said %v", want.ID, got.Time, err, want.Time)
		}
	}
}
