package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository's root, two folders up.
const root = "../.."

// configFiles are the files the release check reads, which each test copies before breaking one.
var configFiles = []string{
	configPath, "scripts/release/formula.rb.tmpl", "scripts/release/scoop.json.tmpl",
	"Makefile", "go.mod", "README.md",
	packScript, launcherDir + "/package.json", launcherDir + "/README.md",
	workflowPath, publishScript,
}

// copyConfig copies the release configuration into a temporary root.
func copyConfig(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found: the check asks npm/pack.mjs for its plan")
	}
	dir := t.TempDir()
	for _, f := range configFiles {
		src := filepath.Join(root, f)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// edit replaces old with new everywhere in the file of dir, which must contain it.
func edit(t *testing.T, dir, file, old, new string) {
	t.Helper()
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q: the test is out of date", file, old)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkCopy runs the check on a copy with stand-in binaries (no Go build).
func checkCopy(dir string) error {
	return check(&Options{Root: dir, Stamp: "v1.2.3", StandIn: true, Out: io.Discard})
}

func TestCheck_OK(t *testing.T) {
	if err := checkCopy(copyConfig(t)); err != nil {
		t.Fatalf("the repository's release configuration fails its check:\n%v", err)
	}
}

// TestCheck_Broken breaks one thing at a time in a copy of the configuration and wants the
// check to fail, naming it.
func TestCheck_Broken(t *testing.T) {
	const all = "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"
	tests := []struct {
		name, file, old, new, want string
	}{
		{"MakefileTargets", "Makefile", "DIST_ALL_TARGETS = " + all, "DIST_ALL_TARGETS = linux/amd64 linux/arm64 darwin/amd64 windows/amd64",
			"DIST_ALL_TARGETS and scripts/release/config.json's targets differ: lacks darwin/arm64"},
		{"MakefileNpmDefault", "Makefile", "DIST_TARGETS ?= $(HOST_TARGET)", "DIST_TARGETS ?= $(DIST_ALL_TARGETS)", "DIST_TARGETS defaults to"},
		{"MakefileCheck", "Makefile", " interop release-check\n", " interop\n", "check does not depend on release-check"},
		{"MakefileRelease", "Makefile", "./scripts/release build", "./scripts/dist", "target release does not run ./scripts/release build"},
		{"ConfigTarget", configPath, `"windows/amd64"]`, `"windows/amd64", "linux/386"]`, `targets[5]: "linux/386" is not one of`},
		{"ConfigTwice", configPath, `"windows/amd64"]`, `"windows/amd64", "linux/amd64"]`, `targets[5]: "linux/amd64" is listed twice`},
		{"ConfigUnknownField", configPath, `"license": ""`, `"licence": ""`, `unknown field "licence"`},
		{"ConfigDescription", configPath, `"Flight recorder`, `"A flight recorder`, "description: \"A flight recorder for game engines' logs and MCP debug servers\" starts with an article"},
		{"ConfigModule", configPath, `"module": "github.com/mcplogd/mcplogd"`, `"module": "github.com/mcplogd/other"`, `module: "github.com/mcplogd/other" is not github.com/mcplogd/mcplogd`},
		{"ConfigTemplate", configPath, `"template": "formula.rb.tmpl"`, `"template": "brew.rb.tmpl"`, `homebrew.template: "brew.rb.tmpl" is not a file`},
		{"GoMod", "go.mod", "module github.com/mcplogd/mcplogd", "module example.com/mcplogd", "go.mod's module is not"},
		{"LauncherLacksPlatform", launcherDir + "/package.json", `"@mcplogd/win32-x64": "0.0.0"`, `"@mcplogd/win32-x86": "0.0.0"`,
			"optionalDependencies lack @mcplogd/win32-x64"},
		{"LauncherExtraPlatform", launcherDir + "/package.json", `"@mcplogd/linux-x64": "0.0.0",`, `"@mcplogd/linux-x64": "0.0.0", "@mcplogd/linux-riscv64": "0.0.0",`,
			"has @mcplogd/linux-riscv64 too"},
		{"LauncherVersions", launcherDir + "/package.json", `"@mcplogd/linux-x64": "0.0.0"`, `"@mcplogd/linux-x64": "1.0.0"`, "names @mcplogd/linux-x64@1.0.0, the launcher is 0.0.0"},
		{"LauncherRepository", launcherDir + "/package.json", `"git+https://github.com/mcplogd/mcplogd.git"`, `"git+https://github.com/someone/mcplogd.git"`,
			"npm publish --provenance refuses a package from another repository"},
		{"LauncherReadme", launcherDir + "/README.md", "`@mcplogd/darwin-x64`", "darwin-x64", "README.md does not name the package @mcplogd/darwin-x64"},
		{"PackTable", packScript, "arm64: 'arm64'", "arm: 'arm'", "no npm package for linux/arm64"},
		{"WorkflowTags", workflowPath, "- 'v*'", "- 'release-*'", "does not run on a push of a tag v*"},
		{"WorkflowIDToken", workflowPath, "id-token: write", "id-token: read", "does not have permissions id-token: write"},
		{"WorkflowSetupNode", workflowPath, "registry-url: https://registry.npmjs.org", "always-auth: true", "does not set up Node for npm's registry"},
		{"WorkflowBuild", workflowPath, `make release TAG="$GITHUB_REF_NAME"`, "make dist-all", "does not build with make release TAG="},
		{"WorkflowNPM", workflowPath, "scripts/release-publish npm", "npm publish", "does not publish the npm packages"},
		{"WorkflowSecret", workflowPath, "secrets.NPM_TOKEN", "secrets.NPM", "does not give npm the secret NPM_TOKEN"},
		{"PublishProvenance", publishScript, "npm publish --provenance --access public", "npm publish --access public",
			"does not publish with npm publish --provenance --access public"},
		{"FormulaURL", "scripts/release/formula.rb.tmpl", "url {{ ruby .URL }}", "url {{ ruby .Name }}", "darwin/amd64's url is mcplogd_1.2.3_darwin_amd64.tar.gz, not https://github.com/"},
		{"FormulaSHA", "scripts/release/formula.rb.tmpl", "sha256 {{ ruby .SHA256 }}", `sha256 "{{ printf "%.63s" .SHA256 }}{{ if eq (slice .SHA256 63) "0" }}1{{ else }}0{{ end }}"`, "darwin/amd64's sha256 is"},
		{"FormulaCPU", "scripts/release/formula.rb.tmpl", "if {{ cpu .Goarch }}", "if Hardware::CPU.intel?", "is under darwin/amd64, which has no archive (or is listed twice)"},
		{"FormulaNoLinux", "scripts/release/formula.rb.tmpl", `range .Archives "linux"`, `range .Archives "freebsd"`, "has no url for linux/amd64"},
		{"FormulaUnclosed", "scripts/release/formula.rb.tmpl", "  end\n\n  test do", "\n  test do", "blocks are not closed with end"},
		{"FormulaField", "scripts/release/formula.rb.tmpl", "{{ .Class }}", "{{ .Klass }}", "rendering formula.rb.tmpl"},
		{"ManifestJSON", "scripts/release/scoop.json.tmpl", `"hash": {{ json $a.SHA256 }}`, `"hash": {{ json $a.SHA256 }},`, "is not valid JSON"},
		{"ManifestArch", "scripts/release/scoop.json.tmpl", `{{ json (scoopArch $a.Goarch) }}`, `"32bit"`, `architecture has no "64bit"`},
		{"ManifestHash", "scripts/release/scoop.json.tmpl", `{{ json $a.SHA256 }}`, `{{ json $a.Name }}`, "architecture 64bit: hash is \"mcplogd_1.2.3_windows_amd64.zip\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyConfig(t)
			edit(t, dir, tt.file, tt.old, tt.new)
			err := checkCopy(dir)
			if err == nil {
				t.Fatalf("the check passed with %s broken (%q → %q)", tt.file, tt.old, tt.new)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("the check's error does not say %q:\n%v", tt.want, err)
			}
		})
	}
}

func TestCheck_Missing(t *testing.T) {
	for _, f := range []string{workflowPath, publishScript, launcherDir + "/README.md"} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			dir := copyConfig(t)
			if err := os.Remove(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
			if err := checkCopy(dir); err == nil || !strings.Contains(err.Error(), filepath.Base(f)) {
				t.Fatalf("without %s: the check's error is %v", f, err)
			}
		})
	}
}

