package api_test

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// TestDoc_Routes: doc.go's route table lists every route registered in
// Echo, and nothing else. Routes registered for every method (the MCP
// endpoint) are listed as ANY.
func TestDoc_Routes(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^//\t([A-Z|]+) +(/\S*)`)
	documented := map[string]bool{} // "METHOD PATH"
	for _, m := range line.FindAllStringSubmatch(string(b), -1) {
		for _, method := range strings.Split(m[1], "|") {
			documented[method+" "+m[2]] = true
		}
	}

	l, _ := logtest.MustOpenLog(t, nil)
	s, err := api.New(l, &api.Options{Token: testToken, RotateToken: func() (string, error) { return testToken, nil },
		// The routes cmd/mcplogd passes (package metrics' and otlp's).
		Routes: []api.Route{
			{Method: http.MethodGet, Path: "/metrics", Handler: http.NotFoundHandler()},
			{Method: http.MethodPost, Path: "/v1/logs", Handler: http.NotFoundHandler()},
		}})
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, r := range s.Echo().Routes() {
		if r.Method == "echo_route_not_found" {
			continue // Echo's own, for the group's unknown paths
		}
		key := r.Method + " " + r.Path
		if documented["ANY "+r.Path] {
			key = "ANY " + r.Path
		}
		registered[key] = true
		if !documented[key] {
			t.Errorf("route %s is not in doc.go's route table", key)
		}
	}
	for key := range documented {
		if !registered[key] {
			t.Errorf("doc.go lists %s, which is not a route", key)
		}
	}
	if len(registered) != 32 {
		t.Errorf("%d routes, want 32: update doc.go and this count together", len(registered))
	}
}
