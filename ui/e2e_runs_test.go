package ui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2E_Console_Runs: consecutive lines of one template collapse into one
// row (×N, the template, the first and last IDs, an example), as
// console_tail collapses them; a line of another template gets its own row;
// and a live line of the run's template extends the run rather than adding
// a row.
func TestE2E_Console_Runs(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	snap := func(n int) line {
		return line{Level: "info", Name: "Net", Source: "e2e", Text: fmt.Sprintf("Snapshot %d sent to peer 10.0.0.%d:7777", n, n)}
	}
	other := s.ingest(t, line{Level: "info", Name: "Net", Source: "e2e", Text: "peer list refreshed"})[0]
	var lines []line
	for n := 1; n <= 50; n++ {
		lines = append(lines, snap(n))
	}
	ids := s.ingest(t, lines...)
	b := mustBrowser(t)
	b.open(t, s)
	b.wait(t, "the run's row", waitLong, visible(lineSel(ids[0])))

	type row struct {
		ID, Last, Count, Text, Example string
	}
	const rows = `[...document.querySelectorAll("#console .line")].map(e => ({
		ID: e.dataset.id, Last: e.dataset.last || "", Count: (e.querySelector(".count") || {}).textContent || "",
		Text: (e.querySelector(".text summary") || e.querySelector(".text")).textContent,
		Example: (e.querySelector(".text .example") || {}).textContent || ""}))`
	var got []row
	b.evalInto(t, rows, &got)
	want := []row{
		{ID: fmt.Sprint(other), Text: "peer list refreshed"},
		{ID: fmt.Sprint(ids[0]), Last: fmt.Sprint(ids[49]), Count: "×50", Text: "Snapshot <N> sent to peer <IP>",
			Example: fmt.Sprintf("e.g. #%d: Snapshot 1 sent to peer 10.0.0.1:7777", ids[0])},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("rows: %+v\nwant %+v\npage: %s", got, want, b.snapshot())
	}
	// Expanded, the run links to its first and last records.
	run := lineSel(ids[0])
	b.eval(t, `(d => { d.open = true; return true })(document.querySelector(`+js(run+" details")+`))`)
	for _, id := range []uint64{ids[0], ids[49]} {
		b.wait(t, fmt.Sprintf("a visible link to #%d in the expanded run", id), waitLong,
			visible(run+` .ids a[href="#/record/`+fmt.Sprint(id)+`"]`))
	}

	// A live line of the template extends the run rather than adding a row.
	live := s.ingest(t, snap(51))[0]
	b.wait(t, "the run extended to ×51 by the live line", waitLong, `(e => !!e && e.dataset.last === "`+fmt.Sprint(live)+
		`" && e.querySelector(".count").textContent === "×51")(document.querySelector(`+js(run)+`))`)
	if n := b.eval(t, `document.querySelectorAll("#console .line").length`); n != float64(2) {
		t.Fatalf("%v rows after the live line, want 2\npage: %s", n, b.snapshot())
	}

	// After a line of another template, the template starts a row of its own.
	late := s.ingest(t, line{Level: "info", Name: "Net", Source: "e2e", Text: "peer list refreshed"}, snap(52))
	b.wait(t, "a new row after another line", waitLong, visible(lineSel(late[1])))
	b.wait(t, "four rows", waitLong, `document.querySelectorAll("#console .line").length === 4`)
}

// TestE2E_Console_Runs_Followed: lines the server reads from a followed
// file carry where each was read from (file, offset, file identity) in
// their data; that does not keep them apart. Fifty numbered lines of a
// Unity log show as one ×50 row, and a line written later extends it.
func TestE2E_Console_Runs_Followed(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "Player.log")
	chunk := func(from, to int) string {
		var b strings.Builder
		for n := from; n <= to; n++ {
			fmt.Fprintf(&b, "Chunk %d,%d streamed in %d ms\n", n, n*2, 3+n%7)
		}
		return b.String()
	}
	if err := os.WriteFile(path, []byte("Initialize engine version: 2022.3.10f1\n"+chunk(1, 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustServe(t, "--follow", "unity:Game="+path)
	b := mustBrowser(t)
	b.open(t, s)
	const run = `[...document.querySelectorAll("#console .line")].find(e => (e.querySelector(".text summary") || {}).textContent === "Chunk <N>,<N> streamed in <N> ms")`
	b.wait(t, "one row of the fifty chunk lines", waitLong, `(e => !!e && e.querySelector(".count").textContent === "×50")(`+run+`)`)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(chunk(51, 51)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b.wait(t, "the row extended to ×51 by the line written later", waitLong, `(e => !!e && e.querySelector(".count").textContent === "×51")(`+run+`)`)
	if n := b.eval(t, `[...document.querySelectorAll("#console .line")].filter(e => e.textContent.includes("Chunk")).length`); n != float64(1) {
		t.Fatalf("%v rows of chunk lines, want 1\npage: %s", n, b.snapshot())
	}
}