func TestCheck_LicenseWithoutSPDX(t *testing.T) {
	dir := copyConfig(t)
	if err := os.WriteFile(filepath.Join(dir, "LICENSE"), []byte("license text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkCopy(dir); err == nil || !strings.Contains(err.Error(), "license is empty, but LICENSE exists") {
		t.Fatalf("the check's error is %v", err)
	}
	edit(t, dir, configPath, `"license": ""`, `"license": "MIT"`)
	if err := checkCopy(dir); err != nil {
		t.Fatal(err)
	}
}

func TestCheck_PublishNotExecutable(t *testing.T) {
	dir := copyConfig(t)
	if err := os.Chmod(filepath.Join(dir, publishScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkCopy(dir); err == nil || !strings.Contains(err.Error(), "scripts/release-publish is not executable") {
		t.Fatalf("the check's error is %v", err)
	}
}

func TestRun_Usage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"NoCommand", nil, "give build or check"},
		{"BadCommand", []string{"publish"}, "give build or check"},
		{"BadFlag", []string{"check", "-targets", "x"}, "flag provided but not defined: -targets"},
		{"Argument", []string{"build", "-version", "v1", "linux/amd64"}, `unexpected argument "linux/amd64"`},
		{"BuildNoVersion", []string{"build"}, "give -tag (a release) or -version (a dry run)"},
		{"BuildBoth", []string{"build", "-tag", "v1.2.3", "-version", "x"}, "not both"},
		{"CheckTag", []string{"check", "-tag", "v1.2.3"}, "-tag is build's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(tt.args, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) = %v; want an error saying %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestBuild_TagNotRelease: a tag whose version npm would not take as a release is refused before
// anything is built.
func TestBuild_TagNotRelease(t *testing.T) {
	dir := copyConfig(t)
	for _, tag := range []string{"v1.2", "1.2.3", "v1.2.3-4-g5de4503"} {
		err := run([]string{"build", "-root", dir, "-tag", tag, "-dist", filepath.Join(dir, "dist")}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "is not a release version") {
			t.Errorf("build -tag %s: %v", tag, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "dist")); !os.IsNotExist(err) {
		t.Errorf("a refused build made dist/: %v", err)
	}
}
