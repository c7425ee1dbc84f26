package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The files the check reads besides config.json and its templates, relative to the root.
const (
	launcherDir   = "npm/mcplogd"
	packScript    = "npm/pack.mjs"
	workflowPath  = ".github/workflows/release.yml"
	publishScript = "scripts/release-publish"
)

// npmPlan is npm/pack.mjs --plan's answer: the packages' version and the packages it would pack,
// in publishing order, the launcher last.
type npmPlan struct {
	Version  string `json:"version"`
	Packages []struct {
		Name     string `json:"name"`
		Target   string `json:"target"`
		Launcher bool   `json:"launcher"`
		File     string `json:"file"`
	} `json:"packages"`
}

// readPlan asks npm/pack.mjs what it packs for stamp and targets, so that its platform table and
// version rule are used, never copied.
func readPlan(root, stamp string, targets []string) (*npmPlan, error) {
	cmd := exec.Command("node", append([]string{packScript, "--plan", stamp}, targets...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node %s --plan %s: %v: %s", packScript, stamp, err, strings.TrimSpace(stderr.String()))
	}
	var p npmPlan
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, fmt.Errorf("node %s --plan: %w", packScript, err)
	}
	if n := len(p.Packages); n != len(targets)+1 || !p.Packages[n-1].Launcher {
		return nil, fmt.Errorf("node %s --plan lists %d packages for %d targets: want one per target, then the launcher", packScript, n, len(targets))
	}
	for i, t := range targets {
		if p.Packages[i].Target != t || p.Packages[i].Launcher {
			return nil, fmt.Errorf("node %s --plan: package %d is %s (%s), not %s's", packScript, i, p.Packages[i].Name, p.Packages[i].Target, t)
		}
	}
	return &p, nil
}

// checkStatic checks that the files which name the release's targets, repository and commands
// agree with config.json and plan (nil: npm/pack.mjs could not make one, and the launcher is
// left unchecked); every disagreement is an error of its own.
func checkStatic(root string, c *Config, plan *npmPlan) error {
	var launcher error
	if plan != nil {
		launcher = checkLauncher(root, c, plan)
	}
	return errors.Join(
		checkMakefile(root, c),
		checkGoMod(root, c),
		launcher,
		checkLicense(root, c),
		checkWorkflow(root),
		checkPublishScript(root),
	)
}

