package oplog_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

func TestOpTemplate(t *testing.T) {
	for _, tt := range []struct{ tool, args, want string }{
		{"spawn_enemy", `{"count": 500}`, "spawn_enemy {count}"},
		{"spawn_enemy", `{"count":250}`, "spawn_enemy {count}"},
		{"spawn_enemy", `{"kind": "boss", "count": 1}`, "spawn_enemy {count, kind}"},
		{"spawn_enemy", `{"count": "many"}`, "spawn_enemy {count}"},
		{"move", `{"to": {"x": 1, "y": {"z": 2}}, "id": 7}`, "move {id, to: {x, y}}"},
		{"move", `{"path": [{"x": 1}, {"x": 2}]}`, "move {path}"},
		{"ping", ``, "ping"},
		{"ping", `null`, "ping"},
		{"ping", `{}`, "ping {}"},
		{"teleport", `[1, 2.5]`, "teleport [<N>,<N>]"},
		{"say", `"hello"`, `say "<S>"`},
		{"odd", "{\"a\\nb\": 1}", "odd {a b}"},
	} {
		if got := oplog.OpTemplate(tt.tool, json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("OpTemplate(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
	t.Run("Clipped", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("{")
		for i := range 100 {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + strings.Repeat("n", 60) + string(rune('a'+i%26)) + strings.Repeat("x", i) + `": 1`)
		}
		b.WriteString("}")
		got := oplog.OpTemplate("big", json.RawMessage(b.String()))
		if len(got) > 200 || !strings.HasSuffix(got, ", …}") || strings.Contains(got, strings.Repeat("n", 33)) {
			t.Errorf("OpTemplate of 100 long names = %d bytes %q; want at most 200, names clipped, then …", len(got), got)
		}
	})
}

// TestDigestOf_OpShapes: a digest counts operations by call shape, values
// blanked and names kept, and lines by their message template as before.
func TestDigestOf_OpShapes(t *testing.T) {
	op := func(args string) oplog.Record {
		return oplog.Record{Kind: oplog.KindOp, Tool: "spawn_enemy", Name: "spawn_enemy", Source: "game",
			Arguments: json.RawMessage(args), Text: "spawn_enemy " + args}
	}
	line := oplog.Record{Kind: oplog.KindLine, Source: "game", Text: `Spawned 500 enemies in "Arena"`}
	d := oplog.DigestOf([]oplog.Record{op(`{"count":500}`), op(`{"count":250}`), op(`{"count":1,"kind":"boss"}`), line})
	got := map[string]int{}
	for _, tc := range d.Templates {
		got[tc.Template] = tc.Count
		if tc.ID != oplog.TemplateID(tc.Template) {
			t.Errorf("template %q: ID %s, want TemplateID's %s", tc.Template, tc.ID, oplog.TemplateID(tc.Template))
		}
	}
	want := map[string]int{"spawn_enemy {count}": 2, "spawn_enemy {count, kind}": 1, `Spawned <N> enemies in "<S>"`: 1}
	if len(got) != len(want) {
		t.Fatalf("templates %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("templates %v, want %v", got, want)
		}
	}
	// A line's template ID is its text's, unchanged.
	if a, b := oplog.RecordTemplateID(&line), oplog.TextTemplateID(line.Text); a != b || a != oplog.TemplateID(`Spawned <N> enemies in "<S>"`) {
		t.Errorf("line's RecordTemplateID %s, TextTemplateID %s", a, b)
	}
	a, b := op(`{"count":500}`), op(`{"count":250}`)
	if oplog.RecordTemplateID(&a) != oplog.RecordTemplateID(&b) || oplog.RecordTemplateID(&a) != oplog.TemplateID("spawn_enemy {count}") {
		t.Errorf("ops of one shape: IDs %s and %s", oplog.RecordTemplateID(&a), oplog.RecordTemplateID(&b))
	}
}
