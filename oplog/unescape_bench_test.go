package oplog_test

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// BenchmarkUnescapeWriter: the cost of the unescaper on a 32 KB answer of
// records (the MCP tools' default budget), one in ten holding < and >.
func BenchmarkUnescapeWriter(b *testing.B) {
	var recs []map[string]any
	for i := 0; len(recs) < 10000; i++ {
		text := fmt.Sprintf("Player %d took 12 damage from \"orc\" at (3, 4)\nnext line", i)
		if i%10 == 0 {
			text = fmt.Sprintf("BossFight+<PhaseRoutine>d__%d failed & stopped", i)
		}
		recs = append(recs, map[string]any{"id": i, "text": text, "level": "info"})
		if bs, _ := json.Marshal(recs); len(bs) > 32<<10 {
			break
		}
	}
	in, _ := json.Marshal(recs)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	u := &oplog.UnescapeWriter{W: io.Discard}
	for b.Loop() {
		if _, err := u.Write(in); err != nil {
			b.Fatal(err)
		}
	}
}
