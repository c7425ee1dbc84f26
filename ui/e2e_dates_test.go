package ui_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the browser's time zone, the same here whatever the machine has

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// datesZone is the browser's time zone in TestE2E_Console_Dates: far from
// UTC, so that a line's local day differs from its UTC day.
const datesZone = "Pacific/Auckland"

// zone sets the tab's time zone (an IANA name).
func (b *browser) zone(t *testing.T, name string) {
	t.Helper()
	if _, err := chromedp.Call(b.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: name}); err != nil {
		t.Fatalf("time zone %s: %v", name, err)
	}
}

// consoleRows is a JavaScript expression: the console's rows in order,
// "day 2026-01-02 Friday" for a date and "#ID" for a line.
const consoleRows = `[...document.querySelectorAll("#console > *")].map(e => e.matches(".day") ? "day " + e.textContent : e.matches(".line") ? "#" + e.dataset.id : "other " + e.textContent).join("|")`

// TestE2E_Console_Dates: the console dates a line whose local day is not
// the day of the line above it (imported lines of other days among
// today's), and the first line when it is not today's; lines that arrive
// live too. Days are the browser's: in Auckland, 20:00 UTC is the next
// morning.
func TestE2E_Console_Dates(t *testing.T) {
	t.Parallel()
	loc, err := time.LoadLocation(datesZone)
	if err != nil {
		t.Fatal(err)
	}
	day := func(tm time.Time) string { return "day " + tm.In(loc).Format("2006-01-02 Monday") }
	s := mustServe(t)
	at := func(v string) time.Time {
		tm, err := time.Parse(time.RFC3339, v)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	sat1, sat2, sun, imported := at("2026-01-02T20:00:00Z"), at("2026-01-02T22:00:00Z"), at("2026-01-03T12:00:00Z"), at("2026-01-02T20:30:00Z")
	ids := s.ingest(t,
		line{Time: sat1.Format(time.RFC3339), Level: "info", Name: "Boot", Text: "imported: game started"},
		line{Time: sat2.Format(time.RFC3339), Level: "warn", Name: "Audio", Text: "imported: buffer underrun"},
		line{Time: sun.Format(time.RFC3339), Level: "fatal", Name: "Render", Text: "imported: device lost"},
		line{Level: "info", Name: "Net", Text: "today: player joined"},
		line{Time: imported.Format(time.RFC3339), Level: "error", Name: "Save", Text: "imported again: cannot write"},
	)
	today := day(time.Now())
	id := func(i uint64) string { return "#" + strconv.FormatUint(i, 10) }
	want := strings.Join([]string{
		day(sat1), id(ids[0]), id(ids[1]), // 2026-01-03 Saturday in Auckland: the first line is not today's
		day(sun), id(ids[2]),
		today, id(ids[3]),
		day(imported), id(ids[4]),
	}, "|")
	if day(sat1) != "day 2026-01-03 Saturday" || day(sun) != "day 2026-01-04 Sunday" {
		t.Fatalf("BUG: the test's days in %s are %s and %s", datesZone, day(sat1), day(sun))
	}

	b := mustBrowser(t)
	b.zone(t, datesZone)
	b.open(t, s)
	b.wait(t, "the lines with their dates", waitLong, consoleRows+` === `+js(want))

	// Live: a line of today after the imported one, then one of 2025.
	old := at("2025-12-31T10:00:00Z")
	late := s.ingest(t, line{Level: "info", Name: "Net", Text: "today again: ping 30 ms"},
		line{Time: old.Format(time.RFC3339), Level: "info", Name: "Boot", Text: "imported last: old session"})
	want += "|" + strings.Join([]string{today, id(late[0]), day(old), id(late[1])}, "|")
	b.wait(t, "the live lines with their dates", waitLong, consoleRows+` === `+js(want))
	if day(old) != "day 2025-12-31 Wednesday" {
		t.Fatalf("BUG: the test's day %s", day(old))
	}
	if title := b.eval(t, `document.querySelector(`+js(lineSel(ids[2])+" .time")+`).title`); title != "2026-01-04 01:00:00.000" {
		t.Errorf("the time of #%d has the title %q, want its local date and time 2026-01-04 01:00:00.000", ids[2], title)
	}
	for _, c := range b.measure(t, "#console .day") {
		if c.Ratio < minContrast {
			t.Errorf("a date's contrast: %s", c)
		}
	}

	// The level filter drops the dates whose lines it hides.
	setValue(t, b, "#level-filter", "error")
	b.wait(t, "error and fatal lines with their dates", waitLong,
		consoleRows+` === `+js(strings.Join([]string{day(sun), id(ids[2]), day(imported), id(ids[4])}, "|")))
}

// TestE2E_Console_DatesToday: a console of today's lines shows no date.
func TestE2E_Console_DatesToday(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t, line{Level: "info", Name: "Net", Text: "player joined"}, line{Level: "info", Name: "Net", Text: "ping 31 ms"})
	b := mustBrowser(t)
	b.open(t, s)
	want := "#" + strconv.FormatUint(ids[0], 10) + "|#" + strconv.FormatUint(ids[1], 10)
	b.wait(t, "today's lines without a date", waitLong, consoleRows+` === `+js(want))
}

// TestE2E_Console_DatesCap: when the console drops its oldest lines (it
// keeps 5,000), the first line left keeps its date.
func TestE2E_Console_DatesCap(t *testing.T) {
	t.Parallel()
	const maxLines = 5000 // app.js's MAX_LINES
	loc, err := time.LoadLocation(datesZone)
	if err != nil {
		t.Fatal(err)
	}
	day := func(tm time.Time) string { return "day " + tm.In(loc).Format("2006-01-02 Monday") }
	s := mustServe(t)
	old := time.Now().AddDate(0, 0, -3)
	var first []line
	for i := range 3 { // each its own name, so that each keeps its row (app.js joins runs of a template)
		first = append(first, line{Time: old.Add(time.Duration(i) * time.Second).UTC().Format(time.RFC3339Nano), Level: "info", Name: fmt.Sprintf("Boot%d", i), Text: fmt.Sprintf("imported %d", i)})
	}
	ids := s.ingest(t, first...)
	b := mustBrowser(t)
	b.zone(t, datesZone)
	b.open(t, s)
	oldDay := day(old)
	id := func(i uint64) string { return "#" + strconv.FormatUint(i, 10) }
	head := `(` + consoleRows + `).split("|").slice(0, 4).join("|")`
	b.wait(t, "the imported lines with their date", waitLong, head+` === `+js(strings.Join([]string{oldDay, id(ids[0]), id(ids[1]), id(ids[2])}, "|")))

	// Today's lines, live, up to one line over the cap.
	for n := 3; n < maxLines+1; {
		batch := make([]line, min(1000, maxLines+1-n))
		for i := range batch {
			// a name of its own: lines of one template and name would share a row (app.js joins)
			batch[i] = line{Level: "info", Name: fmt.Sprintf("Net%d", n+i), Text: fmt.Sprintf("tick %d", n+i)}
		}
		s.ingest(t, batch...)
		n += len(batch)
	}
	b.wait(t, "the oldest line dropped, the next one dated", waitLong, head+` === `+js(strings.Join([]string{oldDay, id(ids[1]), id(ids[2]), day(time.Now())}, "|")))
	if n := b.eval(t, `document.querySelectorAll("#console .line").length`); n != float64(maxLines) {
		t.Errorf("%v lines in the console, want %d", n, maxLines)
	}
}
