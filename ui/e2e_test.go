package ui_test

// End-to-end tests of the web page: a real `mcplogd serve` (built from
// ./cmd/mcplogd) driven by headless Chromium through chromedp. Chromium is
// Debian's `chromium` package (.ci/run installs it); nothing is downloaded.
// Without it the tests skip under plain `go test` and fail under `make test`,
// which sets MCPLOGD_REQUIRE_BROWSER=1.
//
// MCPLOGD_SCREENSHOTS=1 makes TestScreenshots write docs/screenshots/*.png
// (`make screenshots`).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/everything"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

const (
	// requireBrowserEnv, set to 1, turns a missing Chromium into a failure.
	requireBrowserEnv = "MCPLOGD_REQUIRE_BROWSER"
	// screenshotsEnv, set to 1, makes TestScreenshots write docs/screenshots/*.png.
	screenshotsEnv = "MCPLOGD_SCREENSHOTS"

	// liveDeadline is how soon after its POST is answered a line must show in the live view.
	liveDeadline = time.Second
	// waitLong bounds every other wait on the page: generous, since a wait
	// ends as soon as its condition holds.
	waitLong = 15 * time.Second
)

// viewport is the fixed window of every test, so that screenshots do not
// depend on the machine.
const viewportW, viewportH = 1280, 800

// A Unity exception, as Debug.LogException writes it; the first frame is at
// Spawner.cs:42.
const unityStack = "NullReferenceException: Object reference not set to an instance of an object\n" +
	"Game.Spawner.SpawnWave (System.Int32 wave) (at Assets/Scripts/Spawner.cs:42)\n" +
	"Game.Spawner.Update () (at Assets/Scripts/Spawner.cs:17)\n" +
	"UnityEngine.Debug:LogException (System.Exception)\n"

// A Java exception with another signature, for a second crash group.
const javaStack = "java.lang.IllegalStateException: chunk not loaded\n" +
	"\tat net.game.world.ChunkCache.get(ChunkCache.java:88)\n" +
	"\tat net.game.world.World.tick(World.java:301)\n" +
	"\tat net.game.Main.run(Main.java:57)\n"

func TestMain(m *testing.M) {
	cleanup := logtest.IsolateHome() // the servers started here stay out of the user's registry
	code := m.Run()
	cleanup()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// --- the server ------------------------------------------------------------

var (
	binDir   string // holds the mcplogd binary that build makes, removed by TestMain
	buildBin = sync.OnceValues(func() (string, error) {
		root, err := logtest.RepoRoot()
		if err != nil {
			return "", err
		}
		goCmd, err := exec.LookPath("go")
		if err != nil {
			return "", fmt.Errorf("no go on PATH to build mcplogd: %w", err)
		}
		if binDir, err = os.MkdirTemp("", "mcplogd-e2e-"); err != nil {
			return "", err
		}
		bin := filepath.Join(binDir, "mcplogd")
		cmd := exec.Command(goCmd, "build", "-o", bin, "./cmd/mcplogd")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build ./cmd/mcplogd: %w\n%s", err, out)
		}
		return bin, nil
	})
)

// server is a running `mcplogd serve` with a fresh data directory.
type server struct {
	base  string // http://127.0.0.1:PORT
	web   string // the page's link that serve prints: base/ui/TOKEN
	token string
}

// mustServe starts `mcplogd serve` on a free port of 127.0.0.1 (with extra
// flags) and returns once it has printed its links; the server stops at
// cleanup.
func mustServe(t *testing.T, extra ...string) *server {
	t.Helper()
	bin, err := buildBin()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--data", filepath.Join(t.TempDir(), "data"), "--addr", "127.0.0.1:0"}, extra...)...)
	stderr := &tailBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.WaitDelay = 5 * time.Second
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mcplogd serve: %v", err)
	}
	exited := make(chan struct{})
	printed := &tailBuffer{}
	webc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(printed, line)
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "web:"); ok {
				select {
				case webc <- strings.TrimSpace(rest):
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("mcplogd serve printed:\n%s\nstderr (tail):\n%s", printed, stderr)
		}
	})

	// serve prints its links together: once the MCP link is out, the web
	// link is due at once.
	var web string
	for web == "" {
		select {
		case web = <-webc:
		case <-exited:
			t.Fatalf("mcplogd serve exited before printing its web: link: %v\n%s%s", cmd.ProcessState, printed, stderr)
		case <-time.After(100 * time.Millisecond):
			if strings.Contains(printed.String(), "link:") && time.Since(started) > 3*time.Second || time.Since(started) > 30*time.Second {
				t.Fatalf("mcplogd serve printed no \"web: http://HOST:PORT/ui/TOKEN\" line:\n%s", printed)
			}
		}
	}
	u, err := url.Parse(web)
	if err != nil || u.Scheme != "http" || !strings.HasPrefix(u.Path, "/ui/") {
		t.Fatalf("web link %q: want http://HOST:PORT/ui/TOKEN (%v)", web, err)
	}
	token := strings.TrimPrefix(u.Path, "/ui/")
	if len(token) != 64 {
		t.Fatalf("web link %q: the path does not end in the 64-character token", web)
	}
	return &server{base: u.Scheme + "://" + u.Host, web: web, token: token}
}

// do sends a request with the token as Bearer and returns the answer's
// body, failing the test unless the status is want.
func (s *server) do(t *testing.T, method, path, body string, want int) []byte {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %s, want %d: %s", method, path, resp.Status, want, b)
	}
	return b
}

