package search

import (
	"fmt"
	"testing"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// TestCompilers_EverySample walks every node type of the query language
// (ql.Samples, which a test of package query keeps complete) through the
// two compilers of this package: the predicate on records (eval.go) and
// the test of chunks' term sets (terms_pred.go). A
// node type that one of them lacks panics there ("BUG: … no … of") and
// fails here, so that an operator cannot be half added.
func TestCompilers_EverySample(t *testing.T) {
	an := newAnalyzers(newMapping())
	m := newMapping()
	for _, n := range ql.Samples() {
		name := ql.String(n)
		t.Run(name, func(t *testing.T) {
			compile := func(what string, f func() error) {
				t.Helper()
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s: %v", what, r)
					}
				}()
				if err := f(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			ev := an.evaluator(m)
			compile("eval", func() error {
				p, err := ev.eval(n)
				if err == nil && p == nil {
					err = fmt.Errorf("no predicate")
				}
				return err
			})
			compile("terms", func() error {
				if (chunkCompiler{ev.matchers}).chunk(n) == nil {
					return fmt.Errorf("no chunk predicate")
				}
				return nil
			})
		})
	}
}
