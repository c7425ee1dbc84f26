package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

// Release is what the templates see: one version of the project and its archives.
type Release struct {
	Project     string
	Version     string // npm/pack.mjs's npmVersion of the stamp: 1.2.3, or 0.0.0-dev.<commit>
	Tag         string // the git tag of the release: v + Version
	Stamp       string // what the binaries print (git describe, or the tag)
	Prerelease  bool   // Version has a prerelease part (1.2.3-rc.1, every snapshot)
	Description string
	Homepage    string
	License     string // SPDX, or empty
	Class       string // the formula's Ruby class
	List        []Archive
}

// Archive is one target's archive as the release publishes it.
type Archive struct {
	Goos, Goarch string
	Name         string // mcplogd_1.2.3_linux_amd64.tar.gz
	URL          string // its download URL on the GitHub release
	SHA256       string
	Binary       string // the binary's name inside it
}

// Archives answers the archives of one GOOS, in config.json's order.
func (r *Release) Archives(goos string) []Archive {
	var out []Archive
	for _, a := range r.List {
		if a.Goos == goos {
			out = append(out, a)
		}
	}
	return out
}

// newRelease describes the release of version (from npm/pack.mjs --plan) built from stamp, with
// the checksums of its archives.
func newRelease(c *Config, stamp, version string, sums map[string]string) *Release {
	r := &Release{
		Project:     c.Project,
		Version:     version,
		Tag:         "v" + version,
		Stamp:       stamp,
		Prerelease:  strings.Contains(version, "-"),
		Description: c.Description,
		Homepage:    "https://github.com/" + c.GitHub,
		License:     c.License,
		Class:       formulaClass(c.Project),
	}
	for _, t := range c.Targets {
		goos, goarch, _ := strings.Cut(t, "/")
		name := c.archiveName(version, goos, goarch)
		r.List = append(r.List, Archive{
			Goos: goos, Goarch: goarch, Name: name,
			URL:    fmt.Sprintf("%s/releases/download/%s/%s", r.Homepage, r.Tag, name),
			SHA256: sums[name],
			Binary: c.binaryName(goos),
		})
	}
	return r
}

// formulaClass is Homebrew's class name of a formula: mcplogd → Mcplogd, foo-bar → FooBar.
func formulaClass(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

var templateFuncs = template.FuncMap{
	"ruby": rubyString,
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	"cpu":       homebrewCPU,
	"scoopArch": scoopArch,
}

// homebrewCPU is Homebrew's condition for a GOARCH, as GoReleaser writes it.
func homebrewCPU(goarch string) (string, error) {
	switch goarch {
	case "amd64":
		return "Hardware::CPU.intel? && Hardware::CPU.is_64_bit?", nil
	case "arm64":
		return "Hardware::CPU.arm? && Hardware::CPU.is_64_bit?", nil
	}
	return "", fmt.Errorf("no Homebrew condition for GOARCH %s", goarch)
}

// scoopArch is Scoop's key of a GOARCH in a manifest's architecture.
func scoopArch(goarch string) (string, error) {
	switch goarch {
	case "amd64":
		return "64bit", nil
	case "386":
		return "32bit", nil
	case "arm64":
		return "arm64", nil
	}
	return "", fmt.Errorf("no Scoop architecture for GOARCH %s", goarch)
}

// rubyString quotes s as a Ruby double-quoted literal, # escaped so that nothing interpolates.
func rubyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// render executes the template file (beside config.json, under root) for r.
func render(root, file string, r *Release) ([]byte, error) {
	path := filepath.Join(root, filepath.Dir(configPath), file)
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := template.New(file).Funcs(templateFuncs).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Artifacts is artifacts.json: what scripts/release-publish publishes, paths relative to the
// repository's root (as the dist directory was given).
type Artifacts struct {
	Project    string       `json:"project"`
	Version    string       `json:"version"`
	Tag        string       `json:"tag"`
	Stamp      string       `json:"stamp"`
	Prerelease bool         `json:"prerelease"`
	Release    []string     `json:"release"` // the GitHub release's files: archives, then checksums
	NPMTag     string       `json:"npmTag"`  // latest, or next for a prerelease (npm wants one)
	NPM        []NPMPackage `json:"npm"`     // in publishing order: the launcher last
	Homebrew   Published    `json:"homebrew"`
	Scoop      Published    `json:"scoop"`
}

// NPMPackage is one tarball npm/pack.mjs packed.
type NPMPackage struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	File    string `json:"file"`
}

// Published is a rendered file and where it goes.
type Published struct {
	Repo string `json:"repo"`
	Path string `json:"path"`
	File string `json:"file"`
}
