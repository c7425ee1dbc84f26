package zap_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	zap "github.com/mcplogd/mcplogd/third_party/zapx"
)

// The copy is zapx/v17 at zap.Upstream with upstream.patch applied
// (MCPLOGD.md). These tests keep it so: the release is the one bleve
// requires, the patch makes the copy from that release, and upstream's own
// tests pass on it. They fetch the release through the module proxy (go mod
// download), as the build does.

// ours are the files of the copy that are not upstream's.
var ours = map[string]bool{"MCPLOGD.md": true, "staticcheck.conf": true, "upstream.patch": true, "version.go": true}

// TestUpstream_Required: the copy is the zapx/v17 release that go.mod
// requires (bleve's), so that a bleve upgrade that moves zapx on is not
// missed: scripts/zapx-update moves the copy.
func TestUpstream_Required(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/blevesearch/zapx/v17 (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod requires no github.com/blevesearch/zapx/v17")
	}
	if got := string(m[1]); got != zap.Upstream {
		t.Fatalf("go.mod requires zapx/v17 %s, third_party/zapx is %s: run scripts/zapx-update %s", got, zap.Upstream, got)
	}
}

// TestUpstream_Patch: upstream.patch applied to the release's files
// (without its tests and cmd) gives the copy, file for file.
func TestUpstream_Patch(t *testing.T) {
	dir := patched(t, false)
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		name := f.Name()
		if f.IsDir() || ours[name] || strings.HasSuffix(name, "_test.go") {
			continue
		}
		seen[name] = true
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s is in the copy, not in %s patched: %v", name, zap.Upstream, err)
			continue
		}
		if got, _ := os.ReadFile(name); !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s patched: a change made without upstream.patch (regenerate it: MCPLOGD.md)", name, zap.Upstream)
		}
	}
	made, _ := os.ReadDir(dir)
	for _, f := range made {
		if !seen[f.Name()] {
			t.Errorf("%s of %s patched is not in the copy", f.Name(), zap.Upstream)
		}
	}
}

// TestUpstream_Tests runs zapx's own tests on the release patched: the
// change keeps every promise upstream tests for.
func TestUpstream_Tests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs zapx's tests (about 15 s)")
	}
	dir := patched(t, true)
	cmd := exec.Command("go", "test", "-count=1", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zapx %s's tests on the patched copy: %v\n%s", zap.Upstream, err, out)
	}
}

// patched returns a new folder with the release's files, with its tests
// and module files when all, and upstream.patch applied.
func patched(t *testing.T, all bool) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/blevesearch/zapx/v17@"+zap.Upstream).Output()
	if err != nil {
		t.Fatalf("go mod download zapx/v17@%s: %v", zap.Upstream, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download zapx/v17@%s: %v %s", zap.Upstream, err, out)
	}
	files, err := os.ReadDir(mod.Dir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range files {
		name := f.Name()
		keep := !f.IsDir() && (strings.HasSuffix(name, ".go") || name == "LICENSE" || name == "README.md")
		if strings.HasSuffix(name, "_test.go") || name == "go.mod" || name == "go.sum" {
			keep = all && !f.IsDir()
		}
		if !keep {
			continue
		}
		b, err := os.ReadFile(filepath.Join(mod.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	patch, err := filepath.Abs("upstream.patch")
	if err != nil {
		t.Fatal(err)
	}
	apply := exec.Command("git", "apply", patch)
	apply.Dir = dir
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("upstream.patch does not apply to zapx %s: %v\n%s", zap.Upstream, err, out)
	}
	return dir
}
