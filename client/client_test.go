package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

func TestClient_RoundTrip(t *testing.T) {
	arrived := make(chan struct{}, 1)
	next := strings.Repeat("fedcba9876543210", 4)
	h := mustServe(t, &harnessOptions{
		API:  api.Options{RotateToken: func() (string, error) { return next, nil }},
		Wrap: observe("/api/v1/tail", arrived, nil),
	})
	c := client.NewClient(h.URL+"/", testToken)
	ctx := context.Background()
	at := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.UTC)

	recs := []oplog.Record{
		{Time: at, Level: oplog.LevelWarn, Name: "Physics", Source: "unity", Text: "slow frame", Stack: "at Step ()", Data: []byte(`{"ms":40}`)},
		{Level: oplog.LevelInfo, Text: "plain"},
		{Level: oplog.LevelError, Name: "Physics", Text: "boom"},
	}
	t.Run("Health", func(t *testing.T) {
		if err := c.Health(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Append", func(t *testing.T) {
		if err := c.Append(ctx, recs); err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			stored, err := h.Log.Get(ctx, r.ID)
			if err != nil || stored.Text != r.Text {
				t.Errorf("recs[%d].ID = %d holds %+v, %v", i, r.ID, stored, err)
			}
		}
	})
	t.Run("Get", func(t *testing.T) {
		got, err := c.Get(ctx, recs[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := h.Log.Get(ctx, recs[0].ID)
		if !reflect.DeepEqual(got, want) || !got.Time.Equal(at) {
			t.Errorf("Get = %+v\nwant  %+v", got, want)
		}
	})
	t.Run("List", func(t *testing.T) {
		p, err := c.List(ctx, oplog.Query{Filter: oplog.Filter{Name: "Physics"}, Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 1 || p.Records[0].ID != recs[2].ID || !p.More || p.Total != 2 {
			t.Errorf("List(name, count 1) = %+v", p)
		}
		p, err = c.List(ctx, oplog.Query{Filter: oplog.Filter{MinLevel: oplog.LevelWarn, Since: at.Add(-time.Nanosecond), Until: at.Add(time.Nanosecond)}})
		if err != nil || len(p.Records) != 1 || p.Records[0].ID != recs[0].ID {
			t.Errorf("List(level, since, until) = %+v, %v", p, err)
		}
		p, err = c.List(ctx, oplog.Query{Filter: oplog.Filter{MinLevel: oplog.LevelWarn}})
		if err != nil || len(p.Records) != 2 || p.Total != 2 || p.More {
			t.Errorf("List(level) = %+v, %v", p, err)
		}
	})
	t.Run("Tail", func(t *testing.T) {
		st := h.Log.Stats()
		tail, err := c.Tail(ctx, oplog.TailQuery{HasSince: true, SinceID: recs[0].ID, Limit: 1, Revision: st.Revision})
		if err != nil || len(tail.Lines) != 1 || tail.Lines[0].ID != recs[1].ID || !tail.More || tail.Revision != st.Revision {
			t.Errorf("Tail = %+v, %v", tail, err)
		}
		<-arrived
		tail, err = c.Tail(ctx, oplog.TailQuery{Limit: 2})
		if err != nil || len(tail.Lines) != 2 || tail.Lines[1].ID != recs[2].ID || tail.LastID != st.LastID {
			t.Errorf("Tail(newest 2) = %+v, %v", tail, err)
		}
		<-arrived
	})
	t.Run("TailWait", func(t *testing.T) {
		last := h.Log.Stats().LastID
		type answer struct {
			tail oplog.Tail
			err  error
		}
		res := make(chan answer, 1)
		go func() {
			tail, err := c.Tail(ctx, oplog.TailQuery{HasSince: true, SinceID: last, Wait: 10 * time.Second})
			res <- answer{tail, err}
		}()
		within(t, arrived, 10*time.Second, "the tail request")
		logtest.MustAppend(t, h.Log, oplog.Record{Level: oplog.LevelInfo, Text: "wake"})
		select {
		case r := <-res:
			if r.err != nil || len(r.tail.Lines) != 1 || r.tail.Lines[0].Text != "wake" {
				t.Errorf("waiting Tail = %+v, %v", r.tail, r.err)
			}
		case <-time.After(8 * time.Second):
			t.Fatal("the waiting Tail did not return after a line was appended")
		}
	})
	t.Run("Stats", func(t *testing.T) {
		got, err := c.Stats(ctx)
		if want := h.Log.Stats(); err != nil || got != want {
			t.Errorf("Stats = %+v, %v\nwant    %+v", got, err, want)
		}
	})
	t.Run("RotateToken", func(t *testing.T) {
		old := client.NewClient(h.URL, testToken)
		token, err := c.RotateToken(ctx)
		if err != nil || token != next {
			t.Fatalf("RotateToken = %q, %v", token, err)
		}
		if _, err := c.Stats(ctx); err != nil {
			t.Errorf("the rotating client after rotation: %v", err)
		}
		if _, err := old.Stats(ctx); oplog.ErrorCode(err) != oplog.EUNAUTHORIZED {
			t.Errorf("a client with the old token: %v, want unauthorized", err)
		}
	})
}

func TestClient_Errors(t *testing.T) {
	h := mustServe(t, nil)
	c := client.NewClient(h.URL, testToken)
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		call  func() error
		code  string
		msg   string
		index int // -1: no BatchError
	}{
		{"NotFound", func() error { _, err := c.Get(ctx, 42); return err }, oplog.ENOTFOUND, "no record 42", -1},
		{"BadLine", func() error {
			return c.Append(ctx, []oplog.Record{{Level: oplog.LevelInfo, Text: "ok"}, {Text: "no level"}})
		}, oplog.EINVALID, "record 1", 1},
		{"NoLines", func() error { return c.Append(ctx, nil) }, oplog.EINVALID, "no lines", -1},
		{"Operation", func() error { return c.Append(ctx, []oplog.Record{{Tool: "run_lua"}}) }, oplog.EINVALID, "operation", 0},
		{"BadQuery", func() error { _, err := c.List(ctx, oplog.Query{Count: -1}); return err }, oplog.EINVALID, "count", -1},
		{"WrongToken", func() error { return client.NewClient(h.URL, strings.Repeat("9", 64)).Append(ctx, testLines()) }, oplog.EUNAUTHORIZED, "token", -1},
		{"NoRotation", func() error { _, err := c.RotateToken(ctx); return err }, oplog.ENOTFOUND, "Not Found", -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var e *oplog.Error
			if !errors.As(err, &e) || e.Code != tt.code || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("error = %#v; want *oplog.Error %s containing %q", err, tt.code, tt.msg)
			}
			be, ok := oplog.IsBatchError(err)
			switch {
			case tt.index < 0 && ok:
				t.Errorf("BatchError index %d, want none", be.Index)
			case tt.index >= 0 && (!ok || be.Index != tt.index):
				t.Errorf("BatchError %v, want index %d", be, tt.index)
			}
		})
	}
	if n := h.Log.Stats().Records; n != 0 {
		t.Errorf("records = %d after failed calls", n)
	}
}

func TestClient_Unreachable(t *testing.T) {
	ts := httptest.NewServer(nil)
	url := ts.URL
	ts.Close()
	err := client.NewClient(url, testToken).Health(context.Background())
	if oplog.ErrorCode(err) != oplog.EUNAVAILABLE || !strings.Contains(err.Error(), url) {
		t.Errorf("Health of a closed server = %v; want unavailable naming %s", err, url)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := client.NewClient(url, testToken).Health(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Health with a cancelled context = %v", err)
	}
}

func testLines() []oplog.Record { return []oplog.Record{{Level: oplog.LevelInfo, Text: "x"}} }
