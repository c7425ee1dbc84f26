package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// compileErr is the error of compiling s as Search compiles it.
func compileErr(an analyzers, s string) error {
	c, err := an.compile(&oplog.SearchQuery{Query: s})
	if err != nil {
		return err
	}
	if _, err := an.evaluator(newMapping()).compileEval(c); err != nil {
		return oplog.Errorf(oplog.EINVALID, "query: %v", err)
	}
	return nil
}

// TestCompile_Errors checks the errors of compile: EINVALID, naming what
// is wrong.
func TestCompile_Errors(t *testing.T) {
	an := newAnalyzers(newMapping())
	f := func(s, want string) {
		t.Helper()
		err := compileErr(an, s)
		if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(oplog.ErrorMessage(err), want) {
			t.Fatalf("compile(%q): got %v, want EINVALID with %q", s, err, want)
		}
	}
	f(`bogus:x`, `unknown field "bogus"`)
	f(`a:1.5`, `unknown field "a"; fields are text, stack, name, level, source, kind, tool, status, replayOf, run, template and time`)
	f(`time:2026`, `time takes a date range`)
	f(`time:>=2026-01-01`, `at character 6: time:>= takes a quoted time, such as time:>="2026-05-01T12:00:00Z"`)
	f(`name:Physics AND (level:error`, "at character 18: '(' is never closed")
	f(`a OR`, "OR needs a term after it")
	f(`AND a`, "AND needs a term before it")
	f(`a ) b`, "')' without a '('")
	f(`text:"open`, "never closed")
	f(`level:`, "at character 7: level: has no value; write one right after the colon, such as level:error")
	f(`name:`, "at character 6: name: has no value; write one right after the colon, such as name:Physics")
	f(`"a b"~1`, "a phrase takes no fuzziness (~)")
	f(`text:"a b"~1`, "a phrase takes no fuzziness (~)")
	f(`to`, "query: `to` is too common to search (it is left out of the index, so alone it matches nothing); add a rarer word or a phrase around it")
	f(`"of the" OR a`, "query: `of`, `the` and `a` are too common to search")
	f(`text:/[/`, `at character 6: regular expression /[/: missing closing ]: [`)

	// An unknown value of level, kind or status lists the values, and
	// points at it.
	g := func(s string, col int, what string) {
		t.Helper()
		err := compileErr(an, s)
		want := fmt.Sprintf("query: bad value at character %d: %s\n  %s\n  %s^", col, what, s, strings.Repeat(" ", col-1))
		if oplog.ErrorCode(err) != oplog.EINVALID || oplog.ErrorMessage(err) != want {
			t.Fatalf("compile(%q): got %v, want EINVALID with\n%s", s, err, want)
		}
	}
	levels := "expected debug, info, warn, error or fatal"
	g(`level:bogus`, 7, `unknown level "bogus"; `+levels)
	g(`name:Physics AND (level:Bogus OR x)`, 25, `unknown level "Bogus"; `+levels)
	g(`a -level:bogus`, 10, `unknown level "bogus"; `+levels)
	g(`é +level:"so bad"`, 10, `unknown level "so bad"; `+levels) // characters, not bytes
	g(`level:exc*`, 7, `unknown level "exc*"; `+levels)           // matches no value as indexed
	g(`level:/x.*/`, 7, `unknown level "/x.*/"; `+levels)
	g(`level:>=3`, 7, `unknown level ">=3"; `+levels)
	g(`kind:x`, 6, `unknown kind "x"; expected line, op, marker or any`)
	g(`status:x`, 8, `unknown status "x"; expected pending, success, error, timeout, cancelled or crashed`)
	g(`status:3`, 8, `unknown status "3"; expected pending, success, error, timeout, cancelled or crashed`)
	g(`NOT status:running OR status:finished`, 30, `unknown status "finished"; expected pending, success, error, timeout, cancelled or crashed`)
	g(`x stack:/a**/`, 9, "regular expression /a**/: invalid nested repetition operator: **")
	f(strings.Repeat("a", maxQueryBytes+1), "query: 4097 bytes is over the limit of 4096")
	f("\xff", "query: not valid UTF-8")
}

func FuzzQuery(f *testing.F) {
	for _, s := range []string{`level:error AND name:Physics "null reference"`, `a OR (b AND NOT c)`, `time:>"2026-01-01"`,
		`text:/ab+c/`, `x~2 y^3 -z +w`, `"unterminated`, `((a)`, `\(a\)`, `name:"a b" OR kind:op`, `a:1.5`, `status:>=3`,
		`level:bogus`, `Physi* text:/N[a-z]+Ex/ level:ERR*`, `kind:any`, `level:"warning"`, `/(a|aa)*b/`, `abc~3`, `/`,
		`a/b/ -/(x)/ name:/(y) z/`} {
		f.Add(s)
	}
	an := newAnalyzers(newMapping())
	f.Fuzz(func(t *testing.T, s string) {
		err := compileErr(an, s)
		if err != nil && (oplog.ErrorCode(err) != oplog.EINVALID || strings.Contains(err.Error(), "runtime error")) {
			t.Fatalf("%q: %v (code %s), want EINVALID saying what is wrong", s, err, oplog.ErrorCode(err))
		}
	})
}
