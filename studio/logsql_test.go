package studio

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// logsQLText is the LogsQL of query string s, parsed as Resolve parses it.
func logsQLText(s string) (string, error) {
	n, err := oplog.ParseQuery(s)
	if err != nil {
		return "", err
	}
	return logsQL(n)
}

// TestLogsQL: each shape of the query language and its LogsQL. The
// answers are compared with the local index's on the same records against
// a real VictoriaLogs in package studio (TestClient_Search_SameAsLocal);
// this test pins the translation itself and its refusals.
func TestLogsQL(t *testing.T) {
	const w = `\\pL\\p{Nd}\\pM_`
	f := func(query, want string) {
		t.Helper()
		got, err := logsQLText(query)
		if err != nil || got != want {
			t.Errorf("logsQLText(%q) = %s, %v\n want %s", query, got, err, want)
		}
	}
	// forms is a bare word on f: one word filter per inflection, ORed.
	forms := func(f, word string) string {
		var es []string
		for _, x := range ql.Inflections(word) {
			es = append(es, f+`:i("`+x+`")`)
		}
		return "(" + strings.Join(es, " OR ") + ")"
	}
	f(``, `*`)
	f(`Null`, `(`+forms("_msg", "null")+` OR `+forms("stack", "null")+`)`)
	f(`text:null`, forms("_msg", "null"))
	f(`stack:Update`, forms("stack", "update"))
	f(`null -reference`, `((`+forms("_msg", "null")+` OR `+forms("stack", "null")+`) AND NOT (`+forms("_msg", "reference")+` OR `+forms("stack", "reference")+`))`)
	f(`text:Crashed`, `(_msg:i("crashed") OR _msg:i("crash") OR _msg:i("crashe") OR _msg:i("crashes") OR _msg:i("crashing"))`)
	f(`text:"crashed"`, `_msg:i("crashed")`)     // quoted: exact
	f(`text:used`, `_msg:i("used")`)             // a stem of three letters: exact
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
	f(`status:crash`, `status:="crashed"`)
	f(`run:3`, `run:="3"`)
	f(`template:3F2A9C1B7D0E`, `template:="3f2a9c1b7d0e"`)
	f(`template:3f2a*`, `template:="3f2a"*`)
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
		_, err := logsQLText(query)
		if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), want) {
			t.Errorf("logsQLText(%q): %v, want EINVALID saying %q", query, err, want)
		}
	}
}

// TestLogsQL_EverySample walks every node type of the query language
// (ql.Samples, which a test of package query keeps complete) through the
// LogsQL compiler, so that an operator cannot be added without it. What
// LogsQL cannot express is listed here, and its error must name the
// operator.
func TestLogsQL_EverySample(t *testing.T) {
	cannot := map[string]string{
		`physcs~1`:  "fuzzy terms (~)",
		`/null.*/`:  "a regular expression over words",
		`run:>=1<2`: "run: ranges are for time only",
	}
	for _, n := range ql.Samples() {
		name := ql.String(n)
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%v", r)
				}
			}()
			e, err := toLogsQL(n)
			want, listed := cannot[name]
			switch {
			case err != nil && !listed:
				t.Fatalf("%v; a node LogsQL cannot express is listed in this test", err)
			case err != nil && !strings.Contains(err.Error(), want):
				t.Fatalf("%v, want an error naming %q", err, want)
			case err == nil && listed:
				t.Fatalf("= %s, listed as having no LogsQL: take it off the list", e)
			case err == nil && e == "":
				t.Fatal("no filter")
			}
		})
	}
}
