package search

import (
	"github.com/blevesearch/bleve/v2/analysis"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Inflections (ql.Inflections): a bare word on text or stack matches the
// word or its inflections, each an exact term. In the segments that is
// inflectQuery; above the watermark, a matcher of the same words (eval.go)
// and the chunks' test of each (terms_pred.go).

// inflections returns the words a Term of text (no fuzziness, not a
// phrase) matches on a text field: nil when it is not one word, or when
// the word matches only itself.
func inflections(an analysis.Analyzer, text string) []string {
	toks := an.Analyze([]byte(text))
	if len(toks) != 1 {
		return nil
	}
	if forms := ql.Inflections(string(toks[0].Term)); len(forms) > 1 {
		return forms
	}
	return nil
}
