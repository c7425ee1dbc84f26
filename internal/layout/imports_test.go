package layout

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcplogd/mcplogd/"

// allowed lists, for each package ARCHITECTURE.md gives rules to, the
// module's packages it may import (tests aside).
var allowed = map[string][]string{
	"oplog":       {"oplog/query"},
	"oplog/query": {},
	"migrations":  {},
	"store":       {"oplog", "migrations", "internal/codec"},
	"search":      {"oplog", "oplog/query"},
	"crash":       {"oplog"},
	"gateway":     {"oplog"},
	"follow":      {"oplog"},
	"otlp":        {"oplog"},
	"metrics":     {"oplog"},
	"studio":      {"oplog", "oplog/query"},
	"mcptools":    {"oplog"},
	"client":      {"oplog", "mcptools"},
	"api":         {"oplog", "mcptools", "client", "ui"},
}

// forbidden lists what a package must not link, directly or not.
var forbidden = map[string][]string{
	"oplog":       {"."}, // anything with a dot in its first element: not the standard library
	"oplog/query": {"."},
	"client":      {"github.com/labstack/", "github.com/prometheus/", "google.golang.org/grpc", "github.com/blevesearch/", "go.etcd.io/bbolt"},
	"api":         {"github.com/prometheus/", "google.golang.org/grpc", "google.golang.org/protobuf", "go.opentelemetry.io/"},
}

// TestImports keeps the import rules of ARCHITECTURE.md: adapters see only
// oplog (and oplog/query, the query language), api sees neither otlp nor metrics, the client links no server
// dependency.
func TestImports(t *testing.T) {
	for pkg, ok := range allowed {
		for _, imp := range golist(t, "{{join .Imports \"\\n\"}}", pkg) {
			if rel, mine := strings.CutPrefix(imp, module); mine && !slices.Contains(ok, rel) {
				t.Errorf("%s imports %s; it may import only %v of the module", pkg, rel, ok)
			}
		}
	}
	for pkg, bad := range forbidden {
		for _, dep := range golist(t, "{{.ImportPath}}", "-deps", pkg) {
			first, _, _ := strings.Cut(dep, "/")
			for _, b := range bad {
				if b == "." && strings.Contains(first, ".") && !strings.HasPrefix(dep, module) || b != "." && strings.HasPrefix(dep, b) {
					t.Errorf("%s links %s", pkg, dep)
				}
			}
		}
	}
}

// golist runs go list with a format on the module's package pkg.
func golist(t *testing.T, format string, args ...string) []string {
	t.Helper()
	pkg := args[len(args)-1]
	cmd := exec.Command("go", append(append([]string{"list", "-f", format}, args[:len(args)-1]...), module+pkg)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}
