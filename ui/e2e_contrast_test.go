package ui_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// minContrast is WCAG 2.x's AA minimum for normal text (1.4.3).
const minContrast = 4.5

// contrastJS defines window.__contrast(root): for every rendered element
// under root that holds text of its own, its text's contrast ratio against
// the background it is drawn on, as WCAG 2.x defines both. The background
// is the element's own, or its nearest ancestor's, composited over the
// ancestors behind it while they are translucent (the canvas behind them
// all); the text's color is composited over that background.
const contrastJS = `window.__contrast = (root) => {
	const parse = (s) => {
		const m = /rgba?\(([^)]*)\)/.exec(s);
		if (!m) throw new Error("not an rgb() color: " + s);
		const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
		return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
	};
	const over = (top, base) => ({r: top.r * top.a + base.r * (1 - top.a), g: top.g * top.a + base.g * (1 - top.a),
		b: top.b * top.a + base.b * (1 - top.a), a: 1});
	const canvas = matchMedia("(prefers-color-scheme: dark)").matches ? {r: 18, g: 18, b: 18, a: 1} : {r: 255, g: 255, b: 255, a: 1};
	const background = (e) => {
		const layers = [];
		for (let n = e; n; n = n.parentElement) {
			const c = parse(getComputedStyle(n).backgroundColor);
			if (c.a > 0) layers.push(c);
			if (c.a >= 1) break;
		}
		let bg = canvas;
		for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
		return bg;
	};
	const lum = (c) => {
		const ch = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
		return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
	};
	const hex = (c) => "#" + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
	const out = [];
	for (const e of [root, ...root.querySelectorAll("*")]) {
		const own = [...e.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join("").trim();
		if (!own || e.getClientRects().length === 0 || getComputedStyle(e).visibility !== "visible") continue;
		const bg = background(e);
		const fg = over(parse(getComputedStyle(e).color), bg);
		const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
		const path = [];
		for (let n = e; n && n !== root.parentElement; n = n.parentElement) {
			path.unshift(n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") + (n.classList.length ? "." + [...n.classList].join(".") : ""));
		}
		out.push({path: path.slice(-3).join(" > "), text: own.slice(0, 40), fg: hex(fg), bg: hex(bg), ratio: (hi + 0.05) / (lo + 0.05)});
	}
	return out;
}; true`

// contrast is one text's measurement by contrastJS.
type contrast struct {
	Path  string  `json:"path"`
	Text  string  `json:"text"`
	FG    string  `json:"fg"`
	BG    string  `json:"bg"`
	Ratio float64 `json:"ratio"`
}

func (c contrast) String() string {
	return fmt.Sprintf("%.2f:1 %s on %s  %s %q", c.Ratio, c.FG, c.BG, c.Path, c.Text)
}

// measure returns the contrast of every text under the first element sel
// matches; it fails the test when there is none.
func (b *browser) measure(t *testing.T, sel string) []contrast {
	t.Helper()
	b.eval(t, contrastJS)
	var cs []contrast
	b.evalInto(t, `window.__contrast(document.querySelector(`+js(sel)+`))`, &cs)
	if len(cs) == 0 {
		t.Fatalf("no text to measure under %s\npage: %s", sel, b.snapshot())
	}
	return cs
}

// scheme makes the page's prefers-color-scheme light or dark.
func (b *browser) scheme(t *testing.T, s string) {
	t.Helper()
	_, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}})
	if err != nil {
		t.Fatalf("prefers-color-scheme %s: %v", s, err)
	}
	b.wait(t, "prefers-color-scheme "+s, waitLong, `matchMedia("(prefers-color-scheme: `+s+`)").matches`)
}

