package studio

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"http://127.0.0.1:9428", "http://127.0.0.1:9428", true},
		{" https://vl.studio/ ", "https://vl.studio", true},
		{"vl.studio:9428", "", false},
		{"ftp://vl", "", false},
		{"http://vl/?a=1", "", false},
	} {
		got, err := ParseURL(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseURL(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseVMDuration(t *testing.T) {
	day := 24 * time.Hour
	for in, want := range map[string]time.Duration{"7d": 7 * day, "100y": 100 * 365 * day, "2w": 14 * day, "1h30m": 90 * time.Minute, "1": 31 * day} {
		if got, err := parseVMDuration(in); err != nil || got != want {
			t.Errorf("parseVMDuration(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "7x", "1.2.3d"} {
		if _, err := parseVMDuration(bad); err == nil {
			t.Errorf("parseVMDuration(%q): no error", bad)
		}
	}
}

// TestAppendRow_ValidJSON: any text, invalid UTF-8 and control bytes
// included, makes one valid JSON line with the text back (invalid bytes as U+FFFD).
func TestAppendRow_ValidJSON(t *testing.T) {
	s := rowSchema{project: "p\"q", machine: "m\\1"}
	for _, text := range []string{"plain", "quote \" backslash \\ tab \t nl \n cr \r", "\x00\x1f\x7f", "héllo ✓ 🎮", "bad \xff\xfe utf8", "\u2028"} {
		r := oplog.Record{ID: 7, Kind: oplog.KindLine, Level: oplog.LevelWarn, Source: "s", Text: text, Time: time.Unix(1, 5).UTC(),
			Data: json.RawMessage(`{"a":[1,2]}`)}
		line := s.appendRow(nil, &r, 3, 9)
		if line[len(line)-1] != '\n' {
			t.Fatalf("%q: no newline", line)
		}
		var got map[string]any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		want := string([]rune(text)) // invalid bytes become U+FFFD, as json.Unmarshal reads them
		if got["_msg"] != want || got["project"] != s.project || got["machine"] != s.machine || got["seq"] != 3.0 || got["id"] != 7.0 {
			t.Errorf("%q: decoded %v", text, got)
		}
	}
}

// TestAppendRow_Clipped: a record at the local limits still makes a line
// VictoriaLogs takes (under 256 KiB).
func TestAppendRow_Clipped(t *testing.T) {
	s := rowSchema{project: "p", machine: "m"}
	big := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'x'
		}
		return string(b)
	}
	r := oplog.Record{ID: 1, Kind: oplog.KindLine, Level: oplog.LevelError, Source: "s", Time: time.Now(),
		Text: big(oplog.MaxTextBytes), Stack: big(oplog.MaxStackBytes), Data: json.RawMessage(`{"a":"` + big(oplog.MaxJSONBytes-10) + `"}`)}
	line := s.appendRow(nil, &r, 1, 1)
	if len(line) > 200<<10 {
		t.Fatalf("row of %d bytes", len(line))
	}
	var got map[string]any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if len(got["_msg"].(string)) != maxFieldBytes || len(got["stack"].(string)) != maxFieldBytes || got["data"] != nil {
		t.Errorf("clipped row: _msg %d bytes, stack %d, data %v", len(got["_msg"].(string)), len(got["stack"].(string)), got["data"] != nil)
	}
}

func TestRedact(t *testing.T) {
	if got := redact("http://team:s3cret@vl:9428"); got != "http://team:xxxxx@vl:9428" {
		t.Errorf("redact = %q", got)
	}
}
