package oplog

import (
	"fmt"
	"strings"
	"testing"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// TestParseQuery checks the values of level, kind and status: spelled as
// stored, any for every record, a bad one pointed at.
func TestParseQuery(t *testing.T) {
	f := func(s, want string) {
		t.Helper()
		n, err := ParseQuery(s)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", s, err)
		}
		if got := ql.String(n); got != want {
			t.Fatalf("ParseQuery(%q) = %s, want %s", s, got, want)
		}
	}
	f(`level:Warning`, `level:warn`)
	f(`level:exception kind:operation status:ok`, `and(level:error kind:op status:success)`)
	f(`level:"Warning"`, `level:"warn"`)
	f(`kind:any -kind:all`, `and(* not(*))`)
	f(`level:ERR*`, `level:ERR*`) // matches a value: as written, compilers fold its case
	f(`level:eror~1`, `level:eror~1`)
	f(`name:Warning`, `name:Warning`)

	g := func(s string, col int, what string) {
		t.Helper()
		_, err := ParseQuery(s)
		want := fmt.Sprintf("query: bad value at character %d: %s\n  %s\n  %s^", col, what, s, strings.Repeat(" ", col-1))
		if ErrorCode(err) != EINVALID || ErrorMessage(err) != want {
			t.Fatalf("ParseQuery(%q): got %v, want EINVALID with\n%s", s, err, want)
		}
	}
	levels := "expected debug, info, warn, error or fatal"
	g(`level:bogus`, 7, `unknown level "bogus"; `+levels)
	g(`é +level:"so bad"`, 10, `unknown level "so bad"; `+levels)
	g(`level:exc*`, 7, `unknown level "exc*"; `+levels)
	g(`level:/x.*/`, 7, `unknown level "/x.*/"; `+levels)
	g(`level:>=3`, 7, `unknown level ">=3"; `+levels)
	g(`status:3`, 8, `unknown status "3"; expected pending, success, error, timeout, cancelled or crashed`)
	f(`template:3F2A9C1B7D0E`, `template:3f2a9c1b7d0e`)
	f(`template:"3f2a9c1b7d0e"`, `template:3f2a9c1b7d0e`)
	f(`template:123456789012`, `template:123456789012`)
	f(`template:3f2A*`, `template:3f2a*`)
	tmpl := func(v string) string {
		return fmt.Sprintf("template takes a template ID, 12 hex digits (template:3f2a9c1b7d0e), or the start of one (template:3f2a*), not %q", v)
	}
	g(`template:3f2a9c1b7d0`, 10, tmpl("3f2a9c1b7d0"))
	g(`a template:nothex000000`, 12, tmpl("nothex000000"))
	g(`template:3f2a9c1b7d0e~1`, 10, tmpl("3f2a9c1b7d0e~1"))
	g(`template:>=3`, 10, tmpl(">=3"))
	g(`template:xyz*`, 10, tmpl("xyz*"))
	g(`template:*ffff`, 10, tmpl("*ffff"))
	g(`template:3f?a*`, 10, tmpl("3f?a*"))
	g(`template:/3f.*/`, 10, tmpl("/3f.*/"))
	if n, err := ParseQuery(`template:*`); err != nil {
		t.Fatalf("ParseQuery(template:*): %v", err)
	} else if p, ok := n.(*ql.Prefix); !ok || p.Field != ql.TemplateField || p.Prefix != "" {
		t.Fatalf("ParseQuery(template:*) = %#v; want any template, the prefix \"\"", n)
	}
	if _, err := ParseQuery(`a OR`); ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), "OR needs a term after it") {
		t.Fatalf("syntax error: %v", err)
	}
}