// line is one line of the ingest wire format.
type line struct {
	Time   string          `json:"time,omitempty"` // RFC 3339; empty: arrival
	Kind   string          `json:"kind,omitempty"` // "marker" for a marker (Name says which); empty: a line
	Level  string          `json:"level"`
	Name   string          `json:"name,omitempty"`
	Source string          `json:"source,omitempty"`
	Text   string          `json:"text"`
	Stack  string          `json:"stack,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// ingest posts lines through the API (one NDJSON batch) and returns their IDs.
func (s *server) ingest(t *testing.T, lines ...line) []uint64 {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	var a struct {
		IDs []uint64 `json:"ids"`
	}
	if err := json.Unmarshal(s.do(t, "POST", "/api/v1/logs", b.String(), http.StatusOK), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.IDs) != len(lines) {
		t.Fatalf("ingest: %d IDs for %d lines", len(a.IDs), len(lines))
	}
	return a.IDs
}

// waitIndexed waits until the search index has reached id, so that a
// search in the page finds it at the first try.
func (s *server) waitIndexed(t *testing.T, id uint64) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		var a struct {
			IndexedThrough uint64 `json:"indexedThrough"`
		}
		_ = json.Unmarshal(s.do(t, "GET", "/api/v1/search?query=x&limit=1", "", http.StatusOK), &a)
		if a.IndexedThrough >= id {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the search index reached %d, not %d, in %s", a.IndexedThrough, id, waitLong)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cookie opens the web link with a Go client and returns the page's cookie.
func (s *server) cookie(t *testing.T) *http.Cookie {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(s.web)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("GET /ui/TOKEN: %s, want 303", resp.Status)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == "mcplogd_ui" {
			return ck
		}
	}
	t.Fatalf("GET /ui/TOKEN set no mcplogd_ui cookie; Set-Cookie: %q", resp.Header.Values("Set-Cookie"))
	return nil
}

// --- the browser -----------------------------------------------------------

// chromium returns the path of Debian's Chromium, or skips the test (fails
// it under MCPLOGD_REQUIRE_BROWSER=1).
func chromium(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	msg := "no Chromium: neither /usr/bin/chromium nor chromium on PATH"
	if os.Getenv(requireBrowserEnv) == "1" {
		t.Fatalf("%s (%s=1); install Debian's package: apt-get install --no-install-recommends chromium", msg, requireBrowserEnv)
	}
	t.Skipf("%s; install Debian's package (apt-get install --no-install-recommends chromium), or run .ci/run", msg)
	return ""
}

// browser is one headless Chromium with a fresh profile and one tab.
type browser struct {
	ctx context.Context // the tab's; every action runs in it

	mu       sync.Mutex
	requests []*network.EventRequestWillBeSent
	statuses map[string]int64 // by URL, the last response's status
}

// mustBrowser starts Chromium with a fresh profile (so no cookie) at the
// fixed viewport; it records every request of its tab and stops at cleanup.
func mustBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromium(t)
	// Not t.TempDir: Chromium's helpers can still write in the profile for a
	// moment after it exits, and t.TempDir's removal would then fail the test.
	profile, err := os.MkdirTemp("", "mcplogd-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	output := &tailBuffer{}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(viewportW, viewportH),
		chromedp.Flag("disable-component-update", true),
		chromedp.CombinedOutput(output),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		acancel()
		for range 50 {
			if os.RemoveAll(profile) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if t.Failed() {
			t.Logf("chromium output (tail):\n%s", output)
		}
	})
	b := &browser{ctx: ctx, statuses: map[string]int64{}}
	err = chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev)
		case *network.EventResponseReceived:
			b.statuses[ev.Response.URL] = ev.Response.Status
		}
	})
	if err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(viewportW, viewportH)); err != nil {
		t.Fatalf("viewport: %v", err)
	}
	return b
}

// open opens the page's link and waits for the live view; the page must
// have dropped the token from its URL.
func (b *browser) open(t *testing.T, s *server) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(s.web)); err != nil {
		t.Fatalf("open %s: %v", s.web, err)
	}
	b.wait(t, "the live view at /ui/", waitLong, `location.pathname === "/ui/" && !!document.querySelector("#console")`)
	loc := b.eval(t, "location.href")
	if strings.Contains(loc.(string), s.token) {
		t.Fatalf("the page's URL holds the token: %s", loc)
	}
}

// eval evaluates a JavaScript expression in the page and returns its value.
func (b *browser) eval(t *testing.T, expr string) any {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// evalInto evaluates a JavaScript expression and decodes its value into v.
func (b *browser) evalInto(t *testing.T, expr string, v any) {
	t.Helper()
	j, err := json.Marshal(b.eval(t, expr))
	if err == nil {
		err = json.Unmarshal(j, v)
	}
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
}

// poll waits until the JavaScript expression is truthy, evaluating it every
// 10 ms for at most d. (Not chromedp.Poll: its page function uses
// new Function, which the page's CSP rightly refuses; Runtime.evaluate is
// not subject to it.)
func (b *browser) poll(expr string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	var lastErr error
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+expr+")"))
		switch {
		case err == nil && ok:
			return nil
		case err != nil && ctx.Err() == nil:
			lastErr = err // a navigation in progress, say; try again
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return fmt.Errorf("not true after %s; last error: %w", d, lastErr)
			}
			return fmt.Errorf("not true after %s", d)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// wait is poll that fails the test, showing what the page holds.
func (b *browser) wait(t *testing.T, what string, d time.Duration, expr string) {
	t.Helper()
	if err := b.poll(expr, d); err != nil {
		t.Fatalf("waiting %s for %s (%s): %v\npage: %s", d, what, expr, err, b.snapshot())
	}
}

// snapshot describes the page for a failure message.
func (b *browser) snapshot() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + (document.body ? document.body.innerHTML : "(no body)").slice(0, 4000)`))
	if err != nil {
		return fmt.Sprintf("(cannot read the page: %v)", err)
	}
	return v
}

// do runs actions in the tab and fails the test on error.
func (b *browser) do(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLong)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v\npage: %s", what, err, b.snapshot())
	}
}

// press types one key as a person does: keyDown carrying the text, then
// keyUp. (chromedp.KeyEvent sends the text in a separate char event, which
// a keydown handler's preventDefault cannot stop, unlike in a real browser.)
func (b *browser) press(t *testing.T, key rune) {
	t.Helper()
	k, ok := kb.Keys[key]
	if !ok {
		t.Fatalf("press: unknown key %q", key)
	}
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: k.Key, Code: k.Code,
		WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native}
	if k.Print {
		down.Text, down.UnmodifiedText = k.Text, k.Unmodified
	}
	up := down
	up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
	for _, p := range []input.DispatchKeyEventParams{down, up} {
		if _, err := chromedp.Call(b.ctx, input.DispatchKeyEvent, p); err != nil {
			t.Fatalf("press %q: %v", key, err)
		}
	}
}

// view clicks the navigation link of a view and waits for its container.
func (b *browser) view(t *testing.T, name, container string) {
	t.Helper()
	b.do(t, "open the "+name+" view", chromedp.Click(chromedp.CSS(`a[data-view="`+name+`"]`)))
	b.wait(t, "the "+name+" view", waitLong, visible(container))
}

// requestsSince returns the requests from the i-th on.
func (b *browser) requestsSince(i int) []*network.EventRequestWillBeSent {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*network.EventRequestWillBeSent(nil), b.requests[min(i, len(b.requests)):]...)
}

// requested reports whether the tab has sent a request whose URL holds sub.
func (b *browser) requested(sub string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.requests {
		if strings.Contains(r.Request.URL, sub) {
			return true
		}
	}
	return false
}

// screenshot saves a full-page PNG of the tab to docs/screenshots/name.png.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	root, err := logtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", path, len(png))
}

// js quotes s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// visible is a JavaScript expression: the first element that sel matches
// exists and is rendered.
func visible(sel string) string {
	return `(e => !!e && e.getClientRects().length > 0)(document.querySelector(` + js(sel) + `))`
}

