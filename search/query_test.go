package search

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

func TestCompile(t *testing.T) {
	an := newAnalyzers(newMapping())
	for _, tc := range []struct {
		query, err string
		terms      []string
	}{
		{query: `level:error AND name:Physics "null reference"`, terms: []string{"null", "reference"}},
		{query: `level:Error name:Physics NOT text:timeout`},
		{query: `(foo OR bar) AND NOT baz`, terms: []string{"foo", "bar"}},
		{query: `time:>"2026-01-01T00:00:00Z" Physi*`},
		{query: `bogus:x`, err: `unknown field "bogus"`},
		{query: `time:2026`, err: `time takes a date range`},
		{query: `name:Physics AND (level:error`, err: "at character 18: '(' is never closed"},
		{query: `a OR`, err: "OR needs a term after it"},
		{query: `AND a`, err: "AND needs a term before it"},
		{query: `a ) b`, err: "')' without a '('"},
		{query: `text:"open`, err: "never closed"},
		{query: `level:`, err: "syntax error"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			c, err := an.compile(&oplog.SearchQuery{Query: tc.query})
			if tc.err != "" {
				if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(oplog.ErrorMessage(err), tc.err) {
					t.Fatalf("got %v, want EINVALID with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.terms != nil && strings.Join(c.terms, ",") != strings.Join(tc.terms, ",") {
				t.Fatalf("terms %v, want %v", c.terms, tc.terms)
			}
		})
	}
}

func FuzzQuery(f *testing.F) {
	for _, s := range []string{`level:error AND name:Physics "null reference"`, `a OR (b AND NOT c)`, `time:>"2026-01-01"`,
		`text:/ab+c/`, `x~2 y^3 -z +w`, `"unterminated`, `((a)`, `\(a\)`, `name:"a b" OR kind:op`, `a:1.5`, `status:>=3`} {
		f.Add(s)
	}
	an := newAnalyzers(newMapping())
	f.Fuzz(func(t *testing.T, s string) {
		_, err := an.compile(&oplog.SearchQuery{Query: s})
		if err != nil && oplog.ErrorCode(err) != oplog.EINVALID {
			t.Fatalf("%q: %v (code %s), want EINVALID", s, err, oplog.ErrorCode(err))
		}
	})
}
