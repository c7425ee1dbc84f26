package ui_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestE2E_StudioSwitch: a server with a studio shows a local/studio switch;
// in studio scope the crash view groups both machines' crash with each
// machine's count, and search rows name their machine. A server without a
// studio shows no switch.
func TestE2E_StudioSwitch(t *testing.T) {
	t.Parallel()
	vl := vltest.Start(t)
	s := mustServe(t, "--studio", vl.URL, "--project", "game", "--machine", "alice-pc")
	s.ingest(t, line{Level: "error", Name: "Spawner", Source: "unity", Text: "NullReferenceException", Stack: unityStack})
	// Another machine's occurrence, as its forwarder writes it.
	other := oplog.Record{ID: 1, Kind: oplog.KindLine, Level: oplog.LevelError, Source: "unity", Name: "Spawner",
		Time: time.Now().UTC(), Text: "NullReferenceException", Stack: unityStack}
	studiotest.Ingest(t, vl.URL, []map[string]any{studiotest.Row("game", "ci-7", 1, 1, &other,
		crash.Parse(unityStack).WithHead(other.Text).Signature())})
	logtest.Eventually(t, waitLong, "alice-pc's crash in VictoriaLogs", func() bool {
		rows, err := vl.TryQuery(context.Background(), `{project="game",machine="alice-pc"} signature:* | stats count() as n`)
		return err == nil && len(rows) == 1 && rows[0]["n"] == "1"
	})

	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "crashes", "#crashes")
	b.wait(t, "the local group", waitLong, `document.querySelectorAll("#crashes .group").length === 1`)
	b.wait(t, "the scope switch", waitLong, visible("#scope-switch"))
	b.eval(t, `(() => { const s = document.querySelector("#scope"); s.value = "studio"; s.dispatchEvent(new Event("change")); return true; })()`)
	b.wait(t, "one group seen on both machines", waitLong,
		`[...document.querySelectorAll("#crashes .group .machines")].some(m => m.textContent === "on alice-pc ×1, ci-7 ×1")`)
	b.wait(t, "the count over both machines", waitLong, `document.querySelector("#crashes .group .count").textContent.trim() === "2"`)

	b.eval(t, `location.hash = "#/search?q=NullReferenceException"`)
	b.wait(t, "search rows naming both machines", waitLong,
		`[...document.querySelectorAll("#search-results .hit .machine")].map(m => m.textContent).sort().join(",") === "alice-pc,ci-7"`)

	local := mustServe(t)
	b.open(t, local)
	b.view(t, "crashes", "#crashes")
	b.wait(t, "the crash view of a server without a studio", waitLong, `document.querySelector("#crashes-summary").textContent.includes("crash groups")`)
	if v := b.eval(t, `document.querySelector("#scope-switch").hidden`); v != true {
		t.Errorf("a server without a studio shows the scope switch")
	}
}