// lineSel selects the live view's line of record id.
func lineSel(id uint64) string {
	return `#console .line[data-id="` + strconv.FormatUint(id, 10) + `"]`
}

// --- the tests -------------------------------------------------------------

// TestE2E_Console_Live: a line ingested through the API appears in the live
// view within liveDeadline of its POST being answered. The measurement is
// taken twice at most, so that one hiccup of a loaded machine does not fail
// the run; the second must make it.
func TestE2E_Console_Live(t *testing.T) {
	s := mustServe(t)
	b := mustBrowser(t)
	first := s.ingest(t, line{Level: "info", Name: "Boot", Text: "loaded scene Main"})[0]
	b.open(t, s)
	b.wait(t, "the line ingested before the page opened", waitLong, visible(lineSel(first)))
	// The live stream is open: its request has gone out.
	deadline := time.Now().Add(waitLong)
	for !b.requested("/api/v1/stream") {
		if time.Now().After(deadline) {
			t.Fatalf("the page opened no /api/v1/stream in %s: %v", waitLong, requestURLs(b.requestsSince(0)))
		}
		time.Sleep(10 * time.Millisecond)
	}

	var took []time.Duration
	for attempt := 1; attempt <= 2; attempt++ {
		// words, not numbers: a second attempt's line must not join the first's row (app.js joins)
		text := "player joined: attempt " + [...]string{"one", "two"}[attempt-1]
		id := s.ingest(t, line{Level: "info", Name: "Net", Source: "e2e", Text: text})[0]
		start := time.Now()
		expr := `(e => !!e && e.querySelector(".text") && e.querySelector(".text").textContent === ` + js(text) +
			`)(document.querySelector(` + js(lineSel(id)) + `))`
		err := b.poll(expr, liveDeadline)
		took = append(took, time.Since(start))
		if err == nil {
			t.Logf("line %d appeared %s after its POST was answered (attempts: %v)", id, took[len(took)-1].Round(time.Millisecond), took)
			var got struct {
				Level string `json:"level"`
				Class bool   `json:"class"`
			}
			b.evalInto(t, `(e => ({level: e.dataset.level, class: e.classList.contains("level-info")}))(document.querySelector(`+js(lineSel(id))+`))`, &got)
			if got.Level != "info" || !got.Class {
				t.Errorf("line %d: data-level %q, class level-info %v; want info, true", id, got.Level, got.Class)
			}
			return
		}
		// Did it come late, or not at all?
		late := b.poll(expr, waitLong) == nil
		t.Logf("attempt %d: line %d not in the live view %s after its POST (late: %v, after %s)",
			attempt, id, liveDeadline, late, time.Since(start).Round(time.Millisecond))
		if !late {
			t.Fatalf("line %d never appeared in the live view\npage: %s", id, b.snapshot())
		}
	}
	t.Fatalf("a line took longer than %s to appear in the live view, twice: %v", liveDeadline, took)
}

// TestE2E_Search_Crash: a search finds a seeded crash, with the matched word
// marked, and opening the hit shows its stack with file:line locations.
func TestE2E_Search_Crash(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "info", Name: "Spawner", Text: "wave 3 starting"},
		line{Level: "error", Name: "Spawner", Source: "unity-editor", Text: "Spawner exploded: NullReferenceException: Object reference not set to an instance of an object", Stack: unityStack},
		line{Level: "info", Name: "Spawner", Text: "wave 3 cleared"},
	)
	crash := ids[1]
	s.waitIndexed(t, ids[len(ids)-1])

	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "search", "#view-search") // not #search-input: the header shows it in every view, and opening the view resets it
	b.do(t, "type the query", chromedp.SendKeys(chromedp.CSS("#search-input"), "exploded"+"\r"))
	hit := `#search-results .hit[data-id="` + strconv.FormatUint(crash, 10) + `"]`
	b.wait(t, "the crash among the hits", waitLong, visible(hit))
	var marks []string
	b.evalInto(t, `[...document.querySelectorAll(`+js(hit+" mark")+`)].map(m => m.textContent)`, &marks)
	if len(marks) == 0 || !strings.EqualFold(marks[0], "exploded") {
		t.Errorf("the hit's <mark>s = %q, want \"exploded\"", marks)
	}
	var others int
	b.evalInto(t, `document.querySelectorAll("#search-results .hit:not([data-id=\"`+strconv.FormatUint(crash, 10)+`\"])").length`, &others)
	if others != 0 {
		t.Errorf("%d other hits for \"exploded\", want none", others)
	}

	b.do(t, "open the hit", chromedp.Click(chromedp.CSS(hit)))
	rec := `#record[data-id="` + strconv.FormatUint(crash, 10) + `"]`
	b.wait(t, "the record view with its stack", waitLong, visible(rec+" pre.stack .frame"))
	if h := b.eval(t, "location.hash"); h != fmt.Sprintf("#/record/%d", crash) {
		t.Errorf("location.hash = %q, want #/record/%d", h, crash)
	}
	var got struct {
		Text   string   `json:"text"`
		Frames []string `json:"frames"`
		Locs   []string `json:"locs"`
	}
	b.evalInto(t, `(r => ({
		text: r.querySelector(".record-text") ? r.querySelector(".record-text").textContent : "",
		frames: [...r.querySelectorAll("pre.stack .frame")].map(f => f.textContent),
		locs: [...r.querySelectorAll("pre.stack .loc")].map(l => l.textContent),
	}))(document.querySelector(`+js(rec)+`))`, &got)
	if !strings.Contains(got.Text, "Spawner exploded") {
		t.Errorf(".record-text = %q, want the line's text", got.Text)
	}
	if len(got.Frames) < 2 || !strings.Contains(strings.Join(got.Frames, "\n"), "Game.Spawner.SpawnWave") {
		t.Errorf("frames = %q, want Game.Spawner.SpawnWave and Game.Spawner.Update", got.Frames)
	}
	if !containsSub(got.Locs, "Spawner.cs:42") || !containsSub(got.Locs, "Spawner.cs:17") {
		t.Errorf(".loc = %q, want Spawner.cs:42 and Spawner.cs:17", got.Locs)
	}
}

