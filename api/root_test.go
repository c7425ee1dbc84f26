package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestServer_Root: / answers a small HTML page that says how to open the
// web page, holds no token, and leaves /ui/ a 404 without the cookie.
func TestServer_Root(t *testing.T) {
	h := mustServe(t, nil)
	resp, body := get(h, "/", "", nil)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	checkUIHeaders(t, "GET /", resp)
	for _, want := range []string{"mcplogd link --web", "web:", "mcplogd serve", "mcplogd token"} {
		if !strings.Contains(body, want) {
			t.Errorf("GET / does not say %q:\n%s", want, body)
		}
	}
	// The store is found from any directory: the page must not send a person
	// looking for ./mcplogd-data.
	if strings.Contains(body, "mcplogd-data") || !strings.Contains(body, "mcplogd status") {
		t.Errorf("GET / still speaks of ./mcplogd-data, or not of mcplogd status:\n%s", body)
	}
	if strings.Contains(body, testToken) {
		t.Errorf("GET / shows the token")
	}
	if resp, _ := get(h, "/ui/", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /ui/ without the cookie: %d, want 404", resp.StatusCode)
	}
}
