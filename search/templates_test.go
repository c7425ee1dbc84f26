package search_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// letters spells k in the letters a to z, so that each k's text has a
// template of its own (Template blanks numbers).
func letters(k int) string {
	var b []byte
	for k++; k > 0; k /= 26 {
		b = append(b, byte('a'+(k-1)%26))
	}
	return string(b)
}

// A leaf on template finds the records of its template only, though other
// templates share its first digits, in growing and stored sets; a pattern
// that does not start with the digits is refused.
func TestIndex_Search_TemplateBuckets(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	// Texts of distinct templates until two share a bucket; each text
	// three times over the log.
	var texts []string
	first := map[string]string{} // bucket -> the text that took it
	var a, b string
	for k := 0; a == ""; k++ {
		text := "loaded asset " + letters(k)
		id := oplog.TextTemplateID(text)
		if other, ok := first[id[:3]]; ok {
			a, b = other, text
		}
		first[id[:3]] = text
		texts = append(texts, text)
	}
	var recs []oplog.Record
	for range 3 {
		for _, text := range texts {
			recs = append(recs, oplog.Record{Level: oplog.LevelInfo, Name: "Assets", Text: text})
		}
	}
	logtest.MustAppend(t, e.log, recs...)
	idA, idB := oplog.TextTemplateID(a), oplog.TextTemplateID(b)
	tmpl := func(r *oplog.Record) string { return oplog.TextTemplateID(r.Text) }
	cases := []struct {
		query string
		keep  func(r *oplog.Record) bool
	}{
		{"template:" + idA, func(r *oplog.Record) bool { return tmpl(r) == idA }},
		{"template:" + strings.ToUpper(idB), func(r *oplog.Record) bool { return tmpl(r) == idB }},
		{"template:" + idA[:2] + "*", func(r *oplog.Record) bool { return strings.HasPrefix(tmpl(r), idA[:2]) }},
		{"template:" + idA[:3] + "*", func(r *oplog.Record) bool { return strings.HasPrefix(tmpl(r), idA[:3]) }},
		{"template:" + idB[:5] + "*", func(r *oplog.Record) bool { return strings.HasPrefix(tmpl(r), idB[:5]) }},
		{"template:*", func(r *oplog.Record) bool { return tmpl(r) != "" }},
		{"asset -template:" + idA, func(r *oplog.Record) bool { return tmpl(r) != idA }},
	}
	run := func(stage string) {
		for _, c := range cases {
			t.Run(stage+"/"+c.query, func(t *testing.T) {
				e := *e
				e.t = t
				e.check(oplog.SearchQuery{Query: c.query, Limit: 7}, c.keep)
			})
		}
	}
	for _, q := range []string{"template:*" + idB[9:], "template:" + idA[:3] + "*" + idA[11:], "template:/" + idB[:4] + ".*/"} {
		if _, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: q}); oplog.ErrorCode(err) != oplog.EINVALID ||
			!strings.Contains(oplog.ErrorMessage(err), "or the start of one") {
			t.Errorf("search %q: %v; want the template pattern refused", q, err)
		}
	}
	run("above the watermark")
	e.waitIndexed()
	run("in the sets file")
}