// TestE2E_Crashes_Groups: the crash view groups crashes by signature with
// their counts, and a group opens a record of it.
func TestE2E_Crashes_Groups(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "error", Name: "Spawner", Text: "NullReferenceException", Stack: unityStack},
		line{Level: "error", Name: "Spawner", Text: "NullReferenceException", Stack: strings.ReplaceAll(unityStack, ":42)", ":43)")},
		line{Level: "error", Name: "Spawner", Text: "NullReferenceException", Stack: unityStack},
		line{Level: "error", Name: "World", Source: "server", Text: "chunk not loaded", Stack: javaStack},
	)
	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "crashes", "#crashes")
	b.wait(t, "two crash groups", waitLong, `document.querySelectorAll("#crashes .group").length === 2`)
	var groups []struct {
		Sig   string `json:"sig"`
		Count string `json:"count"`
		Title string `json:"title"`
		Spark bool   `json:"spark"`
	}
	b.evalInto(t, `[...document.querySelectorAll("#crashes .group")].map(g => ({
		sig: g.dataset.signature || "",
		count: g.querySelector(".count") ? g.querySelector(".count").textContent.trim() : "",
		title: g.querySelector(".title") ? g.querySelector(".title").textContent : "",
		spark: !!g.querySelector("svg.spark"),
	}))`, &groups)
	counts := map[string]bool{}
	for _, g := range groups {
		counts[g.Count] = true
		if g.Sig == "" || g.Title == "" || !g.Spark {
			t.Errorf("group %+v: want data-signature, .title and svg.spark", g)
		}
	}
	if !counts["3"] || !counts["1"] {
		t.Errorf("group counts = %+v, want 3 (Spawner) and 1 (World)", groups)
	}

	b.do(t, "open the first group", chromedp.Click(chromedp.CSS(`#crashes .group`)))
	b.wait(t, "a record of the group", waitLong, visible("#record pre.stack .frame"))
	var id string
	b.evalInto(t, `document.querySelector("#record").dataset.id`, &id)
	if id == strconv.FormatUint(ids[3], 10) {
		// The first group may be either; the one opened must show its own stack.
		b.wait(t, "the Java stack", waitLong, `document.querySelector("#record pre.stack").textContent.includes("ChunkCache.java:88")`)
	} else {
		b.wait(t, "the Unity stack", waitLong, `document.querySelector("#record pre.stack").textContent.includes("Spawner.cs:")`)
	}

	// A page loaded straight onto the view (a bookmark, a headless
	// browser's one look) lists the groups, not only "Loading…".
	b.do(t, "leave the page", chromedp.Navigate("about:blank"))
	b.do(t, "load #/crashes", chromedp.Navigate(s.base+"/ui/#/crashes"))
	b.wait(t, "the groups of a fresh load", waitLong, `document.querySelectorAll("#crashes .group").length === 2 && document.querySelector("#crashes-summary").textContent.startsWith("2 crash groups")`)
}

// TestE2E_Crashes_Classes: the crash view badges each group with its class
// and the runs it ended, shows the game's own frame, keeps compile errors
// apart until Compile is chosen, and lists the runs with their outcomes,
// a crashed run linking to its crash.
func TestE2E_Crashes_Classes(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "info", Name: "Boot", Source: "game", Text: "game started (build 41)"},
		line{Level: "fatal", Name: "Player", Source: "game", Text: "NullReferenceException: Object reference not set to an instance of an object",
			Stack: "NullReferenceException: Object reference not set to an instance of an object\n" +
				"Player.Update () (at Assets/Player.cs:42)\n"},
		line{Kind: "marker", Name: "run", Level: "info", Source: "game", Text: "game started (build 42)"},
		line{Level: "error", Name: "Inventory", Source: "game", Text: "InvalidOperationException: Sequence contains no elements",
			Stack: "InvalidOperationException: Sequence contains no elements\n" +
				"System.Linq.Enumerable.First[TSource] (System.Collections.Generic.IEnumerable`1[T] source)\n" +
				"Inventory.Load () (at Assets/Inventory.cs:17)\n"},
		line{Level: "error", Name: "compiler", Source: "game", Text: "Assets/A.cs(3,1): error CS1002: ; expected",
			Stack: "UnityEditor.Scripting.ScriptCompilation.EditorCompilation:CompileScripts ()\n" +
				"UnityEditor.Scripting.ScriptCompilation.EditorCompilationInterface:TickCompilationPipeline ()\n"},
	)
	crash := ids[1]
	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "crashes", "#crashes")
	b.wait(t, "the crash and the error", waitLong, `document.querySelectorAll("#crashes .group").length === 2`)
	type group struct {
		Class  string   `json:"class"`
		Badges []string `json:"badges"`
		Title  string   `json:"title"`
		Where  string   `json:"where"`
	}
	groups := func() []group {
		var gs []group
		b.evalInto(t, `[...document.querySelectorAll("#crashes .group")].map(g => ({
			class: g.dataset.class || "",
			badges: [...g.querySelectorAll(".badge")].map(e => e.textContent),
			title: g.querySelector(".title") ? g.querySelector(".title").textContent : "",
			where: g.querySelector(".where") ? g.querySelector(".where").textContent : "",
		}))`, &gs)
		return gs
	}
	gs := groups()
	if len(gs) != 2 || strings.Join(gs[0].Badges, "|") != "crash|ended 1 run" || strings.Join(gs[1].Badges, "|") != "error" {
		t.Fatalf("groups %+v: want the crash (badges crash, ended 1 run) first, then the error (badge error)", gs)
	}
	if !strings.HasPrefix(gs[0].Title, "NullReferenceException") || !strings.Contains(gs[0].Where, "Assets/Player.cs:42") {
		t.Errorf("crash group %+v: want the exception as title and Player.cs:42 as its frame", gs[0])
	}
	if !strings.Contains(gs[1].Where, "Assets/Inventory.cs:17") {
		t.Errorf("error group %+v: want the game's frame Inventory.cs:17, not the library's", gs[1])
	}
	if loc := b.eval(t, `(e => e ? e.textContent : "")(document.querySelector("#crashes .group .where .loc"))`); loc != "Assets/Player.cs:42" {
		t.Errorf("the crash's frame marks %q as its location, want Assets/Player.cs:42", loc)
	}

	// The runs: game's second run (the marker's) is running, the first crashed.
	runs := `[...document.querySelectorAll("#runs tr.run")].map(r => r.dataset.run + ":" + r.querySelector(".outcome").textContent).join(",")`
	b.wait(t, "the runs, newest first", waitLong, runs+` === "2:running,1:crashed"`)
	href := b.eval(t, `document.querySelector("#runs tr.run[data-outcome=crashed] a.outcome").getAttribute("href")`)
	if want := "#/record/" + strconv.FormatUint(crash, 10); href != want {
		t.Errorf("the crashed run links to %q, want %q", href, want)
	}

	setValue(t, b, "#crash-class", "compile")
	b.wait(t, "the compile group only", waitLong, `(g => g.length === 1 && g[0].dataset.class === "compile")(document.querySelectorAll("#crashes .group"))`)
	if gs := groups(); !strings.Contains(gs[0].Title, "error CS1002") || strings.Join(gs[0].Badges, "|") != "compile" {
		t.Errorf("compile group %+v: want the CS1002 error with a compile badge", gs[0])
	}
	if h := b.eval(t, "location.hash"); h != "#/crashes?class=compile" {
		t.Errorf("location.hash = %q, want #/crashes?class=compile", h)
	}
	setValue(t, b, "#crash-class", "crash")
	b.wait(t, "the crash only", waitLong, `(g => g.length === 1 && g[0].dataset.class === "crash")(document.querySelectorAll("#crashes .group"))`)
	setValue(t, b, "#crash-class", "error")
	b.wait(t, "the error only", waitLong, `(g => g.length === 1 && g[0].dataset.class === "error")(document.querySelectorAll("#crashes .group"))`)

	b.do(t, "open the crashed run's crash", chromedp.Click(chromedp.CSS(`#runs a.outcome-crashed`)))
	b.wait(t, "the crash's record", waitLong, visible(`#record[data-id="`+strconv.FormatUint(crash, 10)+`"] pre.stack`))
}

