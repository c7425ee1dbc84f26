package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// release123 is the release v1.2.3 of the repository's config.json, each archive's checksum
// made up from its name.
func release123(t *testing.T) (*Config, *Release, map[string]string) {
	t.Helper()
	c, err := loadConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, tgt := range c.Targets {
		goos, goarch, _ := strings.Cut(tgt, "/")
		name := c.archiveName("1.2.3", goos, goarch)
		h := sha256.Sum256([]byte(name))
		sums[name] = hex.EncodeToString(h[:])
	}
	return c, newRelease(c, "v1.2.3", "1.2.3", sums), sums
}

// TestRender_Golden renders the formula and the manifest of v1.2.3 (go test -update rewrites
// testdata/) and validates them as build does.
func TestRender_Golden(t *testing.T) {
	c, r, sums := release123(t)
	dir := t.TempDir()
	for _, g := range []struct {
		tmpl, golden string
		validate     func(string, *Release, map[string]string) error
	}{
		{c.Homebrew.Template, "testdata/mcplogd.rb.golden", validateFormula},
		{c.Scoop.Template, "testdata/mcplogd.json.golden", validateManifest},
	} {
		got, err := render(root, g.tmpl, r)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(g.golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(g.golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s renders differently from %s (go test ./scripts/release -run TestRender_Golden -update):\n%s", g.tmpl, g.golden, got)
		}
		path := filepath.Join(dir, filepath.Base(g.golden))
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := g.validate(path, r, sums); err != nil {
			t.Error(err)
		}
	}
}

func TestRubyString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":           `"plain"`,
		`say "hi"`:        `"say \"hi\""`,
		`#{system("x")}`:  `"\#{system(\"x\")}"`,
		`back\slash`:      `"back\\slash"`,
		"line\nbreak\x01": `"line\nbreak\x01"`,
		"engines' logs ✓": `"engines' logs ✓"`,
	} {
		if got := rubyString(in); got != want {
			t.Errorf("rubyString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestFormulaClass(t *testing.T) {
	for in, want := range map[string]string{"mcplogd": "Mcplogd", "foo-bar": "FooBar", "x2": "X2"} {
		if got := formulaClass(in); got != want {
			t.Errorf("formulaClass(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriteArchive: the binary first with mode 0755, then the files; the same inputs give the
// same bytes.
func TestWriteArchive(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho binary\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	c := &Config{Project: "mcplogd", Files: []string{"README.md", "LICENSE*"}}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, goos := range []string{"linux", "windows"} {
		members, err := archiveMembers(c, root, goos, bin)
		if err != nil {
			t.Fatal(err)
		}
		name := c.archiveName("1.2.3", goos, "amd64")
		var sums []string
		for range 2 {
			path := filepath.Join(dir, name)
			if err := writeArchive(path, members, mtime); err != nil {
				t.Fatal(err)
			}
			sum, err := fileSHA256(path)
			if err != nil {
				t.Fatal(err)
			}
			sums = append(sums, sum)
		}
		if sums[0] != sums[1] {
			t.Errorf("%s: two writes differ: %v", name, sums)
		}
		names, modes, content, err := archiveEntries(filepath.Join(dir, name), c.binaryName(goos))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{c.binaryName(goos), "README.md"}; strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("%s holds %q, want %q", name, names, want)
		}
		if modes[0] != 0o755 || modes[1] != 0o644 {
			t.Errorf("%s: modes %v, want 0755 0644", name, modes)
		}
		if string(content) != "#!/bin/sh\necho binary\n" {
			t.Errorf("%s: the binary reads back as %q", name, content)
		}
	}
}

func TestReadChecksums_Bad(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"abc  x.tar.gz\n": `checksums.txt:1: "abc  x.tar.gz" is not "SHA256  NAME"`,
		strings.Repeat("a", 64) + "  x\n" + strings.Repeat("b", 64) + "  x\n": "x is listed twice",
	} {
		path := filepath.Join(dir, "checksums.txt")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readChecksums(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readChecksums(%q) = %v, want %q", content, err, want)
		}
	}
}

// TestPublish_DryRun runs scripts/release-publish with DRY_RUN=1 on an artifacts.json of v1.2.3
// and of v1.2.3-rc.1, and reads the commands it would run.
func TestPublish_DryRun(t *testing.T) {
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: scripts/release-publish needs it", tool)
		}
	}
	c, r, _ := release123(t)
	dir := t.TempDir()
	a := &Artifacts{Project: "mcplogd", Version: r.Version, Tag: r.Tag, Stamp: r.Stamp, NPMTag: "latest",
		Homebrew: Published{c.Homebrew.Repo, c.Homebrew.Path, filepath.Join(dir, "mcplogd.rb")},
		Scoop:    Published{c.Scoop.Repo, c.Scoop.Path, filepath.Join(dir, "mcplogd.json")},
	}
	for _, ar := range r.List {
		a.Release = append(a.Release, filepath.Join(dir, ar.Name))
	}
	a.Release = append(a.Release, filepath.Join(dir, c.checksumsName(r.Version)))
	for _, n := range []string{"@mcplogd/linux-x64", "@mcplogd/win32-x64", "mcplogd"} {
		a.NPM = append(a.NPM, NPMPackage{n, r.Version, filepath.Join(dir, strings.NewReplacer("@", "", "/", "-").Replace(n)+"-1.2.3.tgz")})
	}
	for _, f := range append(append([]string{a.Homebrew.File, a.Scoop.File}, a.Release...), a.NPM[0].File, a.NPM[1].File, a.NPM[2].File) {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	publish := func(a *Artifacts, step string) string {
		t.Helper()
		data, _ := json.Marshal(a)
		path := filepath.Join(dir, "artifacts.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", filepath.Join(root, publishScript), step)
		cmd.Env = append(os.Environ(), "DRY_RUN=1", "ARTIFACTS="+path, "TAP_GITHUB_TOKEN=secret-token")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("scripts/release-publish %s: %v\n%s", step, err, out)
		}
		return string(out)
	}

	npm := publish(a, "npm")
	want := regexp.MustCompile(`(?m)^would run: npm publish --provenance --access public --tag latest \S+/(mcplogd-linux-x64|mcplogd-win32-x64|mcplogd)-1\.2\.3\.tgz$`)
	var order []string
	for _, m := range want.FindAllStringSubmatch(npm, -1) {
		order = append(order, m[1])
	}
	if strings.Join(order, " ") != "mcplogd-linux-x64 mcplogd-win32-x64 mcplogd" {
		t.Errorf("npm publishes %q, want the platform packages, then the launcher:\n%s", order, npm)
	}
	gh := publish(a, "github")
	if !strings.Contains(gh, "would run: gh release create v1.2.3 --verify-tag") || strings.Contains(gh, "--prerelease") ||
		!strings.Contains(gh, "mcplogd_1.2.3_windows_amd64.zip") || !strings.Contains(gh, "mcplogd_1.2.3_checksums.txt") {
		t.Errorf("github:\n%s", gh)
	}
	brew := publish(a, "homebrew")
	if !strings.Contains(brew, "https://x-access-token:***@github.com/mcplogd/homebrew-tap.git") ||
		strings.Contains(brew, "secret-token") || !strings.Contains(brew, "Formula/mcplogd.rb") || !strings.Contains(brew, "push") {
		t.Errorf("homebrew (the token must not show):\n%s", brew)
	}

	a.Tag, a.Version, a.Prerelease, a.NPMTag = "v1.2.3-rc.1", "1.2.3-rc.1", true, "next"
	if out := publish(a, "npm"); !strings.Contains(out, "--tag next") {
		t.Errorf("a prerelease's npm publish:\n%s", out)
	}
	if out := publish(a, "github"); !strings.Contains(out, "--prerelease") {
		t.Errorf("a prerelease's GitHub release:\n%s", out)
	}
	if out := publish(a, "scoop"); strings.Contains(out, "would run") || !strings.Contains(out, "prerelease") {
		t.Errorf("a prerelease must leave the bucket alone:\n%s", out)
	}
}

// TestListFiles: every file with its size, but not the directories npm packed from.
func TestListFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.tar.gz", "homebrew/Formula/x.rb", "npm/packages.json", "npm/linux-x64/bin/mcplogd"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("12345"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	if err := listFiles(&b, dir, func(p string) string { r, _ := filepath.Rel(dir, p); return r }); err != nil {
		t.Fatal(err)
	}
	want := "           5  a.tar.gz\n           5  homebrew/Formula/x.rb\n           5  npm/packages.json\n"
	if b.String() != want {
		t.Errorf("listFiles:\n%s\nwant\n%s", b.String(), want)
	}
}
