package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// get sends GET path with the given headers (cookie: the UI cookie's value,
// none when empty) and returns the answer with its body read.
func get(h *harness, path, cookie string, header map[string]string) (*http.Response, string) {
	h.T.Helper()
	req, err := http.NewRequest(http.MethodGet, h.URL+path, nil)
	if err != nil {
		h.T.Fatal(err)
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: api.UICookie, Value: cookie})
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		h.T.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func checkUIHeaders(t *testing.T, what string, resp *http.Response) {
	t.Helper()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s: Content-Security-Policy %q lacks %q", what, csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("%s: Content-Security-Policy %q allows inline code", what, csp)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q, want nosniff", what, got)
	}
	if got := resp.Header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("%s: Referrer-Policy %q, want no-referrer", what, got)
	}
}

func TestServer_UI_Login(t *testing.T) {
	h := mustServe(t, nil)
	t.Run("WrongToken", func(t *testing.T) {
		for _, path := range []string{"/ui/" + strings.Repeat("f", 64), "/ui/x", "/ui"} {
			resp, _ := get(h, path, "", nil)
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s: status %d, want 404", path, resp.StatusCode)
			}
			if len(resp.Cookies()) != 0 {
				t.Errorf("GET %s set a cookie", path)
			}
		}
	})
	t.Run("OK", func(t *testing.T) {
		resp, _ := get(h, "/ui/"+testToken, "", nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/" {
			t.Fatalf("status %d, Location %q; want 303 to /ui/", resp.StatusCode, resp.Header.Get("Location"))
		}
		checkUIHeaders(t, "login", resp)
		var ck *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Name == api.UICookie {
				ck = c
			}
		}
		if ck == nil {
			t.Fatalf("no %s cookie in %q", api.UICookie, resp.Header.Values("Set-Cookie"))
		}
		if ck.Value != testToken || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" {
			t.Errorf("cookie %+v: want the token, HttpOnly, SameSite=Strict, Path=/", ck)
		}
	})
}

