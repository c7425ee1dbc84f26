package api_test

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/oplog"
)

func TestDecodeLines(t *testing.T) {
	ok := func(in string, want ...oplog.Record) {
		t.Helper()
		got, err := api.DecodeLines(strings.NewReader(in))
		if err != nil {
			t.Errorf("DecodeLines(%q): %v", in, err)
			return
		}
		if len(got) != len(want) {
			t.Errorf("DecodeLines(%q) = %d records, want %d", in, len(got), len(want))
			return
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Kind != oplog.KindLine || !g.Time.Equal(w.Time) || g.Level != w.Level || g.Name != w.Name || g.Source != w.Source ||
				g.Text != w.Text || g.Stack != w.Stack || string(g.Data) != string(w.Data) {
				t.Errorf("DecodeLines(%q)[%d] = %+v\nwant %+v", in, i, g, w)
			}
		}
	}
	bad := func(in string, index int, msgs ...string) {
		t.Helper()
		recs, err := api.DecodeLines(strings.NewReader(in))
		if err == nil {
			t.Errorf("DecodeLines(%q) = %d records, want an error", in, len(recs))
			return
		}
		if oplog.ErrorCode(err) != oplog.EINVALID {
			t.Errorf("DecodeLines(%q) error code %q, want invalid", in, oplog.ErrorCode(err))
		}
		be, isBatch := oplog.IsBatchError(err)
		switch {
		case index < 0 && isBatch:
			t.Errorf("DecodeLines(%q) error names record %d, want none", in, be.Index)
		case index >= 0 && (!isBatch || be.Index != index):
			t.Errorf("DecodeLines(%q) error %v, want one naming record %d", in, err, index)
		}
		for _, m := range msgs {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("DecodeLines(%q) error %q does not contain %q", in, err, m)
			}
		}
	}
	info := func(text string) oplog.Record { return oplog.Record{Level: oplog.LevelInfo, Text: text} }

	ok("")
	ok(" \n\t")
	ok("[]")
	ok(`{"level":"info","text":"a"}`, info("a"))
	ok(`[{"level":"info","text":"a"} , {"level":"info","text":"b"}]`, info("a"), info("b"))
	ok("{\"level\":\"info\",\"text\":\"a\"}\n{\"level\":\"info\",\"text\":\"b\"}", info("a"), info("b"))
	ok("\n\n{\"level\":\"info\",\"text\":\"a\"}\r\n\r\n", info("a"))
	ok("{\n\"level\": \"info\",\n\"text\": \"multi-line object\"\n}", info("multi-line object"))
	ok(`{"level":"info","text":"a","name":null,"data":null}`, info("a"))
	ok(`{"level":"info","text":"q\"u\u00e9\n"}`, info("q\"ué\n"))
	ok("{\"level\":\"info\",\"text\":\"bad \xff utf-8\"}", info("bad \uFFFD utf-8"))
	ok(`{"level":"WARNING","log_name":"L","message":"m","stack_trace":"s","context":{ "a" : 1 },"source":"src"}`,
		oplog.Record{Level: oplog.LevelWarn, Name: "L", Text: "m", Stack: "s", Data: []byte(`{"a":1}`), Source: "src"})
	ok(`{"level":"Assert","logName":"L","stackTrace":"s"}`, oplog.Record{Level: oplog.LevelError, Name: "L", Stack: "s"})
	ok(`{"level":"info","time":"2026-11-30T10:00:00+01:00"}`, oplog.Record{Level: oplog.LevelInfo, Time: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)})
	ok(`{"level":"info","time":1764504000}`, oplog.Record{Level: oplog.LevelInfo, Time: time.Unix(1764504000, 0)})
	ok(`{"level":"info","time":1764504000123}`, oplog.Record{Level: oplog.LevelInfo, Time: time.UnixMilli(1764504000123)})
	ok(`{"level":"info","time":1764504000.5}`, oplog.Record{Level: oplog.LevelInfo, Time: time.UnixMilli(1764504000500)})
	ok(`{"level":"info","time":"1764504000123"}`, oplog.Record{Level: oplog.LevelInfo, Time: time.UnixMilli(1764504000123)})

	bad(`[{"level":"info"},{"level":"info"},{"level":"nope"}]`, 2, "record 2:", `"nope"`)
	bad("{\"level\":\"info\"}\n\n{}\n", 1, "record 1 (line 3)", "level: missing")
	bad(`{"level":"info","extra":1}`, 0, `unknown field "extra"`, "put extra fields in data")
	bad(`{"level":"info","text":"a","message":"b"}`, 0, "text", "message", "not both")
	bad(`{"level":"info","stack":"a","stackTrace":"b"}`, 0, "stack", "stackTrace")
	bad(`{"level":"info","data":{},"context":{}}`, 0, "data", "context")
	bad(`{"level":"info","data":"x"}`, 0, "data: must be a JSON object, got a string")
	bad(`{"level":"info","time":[1]}`, 0, "time: must be")
	bad(`{"level":"info","time":"next tuesday"}`, 0, "time: cannot read time")
	bad(`{"level":true}`, 0, "level: must be a string, got a boolean")
	bad(`{"level":""}`, 0, "level: missing")
	bad(`{"level":"info","source":1}`, 0, "source: must be a string")
	bad(`[null]`, 0, "expected a JSON object, got null")
	bad(`"text"`, 0, "expected a JSON object, got a string")
	bad(`[{"level":"info"} {"level":"info"}]`, 1, "malformed JSON")
	bad(`[{"level":"info"},]`, 1, "malformed JSON")
	bad(`[{"level":"info"}`, -1, "not closed")
	bad(`[{"level":"info"}][]`, -1, "after the closing ]")
	bad("{\"level\":\"info\"}\n{\"level\":", 1, "record 1 (line 2)", "malformed JSON")
	bad(`{"level":"info"}{"level":"info"}`, 0, "malformed JSON")
}

