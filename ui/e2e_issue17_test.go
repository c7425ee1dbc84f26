package ui_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A Mono stack as Unity players print it: frames without "at ", and one
// long frame that must wrap, not scroll sideways.
var monoStack = "WaveSpawner.SpawnNext () [0x00012] in /Users/dev/Projects/TowerDefense/Assets/Scripts/Gameplay/Waves/Spawning/WaveSpawner.cs:42\n" +
	"WaveSpawner+<SpawnRoutine>d__12.MoveNext () [0x0004b] in /Users/dev/Projects/TowerDefense/Assets/Scripts/Gameplay/Waves/Spawning/" +
	strings.Repeat("VeryLongDirectoryName/", 12) + "WaveSpawner.cs:118\n"

// TestE2E_Stacks: console and search rows mark the records that have a
// stack; the crash group of a Mono stack is titled with the exception and
// the top frame; the record's long frames wrap inside the page's width.
func TestE2E_Stacks(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "info", Name: "Waves", Text: "wave 3 started"},
		line{Level: "error", Name: "Waves", Text: "NullReferenceException: Object reference not set to an instance of an object", Stack: monoStack},
	)
	s.waitIndexed(t, ids[1])
	b := mustBrowser(t)
	b.open(t, s)
	b.wait(t, "the lines", waitLong, visible(lineSel(ids[1])))
	if !b.eval(t, `!!document.querySelector(`+js(lineSel(ids[1])+" .stack-mark")+`)`).(bool) ||
		b.eval(t, `!!document.querySelector(`+js(lineSel(ids[0])+" .stack-mark")+`)`).(bool) {
		t.Errorf("console: want a stack mark on #%d only", ids[1])
	}

	b.view(t, "search", "#view-search")
	b.do(t, "search", chromedp.SendKeys(chromedp.CSS("#search-input"), "NullReferenceException\r"))
	hit := `#search-results .hit[data-id="` + strconv.FormatUint(ids[1], 10) + `"]`
	b.wait(t, "the hit", waitLong, visible(hit))
	b.wait(t, "the hit's stack mark", waitLong, visible(hit+" .stack-mark"))

	b.view(t, "crashes", "#crashes")
	b.wait(t, "the crash group", waitLong, visible("#crashes .group .title"))
	if title := b.eval(t, `document.querySelector("#crashes .group .title").textContent`).(string); !strings.HasPrefix(title, "NullReferenceException: ") ||
		!strings.Contains(title, " in WaveSpawner.SpawnNext () in ") {
		t.Errorf("crash group title %q, want the exception in the top frame", title)
	}

	b.do(t, "open the crash", chromedp.Click(chromedp.CSS("#crashes .group")))
	b.wait(t, "its stack", waitLong, visible("#record pre.stack .frame"))
	var w struct{ Scroll, Client float64 }
	b.evalInto(t, `(p => ({Scroll: p.scrollWidth, Client: p.clientWidth}))(document.querySelector("#record pre.stack"))`, &w)
	if w.Scroll > w.Client+1 {
		t.Errorf("the stack scrolls sideways: scrollWidth %v > clientWidth %v", w.Scroll, w.Client)
	}
}

// TestE2E_Ops_Filters: the operations view has column headers and filters
// by tool and by status.
func TestE2E_Ops_Filters(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	start := func(body string) uint64 {
		var op struct {
			ID uint64 `json:"id"`
		}
		if err := json.Unmarshal(s.do(t, "POST", "/api/v1/operations", body, http.StatusCreated), &op); err != nil || op.ID == 0 {
			t.Fatalf("record an operation: %v", err)
		}
		return op.ID
	}
	spawnOK := start(`{"tool":"spawn_wave","arguments":{"wave":3},"source":"game","status":"success","result":{"ok":true}}`)
	spawnErr := start(`{"tool":"spawn_wave","arguments":{"wave":4},"source":"game","status":"error","error":"no spawner"}`)
	query := start(`{"tool":"query_state","arguments":{},"source":"game","status":"success","result":{"hp":3}}`)
	s.waitIndexed(t, query)
	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "ops", "#ops")
	rows := `[...document.querySelectorAll("#ops .op")].map(e => e.dataset.id).join(",")`
	ids := func(ids ...uint64) string {
		var s []string
		for _, id := range ids {
			s = append(s, strconv.FormatUint(id, 10))
		}
		return strings.Join(s, ",")
	}
	b.wait(t, "every operation", waitLong, rows+` === `+js(ids(query, spawnErr, spawnOK)))
	if h := b.eval(t, `[...document.querySelectorAll("#view-ops .op-head span")].map(e => e.textContent).join("|")`); h != "Time|Tool|Summary|Source|Status|Duration" {
		t.Errorf("headers %q", h)
	}

	b.do(t, "filter by tool", chromedp.SendKeys(chromedp.CSS("#ops-tool"), "spawn_wave"))
	b.wait(t, "spawn_wave's operations only", waitLong, rows+` === `+js(ids(spawnErr, spawnOK)))
	setValue(t, b, "#ops-status", "error")
	b.wait(t, "spawn_wave's failed operation only", waitLong, rows+` === `+js(ids(spawnErr)))
	setValue(t, b, "#ops-tool", "")
	b.wait(t, "every failed operation", waitLong, rows+` === `+js(ids(spawnErr)))
	setValue(t, b, "#ops-status", "")
	b.wait(t, "every operation again", waitLong, rows+` === `+js(ids(query, spawnErr, spawnOK)))
}

// setValue sets a form field's value and fires its change event, as a
// person's choice does.
func setValue(t *testing.T, b *browser, sel, value string) {
	t.Helper()
	b.eval(t, `(e => { e.value = `+js(value)+`; e.dispatchEvent(new Event("change")); return true })(document.querySelector(`+js(sel)+`))`)
}