// TestE2E_Console_LevelFilter: choosing a minimum level hides the lines
// below it, those already shown and those that arrive later.
func TestE2E_Console_LevelFilter(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "info", Name: "Net", Text: "connected to lobby"},
		line{Level: "warn", Name: "Audio", Text: "voice buffer underrun"},
		line{Level: "error", Name: "Save", Text: "cannot write save slot 2"},
		line{Level: "info", Name: "Net", Text: "ping 31 ms"},
	)
	b := mustBrowser(t)
	b.open(t, s)
	for _, id := range ids {
		b.wait(t, "every seeded line", waitLong, visible(lineSel(id)))
	}
	b.do(t, "choose error in #level-filter", chromedp.SetValue(chromedp.CSS("#level-filter"), "error"))
	// SetValue sets the value; the page listens for change (or input).
	b.eval(t, `(s => { s.dispatchEvent(new Event("input", {bubbles: true})); s.dispatchEvent(new Event("change", {bubbles: true})); return true })(document.querySelector("#level-filter"))`)

	const noLowVisible = `[...document.querySelectorAll("#console .line")].every(e =>
		!["debug", "info", "warn"].includes(e.dataset.level) || e.getClientRects().length === 0)`
	b.wait(t, "info and warn lines hidden", waitLong, noLowVisible)
	b.wait(t, "the error line still shown", waitLong, visible(lineSel(ids[2])))

	// Lines that arrive under the filter: the info one stays hidden.
	late := s.ingest(t, line{Level: "info", Name: "Net", Text: "ping 29 ms"}, line{Level: "fatal", Name: "Render", Text: "device lost"})
	b.wait(t, "the fatal line that arrived later", waitLong, visible(lineSel(late[1])))
	if ok, _ := b.eval(t, noLowVisible).(bool); !ok {
		t.Errorf("an info line that arrived under the error filter is visible\npage: %s", b.snapshot())
	}

	b.do(t, "choose debug in #level-filter", chromedp.SetValue(chromedp.CSS("#level-filter"), "debug"))
	b.eval(t, `(s => { s.dispatchEvent(new Event("input", {bubbles: true})); s.dispatchEvent(new Event("change", {bubbles: true})); return true })(document.querySelector("#level-filter"))`)
	b.wait(t, "info lines shown again", waitLong, visible(lineSel(ids[0])))
}

// TestE2E_Token: the page without its cookie is 404; the cookie is HttpOnly
// and SameSite=Strict; and after the first load no request of the page
// carries the token, in its URL or its Referer, through every view.
func TestE2E_Token(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "info", Name: "Boot", Text: "loaded scene Main"},
		line{Level: "error", Name: "Spawner", Text: "Spawner exploded", Stack: unityStack},
	)
	s.waitIndexed(t, ids[1])

	t.Run("NoCookie", func(t *testing.T) {
		resp, err := http.Get(s.base + "/ui/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /ui/ without the cookie (Go): %s, want 404", resp.Status)
		}
		b := mustBrowser(t)
		r, err := chromedp.Run(b.ctx, chromedp.NavigateResponse(s.base+"/ui/"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != http.StatusNotFound {
			t.Errorf("a fresh browser at /ui/: %d, want 404", r.Status)
		}
		for _, p := range []string{"/ui/" + strings.Repeat("0", 64), "/ui/" + s.token[:63]} {
			resp, err := http.Get(s.base + p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("GET %s (a wrong token): %s with Set-Cookie %q, want 404 and no cookie", p, resp.Status, resp.Header.Get("Set-Cookie"))
			}
		}
	})

	t.Run("NeverInURL", func(t *testing.T) {
		b := mustBrowser(t)
		b.open(t, s)
		cookies, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{s.base + "/ui/"}})
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, c := range cookies.Cookies {
			if c.Name == "mcplogd_ui" {
				found = true
				if !c.HTTPOnly || c.SameSite != network.CookieSameSiteStrict {
					t.Errorf("cookie mcplogd_ui: HttpOnly %v, SameSite %q; want true, Strict", c.HTTPOnly, c.SameSite)
				}
			}
		}
		if !found {
			t.Errorf("no mcplogd_ui cookie after the first load: %v", cookies.Cookies)
		}
		if v := b.eval(t, "document.cookie"); strings.Contains(v.(string), "mcplogd_ui") {
			t.Errorf("document.cookie shows the HttpOnly cookie: %q", v)
		}

		// Every view, so that each of the page's requests is made.
		b.wait(t, "the seeded line", waitLong, visible(lineSel(ids[0])))
		b.view(t, "search", "#view-search") // not #search-input: the header shows it in every view, and opening the view resets it
		b.do(t, "search", chromedp.SendKeys(chromedp.CSS("#search-input"), "exploded\r"))
		b.wait(t, "a hit", waitLong, visible("#search-results .hit"))
		b.do(t, "open the hit", chromedp.Click(chromedp.CSS("#search-results .hit")))
		b.wait(t, "the record", waitLong, visible("#record pre.stack"))
		b.view(t, "crashes", "#crashes")
		b.wait(t, "a crash group", waitLong, visible("#crashes .group"))
		b.view(t, "ops", "#ops")
		b.view(t, "console", "#console")
		b.wait(t, "the live view's lines", waitLong, visible(lineSel(ids[0])))

		reqs := b.requestsSince(0)
		if len(reqs) == 0 || !strings.Contains(reqs[0].Request.URL, s.token) {
			t.Fatalf("the first request is not the page's link: %v", requestURLs(reqs))
		}
		var api int
		for _, r := range reqs[1:] {
			u := r.Request.URL + r.Request.URLFragment
			if strings.Contains(u, s.token) {
				t.Errorf("a request after the first load has the token in its URL: %s %s", r.Request.Method, u)
			}
			for k, v := range r.Request.Headers {
				if strings.Contains(fmt.Sprint(v), s.token) {
					t.Errorf("request %s sends the token in header %s", u, k)
				}
			}
			if strings.Contains(r.Request.URL, "/api/") {
				api++
			}
		}
		if api == 0 {
			t.Errorf("the page made no /api/ request: %v", requestURLs(reqs))
		}
		// The page's own requests pass the Origin check (and the others).
		b.mu.Lock()
		for u, st := range b.statuses {
			if strings.HasPrefix(u, s.base) && st >= 400 {
				t.Errorf("the page's request %s got %d", u, st)
			}
		}
		b.mu.Unlock()
		t.Logf("%d requests, %d to /api/, none with the token after the first:", len(reqs), api)
		for _, r := range reqs[1:] {
			t.Logf("  %s %s", r.Request.Method, strings.TrimPrefix(r.Request.URL, s.base))
		}
	})
}