func TestServer_UI_Page(t *testing.T) {
	h := mustServe(t, nil)
	t.Run("NoCookie", func(t *testing.T) {
		for _, path := range []string{"/ui/", "/ui/assets/app.js", "/ui/assets/app.css"} {
			if resp, _ := get(h, path, "", nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s without cookie: status %d, want 404", path, resp.StatusCode)
			}
			if resp, _ := get(h, path, strings.Repeat("0", 64), nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s with a wrong cookie: status %d, want 404", path, resp.StatusCode)
			}
		}
	})
	t.Run("OK", func(t *testing.T) {
		resp, body := get(h, "/ui/", testToken, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		checkUIHeaders(t, "page", resp)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("Content-Type %q", ct)
		}
		if strings.Contains(body, "style=") || strings.Contains(body, "<style") {
			t.Error("the page has inline style")
		}
		scripts := regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`).FindAllStringSubmatch(body, -1)
		if len(scripts) == 0 {
			t.Error("the page has no script")
		}
		for _, s := range scripts {
			if !strings.Contains(s[1], `src="/ui/assets/`) || strings.TrimSpace(s[2]) != "" {
				t.Errorf("inline script: %q", s[0])
			}
		}
		if regexp.MustCompile(`(?i)\son[a-z]+=`).MatchString(body) {
			t.Error("the page has an inline event handler")
		}
		for _, id := range []string{`<link rel="icon" href="/ui/assets/favicon.svg"`, `id="console"`, `id="level-filter"`, `id="search-input"`, `id="search-results"`, `id="record"`, `id="crashes"`, `id="ops"`, `data-view="console"`} {
			if !strings.Contains(body, id) {
				t.Errorf("the page lacks %s", id)
			}
		}
	})
	t.Run("Assets", func(t *testing.T) {
		for _, a := range []struct{ path, ctype string }{
			{"/ui/assets/app.js", "text/javascript; charset=utf-8"},
			{"/ui/assets/app.css", "text/css; charset=utf-8"},
		} {
			resp, body := get(h, a.path, testToken, nil)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != a.ctype {
				t.Errorf("GET %s: status %d, Content-Type %q; want 200, %q", a.path, resp.StatusCode, resp.Header.Get("Content-Type"), a.ctype)
			}
			checkUIHeaders(t, a.path, resp)
			if strings.Contains(body, "innerHTML") || strings.Contains(body, "insertAdjacentHTML") || strings.Contains(body, "document.write") {
				t.Errorf("%s parses strings as HTML", a.path)
			}
		}
		resp, body := get(h, "/ui/assets/favicon.svg", testToken, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(body, "<svg") {
			t.Errorf("GET /ui/assets/favicon.svg: status %d, Content-Type %q; want 200, image/svg+xml, an SVG", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		for _, path := range []string{"/ui/assets/nope.js", "/ui/assets/index.html", "/ui/assets/../ui.go"} {
			if resp, _ := get(h, path, testToken, nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s: status %d, want 404", path, resp.StatusCode)
			}
		}
	})
}

// TestServer_UI_Favicon: /favicon.ico is the page's icon, an ICO, for
// anyone: it needs neither cookie nor token, as the icon tells nothing.
func TestServer_UI_Favicon(t *testing.T) {
	h := mustServe(t, nil)
	for _, cookie := range []string{"", testToken} {
		resp, body := get(h, "/favicon.ico", cookie, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/x-icon" {
			t.Fatalf("GET /favicon.ico (cookie %q): status %d, Content-Type %q; want 200, image/x-icon", cookie, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if !strings.HasPrefix(body, "\x00\x00\x01\x00") || !strings.Contains(body, "\x89PNG") {
			t.Errorf("GET /favicon.ico: %d bytes that are no ICO of a PNG", len(body))
		}
		checkUIHeaders(t, "favicon.ico", resp)
	}
	if _, body := get(h, "/", "", nil); !strings.Contains(body, `<link rel="icon" href="/favicon.ico">`) {
		t.Errorf("the root page links no icon:\n%s", body)
	}
}

func TestServer_Authorize_Cookie(t *testing.T) {
	h := mustServe(t, nil)
	for _, c := range []struct {
		name   string
		cookie string
		header map[string]string
		want   int
	}{
		{"SameOriginHeader", testToken, map[string]string{"Origin": h.URL}, http.StatusOK},
		{"SecFetchSameOrigin", testToken, map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		{"OtherOrigin", testToken, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"OtherPortSameHost", testToken, map[string]string{"Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"OtherOriginDespiteSecFetch", testToken, map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"}, http.StatusForbidden},
		{"SameSite", testToken, map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"CrossSite", testToken, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"NoOriginNoSecFetchRead", testToken, nil, http.StatusOK}, // a plain-http LAN page's GET
		{"WrongCookie", strings.Repeat("0", 64), map[string]string{"Origin": h.URL}, http.StatusUnauthorized},
		{"Nothing", "", nil, http.StatusUnauthorized},
		{"Bearer", "", map[string]string{"Authorization": "Bearer " + testToken}, http.StatusOK},
		{"BearerOtherOrigin", "", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "http://evil.example"}, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := get(h, "/api/v1/info", c.cookie, c.header)
			if resp.StatusCode != c.want {
				t.Errorf("status %d, want %d; body %s", resp.StatusCode, c.want, body)
			}
		})
	}
	t.Run("NoOriginNoSecFetchWrite", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, h.URL+"/api/v1/logs", strings.NewReader(`{"level":"info","text":"x"}`))
		req.AddCookie(&http.Cookie{Name: "mcplogd_ui", Value: testToken})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a cookie-only POST without Origin: status %d, want 403", resp.StatusCode)
		}
	})
	t.Run("RotatedToken", func(t *testing.T) {
		h.Srv.SetToken(strings.Repeat("ab", 32))
		defer h.Srv.SetToken(testToken)
		if resp, _ := get(h, "/api/v1/info", testToken, map[string]string{"Origin": h.URL}); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("old cookie after rotation: status %d, want 401", resp.StatusCode)
		}
		if resp, _ := get(h, "/ui/", testToken, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("page with the old cookie after rotation: status %d, want 404", resp.StatusCode)
		}
	})
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	id, event, data string
}

// openStream opens GET path as an event stream with the UI cookie, as the
// page does, and returns its events; it ends with the test.
func openStream(t *testing.T, h *harness, path, lastEventID string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: api.UICookie, Value: testToken})
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("GET %s: status %d, Content-Type %q: %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	events := make(chan sseEvent, 100)
	go func() {
		defer resp.Body.Close()
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.event != "" || ev.data != "" {
					events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data += line[6:]
			}
		}
	}()
	return events
}

type streamLines struct {
	Lines []struct {
		ID       uint64 `json:"id"`
		Text     string `json:"text"`
		Level    string `json:"level"`
		Template string `json:"template"`
	} `json:"lines"`
	LastID   uint64 `json:"lastId"`
	Revision uint64 `json:"revision"`
	Reset    bool   `json:"reset"`
	Dropped  uint64 `json:"dropped"`
}

// nextLines waits for the next "lines" event.
func nextLines(t *testing.T, events <-chan sseEvent) (sseEvent, streamLines) {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		if ev.event != "lines" {
			t.Fatalf("event %q, want lines", ev.event)
		}
		var a streamLines
		if err := json.Unmarshal([]byte(ev.data), &a); err != nil {
			t.Fatalf("event data %q: %v", ev.data, err)
		}
		return ev, a
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	panic("unreachable")
}

func streamTexts(a streamLines) string {
	var s []string
	for _, l := range a.Lines {
		s = append(s, l.Text)
	}
	return strings.Join(s, ",")
}

