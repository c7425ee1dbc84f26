package ui_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestApp_ProvenanceKeys: the page leaves the same data keys aside when it
// collapses lines as console_tail does (oplog.ProvenanceKeys).
func TestApp_ProvenanceKeys(t *testing.T) {
	js, err := os.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const provenance = \[([^\]]*)\]`).FindSubmatch(js)
	if m == nil {
		t.Fatal("app.js has no const provenance = [...]")
	}
	var keys []string
	for _, k := range strings.Split(string(m[1]), ",") {
		keys = append(keys, strings.Trim(strings.TrimSpace(k), `'"`))
	}
	if !slices.Equal(keys, oplog.ProvenanceKeys) {
		t.Errorf("app.js leaves %q aside, oplog.ProvenanceKeys is %q", keys, oplog.ProvenanceKeys)
	}
}
