package search_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestSearch_HostileQueries: a fuzziness over 2 is refused naming it (it
// was a 500); a regular expression keeps its parentheses (the query
// language split /(a|aa)*b/ at them and bleve's parser answered "runtime
// error: slice bounds out of range") and matches as written, in the index
// and above the watermark; one never closed is refused saying so.
func TestSearch_HostileQueries(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 2000)...)
	bad := func(q string, msgs ...string) {
		t.Helper()
		_, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: q})
		if oplog.ErrorCode(err) != oplog.EINVALID {
			t.Fatalf("%q: %v, want invalid", q, err)
		}
		for _, m := range msgs {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%q: %q lacks %q", q, err, m)
			}
		}
		if strings.Contains(err.Error(), "runtime error") {
			t.Errorf("%q: %q", q, err)
		}
	}
	checks := func() {
		bad("abc~3", "fuzzy word allows 1 or 2 edits", "not 3")
		bad("name:Physics~5", "not 5", "character 6")
		bad("/", "regular expression (/…/) that is never closed")
		bad("needle /(a", "never closed", "character 8")
		e.check(oplog.SearchQuery{Query: "/(a|aa)*b/"}, func(*oplog.Record) bool { return false })
		e.check(oplog.SearchQuery{Query: "/ne(e)dl(e|x)/"}, hasNeedle)
		e.check(oplog.SearchQuery{Query: "(frame OR /ne(e)dle/) AND -name:/(P|Q)hysics/"}, func(r *oplog.Record) bool { return r.Name != "Physics" })
		e.check(oplog.SearchQuery{Query: "stack:/(step|x)/ Assets/x.cs"}, func(*oplog.Record) bool { return false })
		e.check(oplog.SearchQuery{Query: "stack:/(step|x)/"}, func(r *oplog.Record) bool { return r.Stack != "" })
	}
	checks() // partly above the watermark
	e.waitIndexed()
	checks()
}