// TestE2E_Console_XSS: text from logs is rendered as text, never as HTML,
// in the live view, the search results and the record view.
func TestE2E_Console_XSS(t *testing.T) {
	t.Parallel()
	const payload = `<img src=x onerror=window.__pwned=1>`
	s := mustServe(t)
	ids := s.ingest(t, line{
		Level: "error", Name: `<b>name</b>`, Source: `<i>src</i>`, Text: payload,
		Stack: "Evil.Run () (at Assets/<img src=y onerror=window.__pwned=2>.cs:1)\n",
		Data:  json.RawMessage(`{"html":"<img src=z onerror=window.__pwned=3>"}`),
	})
	id := ids[0]
	s.waitIndexed(t, id)
	b := mustBrowser(t)
	b.open(t, s)
	b.wait(t, "the line", waitLong, visible(lineSel(id)))
	noImg := func(where, container string) {
		t.Helper()
		var got struct {
			Imgs   int  `json:"imgs"`
			Bold   int  `json:"bold"`
			Pwned  bool `json:"pwned"`
			Exists bool `json:"exists"`
		}
		b.evalInto(t, `(c => ({exists: !!c, imgs: c ? c.querySelectorAll("img").length : 0,
			bold: c ? c.querySelectorAll("b, i").length : 0, pwned: typeof window.__pwned !== "undefined"}))(document.querySelector(`+js(container)+`))`, &got)
		if !got.Exists || got.Imgs != 0 || got.Bold != 0 || got.Pwned {
			t.Errorf("%s: %+v; want the container, no <img>/<b>/<i> from log text, window.__pwned undefined", where, got)
		}
	}
	var text string
	b.evalInto(t, `document.querySelector(`+js(lineSel(id)+" .text")+`).textContent`, &text)
	if text != payload {
		t.Errorf("the line's .text = %q, want %q literally", text, payload)
	}
	noImg("live view", "#console")

	b.view(t, "search", "#view-search") // not #search-input: the header shows it in every view, and opening the view resets it
	b.do(t, "search", chromedp.SendKeys(chromedp.CSS("#search-input"), "onerror\r"))
	hit := `#search-results .hit[data-id="` + strconv.FormatUint(id, 10) + `"]`
	b.wait(t, "the hit", waitLong, visible(hit))
	b.evalInto(t, `document.querySelector(`+js(hit)+`).textContent`, &text)
	if !strings.Contains(text, "onerror") || !strings.Contains(text, "<img") {
		t.Errorf("the hit's text = %q, want the payload shown literally", text)
	}
	noImg("search results", "#search-results")

	b.do(t, "open the hit", chromedp.Click(chromedp.CSS(hit)))
	b.wait(t, "the record", waitLong, visible("#record .record-text"))
	b.evalInto(t, `document.querySelector("#record .record-text").textContent`, &text)
	if text != payload {
		t.Errorf(".record-text = %q, want %q literally", text, payload)
	}
	noImg("record view", "#record")
}

// TestE2E_Headers: the page's responses carry a strict CSP without inline
// scripts and nosniff, and the page itself has no inline script.
func TestE2E_Headers(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ck := s.cookie(t)
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie mcplogd_ui: HttpOnly %v, SameSite %v; want true, Strict", ck.HttpOnly, ck.SameSite)
	}
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.base+path, nil)
		req.AddCookie(ck)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	check := func(path string, resp *http.Response) {
		t.Helper()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the cookie: %s, want 200", path, resp.Status)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("GET %s: Content-Security-Policy %q; want script-src 'self' and no unsafe-inline/unsafe-eval", path, csp)
		}
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: X-Content-Type-Options %q, want nosniff", path, got)
		}
	}
	resp, page := get("/ui/")
	check("/ui/", resp)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("GET /ui/: Content-Type %q, want text/html", ct)
	}
	scripts := regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`).FindAllSubmatch(page, -1)
	if len(scripts) == 0 {
		t.Errorf("/ui/ loads no script:\n%s", page)
	}
	for _, m := range scripts {
		src := regexp.MustCompile(`(?i)\bsrc\s*=\s*["']?([^"' >]+)`).FindSubmatch(m[1])
		if src == nil || strings.TrimSpace(string(m[2])) != "" {
			t.Errorf("/ui/ has an inline script: %s", m[0])
			continue
		}
		u, err := url.Parse(s.base + "/ui/")
		if err != nil {
			t.Fatal(err)
		}
		ref, err := u.Parse(string(src[1]))
		if err != nil {
			t.Errorf("script src %q: %v", src[1], err)
			continue
		}
		resp, _ := get(ref.Path)
		check(ref.Path, resp)
		if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "javascript") {
			t.Errorf("GET %s: Content-Type %q, want text/javascript", ref.Path, ct)
		}
	}
	if regexp.MustCompile(`(?i)\son[a-z]+\s*=`).Match(page) {
		t.Errorf("/ui/ has an inline event handler attribute:\n%s", page)
	}
}

// TestE2E_Origin: with the page's cookie, a request from another origin is
// refused and one from the server's own origin passes; the cookie alone
// (no Origin, as from curl) is not a way around the token either.
func TestE2E_Origin(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ck := s.cookie(t)
	send := func(method, path, origin string) int {
		t.Helper()
		var body io.Reader
		if method == "POST" {
			body = strings.NewReader(`{"level":"info","text":"from the page"}`)
		}
		req, _ := http.NewRequest(method, s.base+path, body)
		req.AddCookie(ck)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, path := range []string{"/api/v1/info", "/api/v1/records?count=5"} {
		if st := send("GET", path, "http://evil.example"); st != http.StatusForbidden {
			t.Errorf("GET %s with the cookie, Origin http://evil.example: %d, want 403", path, st)
		}
		if st := send("GET", path, "http://localhost.evil.example:1"); st != http.StatusForbidden {
			t.Errorf("GET %s with the cookie, Origin http://localhost.evil.example:1: %d, want 403", path, st)
		}
		if st := send("GET", path, s.base); st != http.StatusOK {
			t.Errorf("GET %s with the cookie, its own Origin %s: %d, want 200", path, s.base, st)
		}
	}
	if st := send("POST", "/api/v1/logs", "http://evil.example"); st != http.StatusForbidden {
		t.Errorf("POST /api/v1/logs with the cookie, Origin http://evil.example: %d, want 403", st)
	}
	// Without the cookie (and without the token) the API stays closed.
	req, _ := http.NewRequest("GET", s.base+"/api/v1/info", nil)
	req.Header.Set("Origin", s.base)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("GET /api/v1/info with neither cookie nor token: 200")
	}
}

