package api

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// fastCorpus is input the fast path must answer (well-formed lines) or
// leave (everything else), each compared with the slow decoder.
var fastCorpus = []string{
	``, " \n\t", `[]`, `[ ]`, "\xef\xbb\xbf[{\"level\":\"fatal\"}]",
	`{"level":"info","text":"a"}`,
	`[{"level":"info","text":"a"} , {"level":"info","text":"b"}]`,
	"{\"level\":\"info\",\"text\":\"a\"}\n{\"level\":\"info\",\"text\":\"b\"}",
	"\n\n{\"level\":\"info\",\"text\":\"a\"}\r\n\r\n",
	"{\n\"level\": \"info\",\n\"text\": \"multi-line object\"\n}",
	`{"level":"info","text":"a","name":null,"data":null}`,
	`{"level":"info","text":"a","text":"b"}`, `{"level":"info","text":"a","text":null}`,
	`{"level":"info","text":"q\"u\u00e9\n\/\b\f\r\t\\"}`,
	`{"level":"info","text":"pair \ud83d\ude00 lone \ud83d x \ude00 end \ud83d"}`,
	`{"level":"info","text":"\u0000\u001f\uFFFF"}`,
	"{\"level\":\"info\",\"text\":\"bad \xff utf-8\"}", "{\"level\":\"info\",\"text\":\"ok é 漢 \xf0\x9f\x98\x80\"}",
	"{\"level\":\"info\",\"text\":\"bad \xff and \\n escape\"}",
	`{"level":"WARNING","log_name":"L","message":"m","stack_trace":"s","context":{ "a" : 1 },"source":"src"}`,
	`{"level":"Assert","logName":"L","stackTrace":"s"}`,
	`{"level":"info","time":"2026-11-30T10:00:00+01:00"}`, `{"level":"info","time":1764504000}`,
	`{"level":"info","time":1764504000123}`, `{"level":"info","time":1764504000.5}`, `{"level":"info","time":"1764504000123"}`,
	`{"level":"info","time":-1.5e300}`, `{"level":"info","time":1E3}`, `{"level":"info","time":"-15m"}`,
	`{"level":"info","data":{"k":[1,2,{"x":null,"y":true,"z":false}],"s":"a b\n","n":-0.5e-3}}`,
	"{\"level\":\"info\",\"data\":{ \"k\" :\t[1 , 2]\n, \"e\":{} ,\"a\":[ ]}}",
	`{"level":"info","data":{"s":"\u00e9 \" \\"}}`,
	`[{"level":"info"},{"level":"info"},{"level":"nope"}]`, "{\"level\":\"info\"}\n\n{}\n",
	`{"level":"info","extra":1}`, `{"level":"info","extra":null}`, `{"level":"info","text":"a","message":"b"}`,
	`{"level":"info","stack":"a","stackTrace":"b"}`, `{"level":"info","data":{},"context":{}}`,
	`{"level":"info","data":{},"context":null}`, `{"level":"info","data":"x"}`, `{"level":"info","data":[1]}`,
	`{"level":"info","time":[1]}`, `{"level":"info","time":"next tuesday"}`, `{"level":true}`, `{"level":""}`,
	`{"level":"info","source":1}`, `[null]`, `"text"`, `[1,"a",null,{}]`,
	`[{"level":"info"} {"level":"info"}]`, `[{"level":"info"},]`, `[{"level":"info"}`, `[{"level":"info"}][]`,
	"{\"level\":\"info\"}\n{\"level\":", `{"level":"info"}{"level":"info"}`, "{\"level\":\"\xff\"}",
	`{"te\u0078t":"a","level":"info"}`, `{"level":"info","text":"a",}`, `{"level":"info" "text":"a"}`,
	`{"level":"info","time":01}`, `{"level":"info","time":1.}`, `{"level":"info","time":1e}`, `{"level":"info","time":-}`,
	`{"level":"info","data":{"a":tru}}`, `{"level":"info","data":{"a":"\x"}}`, `{"level":"info","data":{"a":"\u12"}}`,
	"{\"level\":\"info\",\"data\":{\"a\":\"\t\"}}", `{"level":"info","data":{"a" 1}}`, `{"level":"info","data":{1:1}}`,
	`{"level":"info","data":{"a":[1,]}}`, `{"level":"info","data":{"a":1,}}`,
	`{"level":"info","data":` + strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300) + `}`,
	"{\"level\":\"info\"}\u00a0", "{\"level\":\"info\"}\n\u00a0{\"level\":\"debug\"}\n",
	"[{\"level\":\"info\"}]\n", "\t{\"level\":\"info\"}\t\n", "[{\"level\":\"info\"}\u00a0]",
	`{"level":"info","level":"warn"}`, `{"level":"info","data":null,"data":{}}`, `{"level":"info","x":1,"x":1}`,
	`{"level":"info","time":0}`, `{"level":"info","time":-0}`, `{"level":"info","time":"0"}`, `{"level":"info","time":""}`,
	`{"level":"info","time":" "}`, `{"level":"info","time":"0001-01-01T00:00:00Z"}`, `{"level":"info","time":99999999999999999999}`,
}

