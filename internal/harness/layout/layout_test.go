package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// root is the module's root, two folders up.
const root = "../../.."

type sized struct {
	name  string
	lines int
}

func TestLayout(t *testing.T) {
	fset := token.NewFileSet()
	var files, funcs []sized
	documented := map[string]bool{} // package dir -> has a package comment
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// third_party holds others' code as they wrote it (with
			// mcplogd's changes marked, see its MCPLOGD.md).
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata" || n == "third_party") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.Dir(rel)
		documented[dir] = documented[dir] || f.Doc != nil
		files = append(files, sized{rel, fset.Position(f.End()).Line})
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) > 0 {
				name = recvName(fn.Recv.List[0].Type) + "." + name
			}
			funcs = append(funcs, sized{rel + ": " + name, n})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("read only %d Go files under %s; is the test running in the module?", len(files), root)
	}
	check := func(what string, list []sized, limit int) {
		sort.Slice(list, func(i, j int) bool { return list[i].lines > list[j].lines })
		for i, s := range list {
			if s.lines > limit {
				t.Errorf("%s %s has %d lines; the limit is %d", what, s.name, s.lines, limit)
			} else if i < 5 {
				t.Logf("%s %s: %d lines", what, s.name, s.lines)
			}
		}
	}
	check("file", files, MaxFileLines)
	check("function", funcs, MaxFuncLines)
	for dir, ok := range documented {
		if !ok {
			t.Errorf("package %s has no package comment (put one in its doc.go)", dir)
		}
	}
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}