// TestE2E_Contrast: in the light and the dark color scheme, every text of
// a console row of each level, selected or not, of a search hit
// of each level with its marked word, of a fatal record's head and of the
// crash view (the crash badge, the runs) and of the operations meets WCAG AA's contrast ratio
// for normal text, 4.5:1, as computed from the browser's computed styles.
func TestE2E_Contrast(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "debug", Name: "AI", Source: "game", Text: "wave planner: 4 agents replanned"},
		line{Level: "info", Name: "Net", Source: "game", Text: "wave 5 starting, 12 players"},
		line{Level: "warn", Name: "Audio", Source: "game", Text: "wave music buffer underrun"},
		line{Level: "error", Name: "Spawner", Source: "game", Text: "wave spawner: NullReferenceException", Stack: unityStack},
		line{Level: "fatal", Name: "Render", Source: "game", Text: "wave render: graphics device lost",
			Stack: "System.Exception: device removed\n   at Game.Render.Present() in C:\\build\\Game\\Render.cs:line 210\n"},
	)
	fatal := ids[4]
	for _, op := range []string{
		`{"tool":"spawn_wave","arguments":{"wave":5},"source":"game","status":"success","result":{"spawned":12}}`,
		`{"tool":"execute_code","arguments":{},"source":"game","status":"error","error":"Spawner.Instance is null"}`,
		`{"tool":"spawn_wave","arguments":{"wave":6},"source":"game"}`,
	} {
		s.do(t, "POST", "/api/v1/operations", op, http.StatusCreated)
	}
	s.waitIndexed(t, fatal)
	fatalLine := lineSel(fatal)
	fatalHit := `#search-results .hit[data-id="` + strconv.FormatUint(fatal, 10) + `"]`

	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			b := mustBrowser(t)
			b.scheme(t, scheme)
			b.open(t, s)
			var all []contrast
			check := func(what, sel string) {
				t.Helper()
				for _, c := range b.measure(t, sel) {
					t.Logf("%s: %s", what, c)
					if c.Ratio < minContrast {
						t.Errorf("%s, %s: contrast %.2f:1, want at least %.1f:1: %s", scheme, what, c.Ratio, minContrast, c)
					}
					all = append(all, c)
				}
			}
			b.wait(t, "the lines", waitLong, visible(fatalLine))
			for _, id := range ids {
				check("console row", lineSel(id))
			}
			for _, id := range ids {
				b.do(t, "select a row", chromedp.Click(chromedp.CSS(lineSel(id)+" .text")))
				b.wait(t, "the row selected", waitLong, `document.querySelector(`+js(lineSel(id))+`).classList.contains("selected")`)
				check("selected console row", lineSel(id))
			}

			b.view(t, "search", "#view-search")
			b.do(t, "search", chromedp.SendKeys(chromedp.CSS("#search-input"), "wave kind:line\r"))
			b.wait(t, "the fatal hit with its mark", waitLong, visible(fatalHit+" mark"))
			b.wait(t, "a hit of every level", waitLong, `document.querySelectorAll("#search-results .hit").length === 5`)
			check("search hits", "#search-results")

			b.do(t, "open the fatal hit", chromedp.Click(chromedp.CSS(fatalHit)))
			b.wait(t, "the fatal record", waitLong, visible(`#record[data-id="`+strconv.FormatUint(fatal, 10)+`"] .lvl`))
			check("fatal record", "#record")

			b.view(t, "crashes", "#crashes")
			b.wait(t, "the crash badge", waitLong, visible("#crashes .badge.class-crash"))
			b.wait(t, "the runs", waitLong, visible("#runs tr.run"))
			check("crash groups", "#crashes")
			check("runs", "#runs")

			b.view(t, "ops", "#ops")
			b.wait(t, "the operations", waitLong, `document.querySelectorAll("#ops .op").length === 3`)
			check("operations", "#view-ops")
			lowest := all[0]
			for _, c := range all {
				if c.Ratio < lowest.Ratio {
					lowest = c
				}
			}
			t.Logf("%s: %d texts measured, the lowest %s", scheme, len(all), lowest)
			if len(all) < 30 {
				t.Errorf("%d texts measured, want at least 30", len(all))
			}
		})
	}
}
