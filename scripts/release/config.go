package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// configPath is the release configuration, relative to the repository's root.
const configPath = "scripts/release/config.json"

// Config is config.json: what the release is called, where it is published, and for which
// platforms. Every field must be set but License, which an empty string leaves out of the
// formula and the manifest.
type Config struct {
	// Project names the binary, the archives (Project_VERSION_OS_ARCH), the formula and the
	// manifest, and the npm launcher package (npx -y Project).
	Project string `json:"project"`
	// Module is the Go module path that `go install Module/cmd/Project@vX` fetches; it must be
	// go.mod's and github.com/GitHub.
	Module string `json:"module"`
	// GitHub is owner/name of the repository whose releases hold the archives.
	GitHub string `json:"github"`
	// Description is the formula's desc and the manifest's description: what brew audit
	// accepts (at most 80 characters, no leading article, no final period).
	Description string `json:"description"`
	// License is an SPDX identifier; empty while the repository has no LICENSE file.
	License string `json:"license"`
	// Targets are the GOOS/GOARCH pairs released, as scripts/dist takes them.
	Targets []string `json:"targets"`
	// Files are the patterns (filepath.Match, relative to the root) of the files each archive
	// holds beside the binary: a plain name must exist, a pattern may match nothing.
	Files []string `json:"files"`
	// Homebrew is the tap the formula is pushed to; Scoop the bucket the manifest is pushed to.
	Homebrew Tap `json:"homebrew"`
	Scoop    Tap `json:"scoop"`
}

// Tap is a repository that receives one rendered file.
type Tap struct {
	// Repo is owner/name on GitHub.
	Repo string `json:"repo"`
	// Path is where the file goes in Repo, and under dist/homebrew or dist/scoop.
	Path string `json:"path"`
	// Template is the text/template it is rendered from, beside config.json.
	Template string `json:"template"`
}

var (
	projectRe = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	repoRe    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)
)

// goosArch lists the targets the archives, the formula and the manifest know how to name.
var goosArch = map[string][]string{
	"linux":   {"amd64", "arm64"},
	"darwin":  {"amd64", "arm64"},
	"windows": {"amd64", "arm64"},
}

// loadConfig reads config.json under root; unknown fields are an error, so a misspelt one is not
// silently ignored.
func loadConfig(root string) (*Config, error) {
	data, err := os.ReadFile(filepath.Join(root, configPath))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", configPath, err)
	}
	if err := c.Validate(root); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate names every field of c that is wrong; root is where Files and the templates are
// looked for.
func (c *Config) Validate(root string) error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", configPath, field, fmt.Sprintf(format, args...)))
	}
	if !projectRe.MatchString(c.Project) {
		bad("project", "%q is not a lower-case name (a-z, 0-9, -)", c.Project)
	}
	if !repoRe.MatchString(c.GitHub) {
		bad("github", "%q is not owner/name", c.GitHub)
	}
	if want := "github.com/" + c.GitHub; c.Module != want {
		bad("module", "%q is not %s: go install fetches the module from its repository", c.Module, want)
	}
	if msg := descriptionProblem(c.Description); msg != "" {
		bad("description", "%s", msg)
	}
	c.validateTargets(bad)
	if len(c.Files) == 0 {
		bad("files", "is empty: the archives hold the README beside the binary")
	}
	for i, f := range c.Files {
		if _, err := filepath.Match(f, ""); err != nil || filepath.IsAbs(f) || strings.Contains(f, "..") {
			bad(fmt.Sprintf("files[%d]", i), "%q is not a pattern relative to the repository", f)
		} else if !strings.ContainsAny(f, "*?[") {
			if _, err := os.Stat(filepath.Join(root, f)); err != nil {
				bad(fmt.Sprintf("files[%d]", i), "%s does not exist", f)
			}
		}
	}
	for _, t := range []struct {
		field, ext string
		tap        Tap
	}{{"homebrew", ".rb", c.Homebrew}, {"scoop", ".json", c.Scoop}} {
		if !repoRe.MatchString(t.tap.Repo) {
			bad(t.field+".repo", "%q is not owner/name", t.tap.Repo)
		}
		if !strings.HasSuffix(t.tap.Path, t.ext) || filepath.IsAbs(t.tap.Path) || strings.Contains(t.tap.Path, "..") {
			bad(t.field+".path", "%q is not a relative path ending in %s", t.tap.Path, t.ext)
		}
		if _, err := os.Stat(filepath.Join(root, filepath.Dir(configPath), t.tap.Template)); t.tap.Template == "" || err != nil {
			bad(t.field+".template", "%q is not a file beside config.json", t.tap.Template)
		}
	}
	return errors.Join(errs...)
}

func (c *Config) validateTargets(bad func(field, format string, args ...any)) {
	if len(c.Targets) == 0 {
		bad("targets", "is empty")
	}
	var formula, scoop bool
	for i, t := range c.Targets {
		goos, goarch, _ := strings.Cut(t, "/")
		switch {
		case !slices.Contains(goosArch[goos], goarch):
			bad(fmt.Sprintf("targets[%d]", i), "%q is not one of %s", t, knownTargets())
		case slices.Index(c.Targets, t) != i:
			bad(fmt.Sprintf("targets[%d]", i), "%q is listed twice", t)
		}
		formula = formula || goos == "darwin" || goos == "linux"
		scoop = scoop || goos == "windows"
	}
	if !formula || !scoop {
		bad("targets", "need a darwin or linux target (the formula) and a windows one (the manifest)")
	}
}

func knownTargets() string {
	var all []string
	for goos, arches := range goosArch {
		for _, a := range arches {
			all = append(all, goos+"/"+a)
		}
	}
	slices.Sort(all)
	return strings.Join(all, ", ")
}

// descriptionProblem says what brew audit would refuse in a formula's desc, or "".
func descriptionProblem(d string) string {
	first, _, _ := strings.Cut(d, " ")
	switch {
	case d == "":
		return "is empty"
	case len(d) > 80:
		return fmt.Sprintf("has %d characters; Homebrew allows 80", len(d))
	case slices.Contains([]string{"a", "an", "the"}, strings.ToLower(first)):
		return fmt.Sprintf("%q starts with an article, which Homebrew refuses", d)
	case strings.HasSuffix(d, "."):
		return fmt.Sprintf("%q ends with a period, which Homebrew refuses", d)
	}
	return ""
}

// archiveName is GoReleaser's default name of a target's archive.
func (c *Config) archiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", c.Project, version, goos, goarch, ext)
}

// checksumsName is GoReleaser's default name of the checksums file.
func (c *Config) checksumsName(version string) string {
	return fmt.Sprintf("%s_%s_checksums.txt", c.Project, version)
}

// binaryName is the binary in a target's archive; distBinary is scripts/dist's name for it.
func (c *Config) binaryName(goos string) string {
	if goos == "windows" {
		return c.Project + ".exe"
	}
	return c.Project
}

func (c *Config) distBinary(goos, goarch string) string {
	name := c.Project + "-" + goos + "-" + goarch
	if goos == "windows" {
		name += ".exe"
	}
	return name
}
