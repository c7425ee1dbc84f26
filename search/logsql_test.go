package search

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestLogsQL: each shape of the query language and its LogsQL. The
// answers are compared with the local index's on the same records against
// a real VictoriaLogs in package studio (TestClient_Search_SameAsLocal);
// this test pins the translation itself and its refusals.
func TestLogsQL(t *testing.T) {
	const w = `\\pL\\p{Nd}\\pM_`
	f := func(query, want string) {
		t.Helper()
		got, err := LogsQL(query)
		if err != nil || got != want {
			t.Errorf("LogsQL(%q) = %s, %v\n want %s", query, got, err, want)
		}
	}
	f(``, `*`)
	f(`Null`, `(_msg:i("null") OR stack:i("null"))`)
	f(`text:null`, `_msg:i("null")`)
	f(`stack:Update`, `stack:i("update")`)
	f(`null -reference`, `((_msg:i("null") OR stack:i("null")) AND NOT (_msg:i("reference") OR stack:i("reference")))`)
	f(`a OR b`, `(_msg:i("b") OR stack:i("b"))`) // "a" is a stop word: it matches nothing, as in the index
	f(`text:"null reference"`, `(_msg:i("null") AND _msg:i("reference") AND _msg:~"(?i)(?:^|[^`+w+`])null[^`+w+`]+reference(?:[^`+w+`]|$)")`)
	f(`text:"null the reference"`, `(_msg:i("null") AND _msg:i("reference") AND _msg:~"(?i)(?:^|[^`+w+`])null[^`+w+`]+[`+w+`]+[^`+w+`]+reference(?:[^`+w+`]|$)")`)
	f(`text:spawn*`, `_msg:i("spawn"*)`)
	f(`text:sp?wn`, `_msg:~"(?i)(?:^|[^`+w+`])sp[`+w+`]wn(?:[^`+w+`]|$)"`)
	f(`name:Physics`, `name:="Physics"`)
	f(`name:Phys*`, `name:="Phys"*`)
	f(`name:P*s`, `name:~"^(?:P.*s)$"`)
	f(`level:Warning`, `level:="warn"`)
	f(`level:err*`, `level:~"^(?:(?i)err.*)$"`)
	f(`kind:any`, `*`)
	f(`status:ok`, `status:="success"`)
	f(`run:3`, `run:="3"`)
	f(`time:>="2026-05-01T12:00:00Z"`, `_time:>=2026-05-01T12:00:00Z`)
	f(`time:<"2026-05-01T12:00:00Z"`, `_time:<2026-05-01T12:00:00Z`)
	f(`time:>"2026-05-01T12:00:00Z" AND time:<="2026-05-02T00:00:00Z"`, `(_time:>2026-05-01T12:00:00Z AND _time:<=2026-05-02T00:00:00Z)`)

	for query, want := range map[string]string{
		`null~1`:     "fuzzy",
		`/nu.l/`:     "regular expression",
		`replayOf:3`: "replayOf is not forwarded",
		`the`:        "matches nothing",
		`run:>3`:     "ranges are for time only",
		`foo.bar*`:   "not a word character",
		`(null`:      "never closed",
	} {
		_, err := LogsQL(query)
		if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), want) {
			t.Errorf("LogsQL(%q): %v, want EINVALID saying %q", query, err, want)
		}
	}
}
