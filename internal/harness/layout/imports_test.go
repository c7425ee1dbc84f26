package layout

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcplogd/mcplogd/"

// domain is what every adapter may import: oplog (records, filters, the
// Log service), oplog/query (the query language's tree and parser) and crash (what a crash is: signatures, titles, classes,
// and the in-memory index that needs nothing else), both linking the
// standard library only, so an adapter that imports them takes on no
// other adapter's dependencies.
var domain = []string{"oplog", "oplog/query", "crash"}

// adapter is domain and extra.
func adapter(extra ...string) []string { return append(slices.Clip(domain), extra...) }

// allowed lists, for each package ARCHITECTURE.md gives rules to, the
// module's packages it may import (tests aside).
var allowed = map[string][]string{
	"oplog":       {"oplog/query"},
	"oplog/query": {},
	"crash":       {"oplog", "oplog/query"},
	"migrations":  {},
	"store":       adapter("migrations", "internal/codec", "internal/atomicfile"),
	"search":      adapter("internal/atomicfile", "third_party/zapx"),
	"gateway":     adapter("internal/shellwords", "internal/backoff"),
	"follow":      adapter(),
	"otlp":        adapter(),
	"metrics":     adapter(),
	"studio":      adapter("internal/atomicfile", "internal/backoff"),
	"mcptools":    adapter(),
	"client":      {"oplog", "oplog/query"},
	"api":         adapter("mcptools", "client", "ui"),
	// The tools over a running server: MCP lives here so client need not.
	"mcptools/remote": adapter("mcptools", "client"),
	// Basement libraries several packages share: they import nothing of
	// the module, so any package may import them.
	"internal/shellwords": {},
	"internal/backoff":    {},
}

// forbidden lists what a package must not link, directly or not.
var forbidden = map[string][]string{
	"oplog":       {"."}, // anything with a dot in its first element: not the standard library
	"oplog/query": {"."},
	"crash":       {"."}, // domain too: adapters may import it (but for allowedOutside)
	// A program that only writes to a running mcplogd links net/http,
	// encoding/json and oplog: no Echo, Prometheus, gRPC, bleve, bbolt,
	// nor the MCP SDK (that is mcptools/remote's).
	"client": {"."},
	"api":    {"github.com/prometheus/", "google.golang.org/grpc", "google.golang.org/protobuf", "go.opentelemetry.io/"},
	// The basement links the standard library only, so the domain's
	// adapters that import it take on nothing else.
	"internal/shellwords": {"."},
	"internal/backoff":    {"."},
}

// allowedOutside lists what a package forbidden anything outside the
// standard library may link all the same: crash reads C++'s mangled names
// with a demangler that links only the standard library itself.
var allowedOutside = map[string][]string{
	"crash": {"github.com/ianlancetaylor/demangle"},
}

// TestImports keeps the import rules of ARCHITECTURE.md: adapters see only
// the domain (oplog, oplog/query, crash), api sees neither otlp nor
// metrics, the client links nothing but the standard library and oplog.
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
			if slices.Contains(allowedOutside[pkg], dep) {
				continue
			}
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

// harness is where the test harness lives: stores seeded for tests, real
// VictoriaLogs processes, the fault-injection suite, this package.
const harness = "internal/harness/"

// TestHarnessOnlyInTests keeps internal/ split in two: the libraries the
// product links (internal/*) and the harness (internal/harness/*), which
// only tests, the harness itself and the test helpers of other packages
// (api/apitest) import.
func TestHarnessOnlyInTests(t *testing.T) {
	for _, line := range golist(t, "{{.ImportPath}}:{{join .Imports \",\"}}", "...") {
		pkg, imps, _ := strings.Cut(line, ":")
		rel := strings.TrimPrefix(pkg, module)
		if strings.HasPrefix(rel, harness) || strings.HasSuffix(rel, "test") {
			continue
		}
		for _, imp := range strings.Split(imps, ",") {
			if strings.HasPrefix(imp, module+harness) {
				t.Errorf("%s imports %s outside its tests: the harness is for tests", rel, strings.TrimPrefix(imp, module))
			}
		}
	}
}