func TestDecodeLines_ReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := api.DecodeLines(iotest.ErrReader(boom))
	if !errors.Is(err, boom) || oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("DecodeLines(failing reader) = %v; want EINVALID wrapping the read error", err)
	}
}

func TestDecodeLine(t *testing.T) {
	r, err := api.DecodeLine([]byte(`{"level":"error","name":"n","text":"t","data":{"k": [1, 2]}}`))
	if err != nil || r.Level != oplog.LevelError || r.Name != "n" || r.Text != "t" || string(r.Data) != `{"k":[1,2]}` || r.Kind != oplog.KindLine {
		t.Errorf("DecodeLine = %+v, %v", r, err)
	}
	for in, msg := range map[string]string{
		``:                       "expected a JSON object, got nothing",
		`[]`:                     "expected a JSON object, got an array",
		`{"level":"info"`:        "malformed JSON",
		`{"level":"info","x":1}`: `unknown field "x"`,
	} {
		if _, err := api.DecodeLine([]byte(in)); err == nil || oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), msg) {
			t.Errorf("DecodeLine(%q) error = %v; want EINVALID containing %q", in, err, msg)
		}
	}
}

func FuzzDecodeLines(f *testing.F) {
	for _, s := range []string{
		``,
		`[]`,
		`{"level":"info","text":"a"}`,
		`[{"level":"warn","text":"a","name":"n","source":"s","stack":"st","data":{"k":1},"time":"2026-01-02T15:04:05Z"}]`,
		"{\"level\":\"Exception\",\"log_name\":\"n\",\"message\":\"m\",\"stack_trace\":\"s\",\"context\":{}}\n\n{\"level\":\"Log\",\"time\":1764504000123}\n",
		"{\n \"level\": \"debug\"\n}",
		`[{"level":"info"},{"level":"loud"}]`,
		`{"level":"info","text":"a","message":"b"}`,
		`{"level":"info","data":[1]}`,
		`{"level":"info","time":-1.5e300}`,
		`{"level":"info","time":"-15m"}`,
		`[{"level":"info"}`,
		`[1,"a",null,{}]`,
		"\xef\xbb\xbf[{\"level\":\"fatal\"}]",
		`{"level":"info"}{"level":"info"}`,
		"{\"level\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		recs, err := api.DecodeLines(strings.NewReader(string(in)))
		if err != nil {
			if oplog.ErrorCode(err) != oplog.EINVALID || err.Error() == "" {
				t.Fatalf("error %v has code %q, want invalid with a message", err, oplog.ErrorCode(err))
			}
			if be, ok := oplog.IsBatchError(err); ok && be.Index < 0 {
				t.Fatalf("negative index %d", be.Index)
			}
			return
		}
		for i, r := range recs {
			if !r.Level.Valid() || r.Kind != oplog.KindLine {
				t.Fatalf("record %d decoded without error has level %d, kind %d", i, r.Level, r.Kind)
			}
		}
	})
}
