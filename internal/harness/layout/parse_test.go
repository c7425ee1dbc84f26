package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestQueryParsedInOplog: no package but oplog parses a query string
// (oplog.ParseQuery, or oplog/query's Parse): oplog.Resolve parses it once
// a request, and the surfaces compile its tree. internal/harness/querytest, the
// tests' table of queries, checks its own strings and is left out.
func TestQueryParsedInOplog(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata" || n == "third_party") ||
				rel == "oplog" || rel == filepath.Join("internal", "harness", "querytest") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, c := range parseCalls(f) {
			t.Errorf("%s: calls %s: only oplog parses a query (oplog.Resolve sets SearchQuery.Tree)", fset.Position(c.Pos()), c.Sel.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// parseCalls returns f's calls of oplog.ParseQuery and of oplog/query's Parse.
func parseCalls(f *ast.File) []*ast.SelectorExpr {
	names := map[string]string{} // import name -> the function that parses
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch {
		case strings.HasSuffix(p, "/oplog"):
			names[name] = "ParseQuery"
		case strings.HasSuffix(p, "/oplog/query"):
			names[name] = "Parse"
		}
	}
	var out []*ast.SelectorExpr
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] != "" && names[x.Name] == sel.Sel.Name {
				out = append(out, sel)
			}
		}
		return true
	})
	return out
}
