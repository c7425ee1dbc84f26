package query

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSamples_EveryNode fails when a type of this package is a Node (it
// has the node method) and no tree of Samples holds one: every compiler's
// test walks Samples, so a new node type must be added there, and then to
// every compiler.
func TestSamples_EveryNode(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	for _, name := range names {
		f, err := parser.ParseFile(gotoken.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "node" {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				types[star.X.(*ast.Ident).Name] = true
			}
		}
	}
	if len(types) < 12 {
		t.Fatalf("found %d node types, want at least 12: %v", len(types), types)
	}
	seen := map[string]bool{}
	var walk func(Node)
	walk = func(n Node) {
		seen[reflect.TypeOf(n).Elem().Name()] = true
		switch n := n.(type) {
		case *And:
			for _, sub := range n.Nodes {
				walk(sub)
			}
		case *Or:
			for _, sub := range n.Nodes {
				walk(sub)
			}
		case *Not:
			walk(n.Node)
		}
	}
	for _, n := range Samples() {
		walk(n)
		if s := String(n); s == "" {
			t.Errorf("%T renders as nothing", n)
		}
	}
	for name := range types {
		if !seen[name] {
			t.Errorf("node type %s is in no tree of Samples", name)
		}
	}
}