// TestE2E_Ops: an operation started through the API shows as pending in the
// operations view, turns into success with a duration once completed, and
// opens into a record view with its arguments, result, status and duration.
func TestE2E_Ops(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	var op struct {
		ID uint64 `json:"id"`
	}
	body := `{"tool":"spawn_enemy","arguments":{"kind":"orc","count":3},"source":"unity-editor","text":"spawn 3 orcs"}`
	if err := json.Unmarshal(s.do(t, "POST", "/api/v1/operations", body, http.StatusCreated), &op); err != nil || op.ID == 0 {
		t.Fatalf("start an operation: %v (id %d)", err, op.ID)
	}
	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "ops", "#ops")
	sel := `#ops .op[data-id="` + strconv.FormatUint(op.ID, 10) + `"]`
	b.wait(t, "the pending operation", waitLong, visible(sel)+` && document.querySelector(`+js(sel+" .status")+`).textContent === "pending"`)
	var got struct {
		Tool   string `json:"tool"`
		Source string `json:"source"`
	}
	b.evalInto(t, `(o => ({tool: o.querySelector(".tool").textContent, source: o.querySelector(".source").textContent}))(document.querySelector(`+js(sel)+`))`, &got)
	if got.Tool != "spawn_enemy" || got.Source != "unity-editor" {
		t.Errorf(".tool %q, .source %q; want spawn_enemy, unity-editor", got.Tool, got.Source)
	}

	s.do(t, "POST", fmt.Sprintf("/api/v1/operations/%d/complete", op.ID), `{"status":"success","result":{"spawned":3}}`, http.StatusOK)
	b.wait(t, "the operation to succeed, with a duration", waitLong,
		`document.querySelector(`+js(sel+" .status")+`).textContent === "success" && /\d/.test(document.querySelector(`+js(sel+" .duration")+`).textContent)`)

	b.do(t, "open the operation", chromedp.Click(chromedp.CSS(sel)))
	rec := `#record[data-id="` + strconv.FormatUint(op.ID, 10) + `"]`
	b.wait(t, "the operation's record", waitLong, visible(rec+" .op-status"))
	var f struct {
		Args, Result, Status, Duration string
	}
	b.evalInto(t, `(r => { const t = s => r.querySelector(s) ? r.querySelector(s).textContent : "";
		return {Args: t(".op-args"), Result: t(".op-result"), Status: t(".op-status"), Duration: t(".op-duration")} })(document.querySelector(`+js(rec)+`))`, &f)
	if !strings.Contains(f.Args, "orc") || !strings.Contains(f.Result, "spawned") || !strings.Contains(f.Status, "success") || !regexp.MustCompile(`\d`).MatchString(f.Duration) {
		t.Errorf("record view of the operation: %+v; want its arguments, result, status success and a duration", f)
	}
}

// TestE2E_Keyboard: / focuses the search box; j and k move the selection
// in the live view; Enter opens the selected line.
func TestE2E_Keyboard(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	ids := s.ingest(t,
		line{Level: "info", Name: "Net", Text: "first"},
		line{Level: "info", Name: "Net", Text: "second"},
		line{Level: "info", Name: "Net", Text: "third"},
	)
	b := mustBrowser(t)
	b.open(t, s)
	b.wait(t, "the lines", waitLong, visible(lineSel(ids[2])))

	b.press(t, '/')
	b.wait(t, "#search-input focused", waitLong, `document.activeElement && document.activeElement.id === "search-input"`)
	if v := b.eval(t, `document.querySelector("#search-input").value`); v != "" {
		t.Errorf("pressing / typed %q into the search box", v)
	}
	b.press(t, '\x1b')
	b.wait(t, "the search box blurred", waitLong, `document.activeElement !== document.querySelector("#search-input")`)

	selected := `(e => e ? e.dataset.id : "")(document.querySelector("#console .line.selected"))`
	b.press(t, 'j')
	b.wait(t, "a selected line", waitLong, selected)
	first := b.eval(t, selected)
	b.press(t, 'j')
	b.wait(t, "the selection to move down", waitLong, selected+` !== `+js(fmt.Sprint(first)))
	second := b.eval(t, selected)
	b.press(t, 'k')
	b.wait(t, "the selection to move back up", waitLong, selected+` === `+js(fmt.Sprint(first)))
	b.press(t, 'j')
	b.wait(t, "the selection to move down again", waitLong, selected+` === `+js(fmt.Sprint(second)))

	b.press(t, '\r')
	b.wait(t, "the selected line's record", waitLong, `location.hash === "#/record/" + `+js(fmt.Sprint(second))+` && !!document.querySelector("#record[data-id=\"" + `+js(fmt.Sprint(second))+` + "\"]")`)
}

