package ui_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2E_Search_PrefixMarks: a prefix search (crash*) and a wildcard
// (cr?sh) mark the whole word each hit matched, and no word that merely
// holds the prefix inside it (autocrash).
func TestE2E_Search_PrefixMarks(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "info", Name: "Options", Text: "autocrash disabled in options"},
		line{Level: "fatal", Name: "Player", Text: "the player crashed at wave 3"},
		line{Level: "error", Name: "Crash", Text: "autocrash: CrashReporter wrote a report"},
		line{Level: "info", Name: "Lobby", Text: "a crush of players at the gate"},
	)
	s.waitIndexed(t, ids[len(ids)-1])
	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "search", "#view-search") // not #search-input: the header shows it in every view, and opening the view resets it
	// marks is a JavaScript expression: each hit's ID and its marked words, "ID:word,word|...".
	const marks = `[...document.querySelectorAll("#search-results .hit")].map(h => h.dataset.id + ":" + [...h.querySelectorAll("mark")].map(m => m.textContent).join(",")).join("|")`
	id := func(i int) string { return strconv.FormatUint(ids[i], 10) }

	b.do(t, "search crash*", chromedp.SendKeys(chromedp.CSS("#search-input"), "crash*\r"))
	want := id(2) + ":CrashReporter|" + id(1) + ":crashed"
	b.wait(t, "the hits of crash* with their words marked", waitLong, marks+` === `+js(want))

	b.eval(t, `(e => { e.value = ""; return true })(document.querySelector("#search-input"))`)
	b.do(t, "search cr?sh", chromedp.SendKeys(chromedp.CSS("#search-input"), "cr?sh\r"))
	b.wait(t, "the hit of cr?sh with its word marked", waitLong, marks+` === `+js(id(3)+":crush"))
}

// TestE2E_Search_StopWords: the error message pasted whole finds its
// record (the stop word "to" is left out, as the index leaves it out), and
// a search of only "to" says that it is too common to search, not 0 hits.
func TestE2E_Search_StopWords(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "fatal", Name: "Game", Text: "main.lua:8: attempt to index upvalue 'player' (a nil value)"},
		line{Level: "info", Name: "Game", Text: "index rebuilt after one attempt"},
	)
	s.waitIndexed(t, ids[len(ids)-1])
	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "search", "#view-search")
	const hits = `[...document.querySelectorAll("#search-results .hit")].map(h => h.dataset.id).join(",")`

	b.do(t, "search the error's words", chromedp.SendKeys(chromedp.CSS("#search-input"), `"attempt to index"`+"\r"))
	b.wait(t, "the one record that holds the phrase", waitLong, hits+` === `+js(strconv.FormatUint(ids[0], 10)))

	b.eval(t, `(e => { e.value = ""; return true })(document.querySelector("#search-input"))`)
	b.do(t, "search to", chromedp.SendKeys(chromedp.CSS("#search-input"), "to\r"))
	b.wait(t, "the page saying to is too common", waitLong, `document.querySelector("#search-summary").textContent.includes("too common")`)
}