// makeVar answers the value of a Makefile variable set with =, := or ?= (continuations joined).
func makeVar(makefile, name string) (string, bool) {
	joined := strings.ReplaceAll(makefile, "\\\n", " ")
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*[:?]?=(.*)$`).FindStringSubmatch(joined)
	if m == nil {
		return "", false
	}
	return strings.TrimSpace(m[1]), true
}

func checkMakefile(root string, c *Config) error {
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return err
	}
	mk := string(data)
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", "Makefile", fmt.Sprintf(format, args...)))
	}
	if all, ok := makeVar(mk, "DIST_ALL_TARGETS"); !ok {
		bad("sets no DIST_ALL_TARGETS (make dist-all's targets, config.json's)")
	} else if diff := setDiff(strings.Fields(all), c.Targets); diff != "" {
		bad("DIST_ALL_TARGETS and %s's targets differ: %s", configPath, diff)
	}
	if v, _ := makeVar(mk, "DIST_TARGETS"); v != "$(HOST_TARGET)" {
		bad("DIST_TARGETS defaults to %q, not $(HOST_TARGET): make dist and make npm build this machine's platform", v)
	}
	for target, cmd := range map[string]string{"release": "./scripts/release build", "release-check": "./scripts/release check"} {
		if !regexp.MustCompile(`(?m)^` + target + `:.*\n(\t.*\n)*\t.*` + regexp.QuoteMeta(cmd)).MatchString(mk) {
			bad("target %s does not run %s", target, cmd)
		}
	}
	check := regexp.MustCompile(`(?m)^check:(.*)$`).FindStringSubmatch(mk)
	if check == nil || !slices.Contains(strings.Fields(check[1]), "release-check") {
		bad("check does not depend on release-check, so CI would not run it")
	}
	return errors.Join(errs...)
}

// setDiff describes how got differs from want as sets, or answers "".
func setDiff(got, want []string) string {
	var parts []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			parts = append(parts, "lacks "+w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			parts = append(parts, "has "+g+" too")
		}
	}
	return strings.Join(parts, ", ")
}

func checkGoMod(root string, c *Config) error {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(data)
	if m == nil || string(m[1]) != c.Module {
		return fmt.Errorf("go.mod's module is not %s's module %s: go install %s/cmd/%s@vX would not find it", configPath, c.Module, c.Module, c.Project)
	}
	if regexp.MustCompile(`(?m)^\s*(replace|exclude)\b`).Match(data) {
		return errors.New("go.mod has replace or exclude directives: go install …@vX refuses such a module")
	}
	return nil
}

// launcherManifest is what checkLauncher reads of npm/mcplogd/package.json.
type launcherManifest struct {
	Name       string               `json:"name"`
	Version    string               `json:"version"`
	Homepage   string               `json:"homepage"`
	Repository struct{ URL string } `json:"repository"`
	Bin        map[string]string    `json:"bin"`
	Optional   map[string]string    `json:"optionalDependencies"`
}

// checkLauncher checks the launcher's platform table (optionalDependencies, which is also what it
// runs by) against the plan, its repository (npm checks provenance against it) and its README.
func checkLauncher(root string, c *Config, plan *npmPlan) error {
	path := filepath.Join(launcherDir, "package.json")
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return err
	}
	var l launcherManifest
	if err := json.Unmarshal(data, &l); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if l.Name != c.Project || l.Bin[c.Project] == "" {
		bad("name %q and bin %v are not %s's project %s (npx -y %s)", l.Name, l.Bin, configPath, c.Project, c.Project)
	}
	homepage := "https://github.com/" + c.GitHub
	if l.Repository.URL != "git+"+homepage+".git" || l.Homepage != homepage {
		bad("repository %q and homepage %q are not %s's repository %s: npm publish --provenance refuses a package from another repository", l.Repository.URL, l.Homepage, configPath, c.GitHub)
	}
	var names []string
	for _, p := range plan.Packages[:len(plan.Packages)-1] {
		names = append(names, p.Name)
	}
	if diff := setDiff(slices.Collect(maps.Keys(l.Optional)), names); diff != "" {
		bad("optionalDependencies and npm/pack.mjs's packages of %s's targets differ: %s", configPath, diff)
	}
	for name, v := range l.Optional {
		if v != l.Version {
			bad("optionalDependencies names %s@%s, the launcher is %s: keep one placeholder (npm/pack.mjs sets the release's)", name, v, l.Version)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, launcherDir, "README.md"))
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, n := range names {
		if !bytes.Contains(readme, []byte("`"+n+"`")) {
			bad("its README.md does not name the package %s", n)
		}
	}
	return errors.Join(errs...)
}

// checkLicense wants config.json's license set once a LICENSE file exists: the archives carry the
// file, and the formula and the manifest should name it.
func checkLicense(root string, c *Config) error {
	matches, _ := filepath.Glob(filepath.Join(root, "LICENSE*"))
	if len(matches) > 0 && c.License == "" {
		return fmt.Errorf("%s: license is empty, but %s exists: set its SPDX identifier", configPath, filepath.Base(matches[0]))
	}
	return nil
}

// need is a pattern a file must match, and why.
type need struct{ pattern, what string }

// workflowNeeds is what the release workflow must do; each what says why.
var workflowNeeds = []need{
	{`(?m)^on:\s*\n\s+push:\s*\n\s+tags:\s*(\[\s*['"]?v\*['"]?\s*\]|\n\s+-\s*['"]?v\*['"]?\s*$)`, "run on a push of a tag v* (on: push: tags: ['v*'])"},
	{`(?m)^\s+contents:\s*write\s*(#.*)?$`, "have permissions contents: write (gh release create)"},
	{`(?m)^\s+id-token:\s*write\s*(#.*)?$`, "have permissions id-token: write (npm publish --provenance)"},
	{`uses:\s*actions/checkout@`, "check the repository out (actions/checkout)"},
	{`uses:\s*actions/setup-go@[^\n]*\n(\s+.*\n)*?\s+go-version-file:\s*['"]?go\.mod`, "set up go.mod's Go (actions/setup-go with go-version-file: go.mod)"},
	{`uses:\s*actions/setup-node@[^\n]*\n(\s+.*\n)*?\s+registry-url:\s*['"]?https://registry\.npmjs\.org`, "set up Node for npm's registry (actions/setup-node with registry-url: https://registry.npmjs.org)"},
	{`\bmake release-check\b`, "run make release-check"},
	{`\bmake release TAG=["']?\$(GITHUB_REF_NAME|\{\{\s*github\.ref_name\s*\}\})`, "build with make release TAG=$GITHUB_REF_NAME (the pushed tag)"},
	{`scripts/release-publish github\b`, "publish the GitHub release (scripts/release-publish github)"},
	{`scripts/release-publish npm\b`, "publish the npm packages (scripts/release-publish npm)"},
	{`scripts/release-publish homebrew\b`, "push the formula (scripts/release-publish homebrew)"},
	{`scripts/release-publish scoop\b`, "push the manifest (scripts/release-publish scoop)"},
	{`GH_TOKEN:\s*\$\{\{\s*(secrets\.GITHUB_TOKEN|github\.token)\s*\}\}`, "give gh the job's token (GH_TOKEN)"},
	{`NODE_AUTH_TOKEN:\s*\$\{\{\s*secrets\.NPM_TOKEN\s*\}\}`, "give npm the secret NPM_TOKEN (NODE_AUTH_TOKEN)"},
	{`TAP_GITHUB_TOKEN:\s*\$\{\{\s*secrets\.TAP_GITHUB_TOKEN\s*\}\}`, "give the tap and bucket pushes the secret TAP_GITHUB_TOKEN"},
}

// publishNeeds is what scripts/release-publish must run.
var publishNeeds = []need{
	{`dist/artifacts\.json`, "read dist/artifacts.json, which make release writes"},
	{`gh release create\b`, "create the GitHub release with gh release create"},
	{`npm publish --provenance --access public\b`, "publish with npm publish --provenance --access public"},
	{`\.npm\[\]`, "publish artifacts.json's npm list in its order (the launcher last)"},
	{`\.homebrew\b`, "push artifacts.json's homebrew formula"},
	{`\.scoop\b`, "push artifacts.json's scoop manifest"},
}

func checkNeeds(root, path string, needs []need) error {
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return fmt.Errorf("%s: %w (it publishes a release)", path, err)
	}
	// A comment that names a command does not run it.
	data = regexp.MustCompile(`(?m)^\s*#.*\n`).ReplaceAll(data, nil)
	var errs []error
	for _, n := range needs {
		if !regexp.MustCompile(n.pattern).Match(data) {
			errs = append(errs, fmt.Errorf("%s does not %s", path, n.what))
		}
	}
	return errors.Join(errs...)
}

func checkWorkflow(root string) error { return checkNeeds(root, workflowPath, workflowNeeds) }

func checkPublishScript(root string) error {
	err := checkNeeds(root, publishScript, publishNeeds)
	if st, serr := os.Stat(filepath.Join(root, publishScript)); serr == nil && st.Mode()&0o111 == 0 {
		err = errors.Join(err, fmt.Errorf("%s is not executable", publishScript))
	}
	return err
}