// TestScreenshots writes the docs' screenshots of the live view, a search,
// the crash view and a crash opened with its stack, and the page's
// favicon.ico, under MCPLOGD_SCREENSHOTS=1 (`make screenshots`).
func TestScreenshots(t *testing.T) {
	if os.Getenv(screenshotsEnv) != "1" {
		t.Skipf("set %s=1 (make screenshots) to write docs/screenshots/*.png", screenshotsEnv)
	}
	writeFavicon(t)
	s := mustServe(t)
	// The game's first run exits cleanly, its second crashes (the fatal line
	// below), its third is running; the crash view lists them.
	seed := []line{
		{Level: "info", Name: "Boot", Source: "game", Text: "game started (build 41)"},
		{Kind: "marker", Name: "exit", Level: "info", Source: "game", Text: "exited with status 0", Data: json.RawMessage(`{"exitCode":0}`)},
		{Kind: "marker", Name: "run", Level: "info", Source: "game", Text: "game started (build 42)"},
	}
	for i := range 8 {
		seed = append(seed,
			line{Level: "info", Name: "Net", Source: "game", Text: fmt.Sprintf("tick %d: 12 players, 31 ms", 1200+i*60)},
			line{Level: "debug", Name: "AI", Source: "game", Text: fmt.Sprintf("EnemyManager: %d agents replanned", 3+i%4)},
		)
		switch i {
		case 2:
			seed = append(seed, line{Level: "warn", Name: "Audio", Source: "game", Text: "voice buffer underrun (2 frames)"})
		case 4:
			seed = append(seed, line{Level: "error", Name: "Spawner", Source: "game", Text: "NullReferenceException: Object reference not set to an instance of an object", Stack: unityStack})
		case 5:
			seed = append(seed, line{Level: "info", Name: "Save", Source: "game", Text: "saved slot 1", Data: json.RawMessage(`{"slot":1,"bytes":48213}`)})
		case 6:
			seed = append(seed, line{Level: "warn", Name: "Render", Source: "game", Text: "frame took 48 ms (budget 16 ms)"})
		}
	}
	seed = append(seed,
		line{Level: "info", Name: "Spawner", Source: "game", Text: "wave 5 starting"},
		line{Level: "error", Name: "Spawner", Source: "game", Text: "NullReferenceException: Object reference not set to an instance of an object", Stack: strings.ReplaceAll(unityStack, ":42)", ":44)")},
		line{Level: "error", Name: "World", Source: "server", Text: "java.lang.IllegalStateException: chunk not loaded", Stack: javaStack},
		line{Level: "info", Name: "Net", Source: "game", Text: "player 'kit' joined from 10.0.0.7"},
		line{Level: "error", Name: "World", Source: "server", Text: "java.lang.IllegalStateException: chunk not loaded", Stack: javaStack},
		line{Level: "fatal", Name: "Render", Source: "game", Text: "graphics device lost", Stack: "System.Exception: device removed\n   at Game.Render.Present() in C:\\build\\Game\\Render.cs:line 210\n"},
		line{Kind: "marker", Name: "run", Level: "info", Source: "game", Text: "game started (build 43)"},
		line{Level: "info", Name: "Spawner", Source: "game", Text: "wave 5 cleared in 94 s"},
		line{Level: "error", Name: "Waves", Source: "player", Text: "NullReferenceException: Object reference not set to an instance of an object", Stack: monoStack},
	)
	// Spread over the last 40 minutes, so that times and sparklines vary,
	// after two lines imported from yesterday's log, which the console dates.
	start := time.Now().Add(-40 * time.Minute)
	for i := range seed {
		seed[i].Time = start.Add(time.Duration(i) * 40 * time.Minute / time.Duration(len(seed))).UTC().Format(time.RFC3339Nano)
	}
	y := time.Now().AddDate(0, 0, -1)
	yesterday := time.Date(y.Year(), y.Month(), y.Day(), 18, 2, 11, 0, time.Local)
	seed = append([]line{
		{Time: yesterday.UTC().Format(time.RFC3339Nano), Level: "info", Name: "Boot", Source: "game", Text: "game started (build 40)"},
		{Time: yesterday.Add(3 * time.Second).UTC().Format(time.RFC3339Nano), Level: "warn", Name: "Render", Source: "game", Text: "shader cache rebuilt (412 variants)"},
	}, seed...)
	ids := s.ingest(t, seed...)
	s.waitIndexed(t, ids[len(ids)-1])

	b := mustBrowser(t)
	b.open(t, s)
	b.wait(t, "the seeded lines", waitLong, visible(lineSel(ids[len(ids)-1])))
	b.screenshot(t, "console")

	b.view(t, "search", "#view-search") // not #search-input: the header shows it in every view, and opening the view resets it
	b.do(t, "search", chromedp.SendKeys(chromedp.CSS("#search-input"), "NullReferenceException\r"))
	b.wait(t, "hits", waitLong, visible("#search-results .hit mark"))
	b.screenshot(t, "search")

	b.view(t, "crashes", "#crashes")
	b.wait(t, "three crash groups", waitLong, `document.querySelectorAll("#crashes .group").length >= 3`)
	b.wait(t, "the runs of game, server and player", waitLong, `document.querySelectorAll("#runs tr.run").length === 5`)
	b.screenshot(t, "crashes")

	b.do(t, "open a Unity crash", chromedp.Click(chromedp.CSS(`#crashes .group[data-signature]:last-child`)))
	b.wait(t, "its stack", waitLong, visible("#record pre.stack .frame"))
	b.screenshot(t, "record")

	for _, op := range []string{
		`{"tool":"spawn_wave","arguments":{"wave":5},"source":"game","status":"success","result":{"spawned":12}}`,
		`{"tool":"query_state","arguments":{"path":"Player/Health"},"source":"game","status":"success","result":{"hp":87}}`,
		`{"tool":"execute_code","arguments":{"code":"Spawner.Instance.Reset()"},"source":"game","status":"error","error":"NullReferenceException: Spawner.Instance is null"}`,
		`{"tool":"spawn_wave","arguments":{"wave":6},"source":"game"}`,
	} {
		s.do(t, "POST", "/api/v1/operations", op, http.StatusCreated)
	}
	b.view(t, "ops", "#ops")
	b.wait(t, "the operations", waitLong, `document.querySelectorAll("#ops .op").length >= 4`)
	b.screenshot(t, "ops")
}

// --- small helpers ---------------------------------------------------------

func containsSub(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func requestURLs(reqs []*network.EventRequestWillBeSent) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.Request.URL
	}
	return out
}

type tailBuffer = logtest.TailBuffer

// TestE2E_Replays: an operation recorded through the gateway (in front of
// server-everything) and replayed lists its replay in the record view.
func TestE2E_Replays(t *testing.T) {
	t.Parallel()
	up := everything.Command(t)
	s := mustServe(t, "--upstream", fmt.Sprintf("everything=cmd:%q %q %q", up[0], up[1], up[2]))
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp/" + s.token}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var res *mcp.CallToolResult
	logtest.Eventually(t, waitLong, "the upstream's echo", func() bool {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "again"}})
		return err == nil && !res.IsError
	})
	id := uint64(res.Meta["log_id"].(float64))
	var rp struct {
		Replay struct {
			ID uint64 `json:"id"`
		} `json:"replay"`
	}
	if err := json.Unmarshal(s.do(t, "POST", fmt.Sprintf("/api/v1/operations/%d/replay", id), `{}`, http.StatusOK), &rp); err != nil || rp.Replay.ID == 0 {
		t.Fatalf("replay: %v %+v", err, rp)
	}
	b := mustBrowser(t)
	b.open(t, s)
	b.do(t, "open the operation", chromedp.Navigate(s.base+fmt.Sprintf("/ui/#/record/%d", id)))
	b.wait(t, "its replay listed", waitLong, visible(fmt.Sprintf(`#record .replays a[href="#/record/%d"]`, rp.Replay.ID)))
}
