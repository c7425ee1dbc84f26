package gateway

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// FuzzMirrorRecord turns arbitrary console entries of an upstream game
// server into records as the mirror does: no panic, and the Log accepts
// every record (a refused one would stall the mirror on that line).
func FuzzMirrorRecord(f *testing.F) {
	for _, seed := range []string{
		`{"id":7,"time":"2026-03-14T09:26:53Z","level":"Warning","logName":"Physics","message":"Rigidbody moved"}`,
		`{"log_id":"8","timestamp":1710408413000,"type":"Exception","text":"NRE","stackTrace":"at X.Y ()"}`,
		`{"ts":"yesterday","severity":42,"category":{"a":1},"msg":null,"traceback":["x"]}`,
		`{"level":"\u0000\n","name":"` + "\xff\xfe" + `","text":""}`,
		`{}`,
	} {
		f.Add([]byte(seed))
	}
	l := oplog.New(oplogtest.NewMemory(), nil)
	m := newMirror("game", l, nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		var e entry
		if json.Unmarshal(b, &e) != nil {
			return
		}
		r := m.record(e, position{run: 1})
		if err := l.Append(context.Background(), []oplog.Record{r}); err != nil {
			t.Fatalf("entry %s: the Log refuses its record: %v", b, err)
		}
	})
}
