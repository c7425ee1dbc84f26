package oplog_test

import (
	"encoding/json"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestSameData: where a line was read from (file, offset, fileId) does not
// make two data different; anything else does.
func TestSameData(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"file":"/g/Player.log","offset":120,"fileId":"803:12:ab"}`, `{"file":"/g/Player.log","offset":164,"fileId":"803:12:ab"}`, true},
		{`{"frame":3,"file":"/g/Player.log","offset":120}`, `{"offset":164,"file":"/g/Player.log","frame":3}`, true},
		{`{"file":"/g/Player.log","offset":120}`, ``, true},
		{``, `{}`, true},
		{`{"frame":3,"offset":120}`, `{"frame":4,"offset":164}`, false},
		{`{"frame":3,"offset":120}`, `{"offset":164}`, false},
		{`[1]`, `[1]`, true},
		{`[1]`, `[2]`, false},
		{`"x"`, `{}`, false},
	} {
		if got := oplog.SameData(json.RawMessage(c.a), json.RawMessage(c.b)); got != c.want {
			t.Errorf("SameData(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