func TestDecodeLines_FastMatchesSlow(t *testing.T) {
	answered := 0
	for _, in := range fastCorpus {
		if compareFastSlow(t, []byte(in)) {
			answered++
		}
	}
	// The fast path must take the well-formed batches, or it is no faster.
	if answered < 30 {
		t.Errorf("the fast path answered %d of %d inputs, want at least 30", answered, len(fastCorpus))
	}
	for _, in := range []string{`[{"level":"info","text":"a"}]`, "{\"level\":\"error\",\"stack\":\"a\\nb\"}\n{\"level\":\"info\"}",
		`{"level":"info","data":{ "a" : 1 }}`, `{"level":"info","text":"\u00e9"}`} {
		b := []byte(in)
		if _, ok := fastLines(b, bytes.TrimSpace(b), 0); !ok {
			t.Errorf("fast path left the well-formed %q to the slow one", in)
		}
	}
}

func FuzzDecodeLines_FastSlow(f *testing.F) {
	for _, s := range fastCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { compareFastSlow(t, in) })
}

// compareFastSlow checks that when the fast path answers in, the slow one
// answers the same records; it reports whether the fast path answered.
func compareFastSlow(t *testing.T, in []byte) bool {
	t.Helper()
	b := bytes.TrimPrefix(in, []byte("\xef\xbb\xbf"))
	tr := bytes.TrimSpace(b)
	fast, ok := fastLines(b, tr, 0)
	if !ok {
		return false
	}
	slow, err := decodeLinesSlow(b, tr, 0)
	if err != nil {
		t.Errorf("%q: fast path gave %d records, slow one %v", in, len(fast), err)
		return true
	}
	if len(fast) != len(slow) {
		t.Errorf("%q: fast path gave %d records, slow one %d", in, len(fast), len(slow))
		return true
	}
	for i := range fast {
		if d := recordDiff(fast[i], slow[i]); d != "" {
			t.Errorf("%q: record %d: %s", in, i, d)
		}
	}
	if len(fast) == 1 && len(tr) > 0 && tr[0] == '{' {
		if one, err := DecodeLine(tr); err != nil || recordDiff(one, slow[0]) != "" {
			t.Errorf("%q: DecodeLine = %+v, %v; want %+v", in, one, err, slow[0])
		}
	}
	return true
}

func recordDiff(a, b oplog.Record) string {
	dt := a.Time.Sub(b.Time)
	if dt < 0 {
		dt = -dt
	}
	if a.Time.IsZero() != b.Time.IsZero() || dt > time.Second { // relative times read time.Now twice
		return fmt.Sprintf("time %v, slow %v", a.Time, b.Time)
	}
	a.Time, b.Time = time.Time{}, time.Time{}
	if string(a.Data) != string(b.Data) || (a.Data == nil) != (b.Data == nil) {
		return fmt.Sprintf("data %q, slow %q", a.Data, b.Data)
	}
	a.Data, b.Data = nil, nil
	if fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) {
		return fmt.Sprintf("%#v\nslow %#v", a, b)
	}
	return ""
}
