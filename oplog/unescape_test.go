package oplog_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestUnescapeWriter: json.Marshal's HTML escapes come back as <, > and &,
// however the stream is cut into writes; an escaped backslash followed by
// "u003c" is kept; the result decodes to the same value.
func TestUnescapeWriter(t *testing.T) {
	v := map[string]any{
		"name": "BossFight+<PhaseRoutine>d__12 & co",
		"lit":  `a \u003c is not a <`,
		"path": `C:\users\dev`,
		"sep":  "line\u2028sep",
	}
	in, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want, err := oplog.MarshalJSON(v, "")
	if err != nil {
		t.Fatal(err)
	}
	checkUnescape(t, in, want)
	// Without HTML escapes the input passes unchanged, whatever the cut,
	// escapes of other kinds (and backslashes at the end of a write)
	// included.
	plain := []byte(`{"path":"C:\\users\\dev\\","q":"\"quoted\"","nl":"a\nb","u":"\u2028\u00e9","end":"\\"}`)
	checkUnescape(t, plain, plain)
}

func checkUnescape(t *testing.T, in, want []byte) {
	t.Helper()
	for step := 1; step <= len(in); step++ {
		var out bytes.Buffer
		u := &oplog.UnescapeWriter{W: &out}
		for i := 0; i < len(in); i += step {
			if _, err := u.Write(in[i:min(i+step, len(in))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := u.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != string(want) {
			t.Fatalf("writes of %d bytes:\n got %s\nwant %s", step, out.String(), want)
		}
	}
}
