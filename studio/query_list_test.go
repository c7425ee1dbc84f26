package studio

import (
	"strings"
	"testing"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// TestQueryWords: the words of a query that fragments mark: text terms,
// lower-cased; a prefix or wildcard kept whole as a pattern; operators,
// excluded terms and other fields left out.
func TestQueryWords(t *testing.T) {
	f := func(q, want string) {
		t.Helper()
		if got := strings.Join(queryWords(q), ","); got != want {
			t.Errorf("queryWords(%q) = %q, want %q", q, got, want)
		}
	}
	f(`Null Reference`, strings.Join(append(ql.Inflections("null"), ql.Inflections("reference")...), ","))
	f(`Crashed "spawn" text:fail~1`, "crashed,crash,crashe,crashes,crashing,spawn,fail,1")
	f(`"object reference" AND name:Spawner`, "object,reference")
	f(`Crash* -crashed`, "crash*")
	f(`text:cr?sh stack:Game.Update*`, "cr?sh,game,update")
	f(`(crash* OR fail*) +wave`, "crash*,fail*,wave")
	f(`* ?`, "")
	f(`level:error source:unity*`, "")
}