func TestServer_Stream(t *testing.T) {
	h := mustServe(t, nil)
	logtest.MustAppend(t, h.Log, logtest.Lines(3, "old")...)

	events := openStream(t, h, "/api/v1/stream", "")
	first, a := nextLines(t, events)
	if got := streamTexts(a); got != "old-0,old-1,old-2" || a.LastID != 3 || a.Revision == 0 {
		t.Fatalf("first event: lines %q, lastId %d, revision %d; want the 3 old lines", got, a.LastID, a.Revision)
	}
	if want := fmt.Sprintf("%d:%d", a.LastID, a.Revision); first.id != want {
		t.Errorf("event id %q, want %q", first.id, want)
	}

	h.Call(http.MethodPost, "/api/v1/logs", `{"level":"warn","text":"new 1"}`+"\n"+`{"level":"debug","text":"new 2"}`)
	ev, a := nextLines(t, events)
	if got := streamTexts(a); got != "new 1,new 2" || a.Reset || a.Dropped != 0 {
		t.Fatalf("after ingest: lines %q reset %v dropped %d", got, a.Reset, a.Dropped)
	}

	t.Run("LastEventID", func(t *testing.T) {
		// A reconnect after the first event gets exactly what came since.
		again := openStream(t, h, "/api/v1/stream?sinceId=1", first.id)
		_, b := nextLines(t, again)
		if got := streamTexts(b); got != "new 1,new 2" {
			t.Errorf("resumed from %s: lines %q, want new 1,new 2", first.id, got)
		}
		// From the newest event: nothing until a new line.
		latest := openStream(t, h, "/api/v1/stream", ev.id)
		if _, c := nextLines(t, latest); len(c.Lines) != 0 || c.Reset {
			t.Errorf("resumed from the newest event: lines %q, reset %v; want none", streamTexts(c), c.Reset)
		}
		h.Call(http.MethodPost, "/api/v1/logs", `{"level":"error","text":"new 3"}`)
		if _, c := nextLines(t, latest); streamTexts(c) != "new 3" {
			t.Errorf("then: lines %q, want new 3", streamTexts(c))
		}
		// Another generation: reset.
		stale := openStream(t, h, "/api/v1/stream", fmt.Sprintf("%d:%d", a.LastID, a.Revision+1))
		if _, c := nextLines(t, stale); !c.Reset {
			t.Errorf("Last-Event-ID of another revision: no reset")
		}
	})

	t.Run("Filter", func(t *testing.T) {
		warn := openStream(t, h, "/api/v1/stream?level=warn&sinceId=3", "")
		if _, c := nextLines(t, warn); streamTexts(c) != "new 1,new 3" {
			t.Errorf("level=warn: lines %q, want new 1,new 3", streamTexts(c))
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		resp, body := get(h, "/api/v1/stream?level=loud", testToken, map[string]string{"Origin": h.URL})
		checkError(t, resp.StatusCode, []byte(body), http.StatusBadRequest, oplog.EINVALID, "level")
		resp, body = get(h, "/api/v1/stream", testToken, map[string]string{"Origin": h.URL, "Last-Event-ID": "x"})
		checkError(t, resp.StatusCode, []byte(body), http.StatusBadRequest, oplog.EINVALID, "Last-Event-ID")
	})

	t.Run("OtherOrigin", func(t *testing.T) {
		resp, _ := get(h, "/api/v1/stream", testToken, map[string]string{"Origin": "http://evil.example"})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("status %d, want 403", resp.StatusCode)
		}
	})
}

func TestServer_Crashes_Buckets(t *testing.T) {
	h := withCrashes(mustServe(t, nil))
	at := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Millisecond)
	appendCrashes(t, h.Log, 10, at) // 10 Unity crashes a second apart, one Lua crash an hour before

	type out struct {
		Groups []struct {
			Count     int   `json:"count"`
			Histogram []int `json:"histogram"`
		} `json:"groups"`
		HistogramFrom  time.Time `json:"histogramFrom"`
		HistogramUntil time.Time `json:"histogramUntil"`
	}
	a := mustCall[out](h, http.MethodGet, "/api/v1/crashes?buckets=6", "", http.StatusOK)
	if len(a.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(a.Groups))
	}
	if !a.HistogramFrom.Equal(at.Add(-time.Hour)) || !a.HistogramUntil.After(at.Add(9*time.Second)) {
		t.Errorf("span %s..%s, want from the Lua crash to just after the last Unity one", a.HistogramFrom, a.HistogramUntil)
	}
	// Lua's crash (it ended a run: first) in the first of 6 ten-minute
	// slices; Unity's errors all 10 in the last.
	if got := fmt.Sprint(a.Groups[0].Histogram, a.Groups[1].Histogram); got != "[1 0 0 0 0 0] [0 0 0 0 0 10]" {
		t.Errorf("histograms %s", got)
	}
	if b := mustCall[out](h, http.MethodGet, "/api/v1/crashes", "", http.StatusOK); b.Groups[0].Histogram != nil || !b.HistogramFrom.IsZero() {
		t.Errorf("without buckets: histogram %v, from %s", b.Groups[0].Histogram, b.HistogramFrom)
	}
	status, body := h.Call(http.MethodGet, "/api/v1/crashes?buckets=-1", "")
	checkError(t, status, body, http.StatusBadRequest, oplog.EINVALID, "buckets")
}
