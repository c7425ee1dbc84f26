package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// validateChecksums checks that the checksums file lists every archive of r, and only those,
// with the SHA-256 of the file in dist.
func validateChecksums(dist, checksums string, r *Release) (map[string]string, error) {
	sums, err := readChecksums(filepath.Join(dist, checksums))
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range r.List {
		got, err := fileSHA256(filepath.Join(dist, a.Name))
		switch {
		case err != nil:
			errs = append(errs, err)
		case sums[a.Name] == "":
			errs = append(errs, fmt.Errorf("%s does not list %s", checksums, a.Name))
		case sums[a.Name] != got:
			errs = append(errs, fmt.Errorf("%s gives %s as %s, the file's is %s", checksums, a.Name, sums[a.Name], got))
		}
	}
	for name := range sums {
		if !slices.ContainsFunc(r.List, func(a Archive) bool { return a.Name == name }) {
			errs = append(errs, fmt.Errorf("%s lists %s, which is no archive of %s", checksums, name, r.Tag))
		}
	}
	return sums, errors.Join(errs...)
}

// formulaEntry is one url and sha256 of a formula, with the block they sit in.
type formulaEntry struct {
	goos, goarch, url, sha256 string
	line                      int
}

var (
	rubyQuoted  = `"((?:[^"\\]|\\.)*)"`
	formulaURL  = regexp.MustCompile(`^url ` + rubyQuoted + `$`)
	formulaSHA  = regexp.MustCompile(`^sha256 "([0-9a-f]{64})"$`)
	formulaVer  = regexp.MustCompile(`^version ` + rubyQuoted + `$`)
	formulaCls  = regexp.MustCompile(`^class (\w+) < Formula$`)
	formulaOpen = regexp.MustCompile(`(^(class|def|if|unless|case|begin|module)\b.*|\bdo(\s*\|[^|]*\|)?)$`)
)

// parseFormula reads what a formula installs where: its class, its version and, for each url,
// the OS block (on_macos, on_linux) and CPU condition it is under and the sha256 after it. It
// also counts blocks against their ends, since no Ruby may be at hand to parse it.
func parseFormula(src string) (class, version string, entries []formulaEntry, err error) {
	var goos, goarch string
	depth := 0
	for i, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		switch {
		case line == "on_macos do":
			goos = "darwin"
		case line == "on_linux do":
			goos = "linux"
		case strings.HasPrefix(line, "if Hardware::CPU.intel?"):
			goarch = "amd64"
		case strings.HasPrefix(line, "if Hardware::CPU.arm?"):
			goarch = "arm64"
			if strings.Contains(line, "!Hardware::CPU.is_64_bit?") {
				goarch = "arm"
			}
		}
		if m := formulaCls.FindStringSubmatch(line); m != nil {
			class = m[1]
		}
		if m := formulaVer.FindStringSubmatch(line); m != nil {
			version = m[1]
		}
		if m := formulaURL.FindStringSubmatch(line); m != nil {
			entries = append(entries, formulaEntry{goos: goos, goarch: goarch, url: m[1], line: i + 1})
		}
		if m := formulaSHA.FindStringSubmatch(line); m != nil && len(entries) > 0 {
			entries[len(entries)-1].sha256 = m[1]
		}
		if formulaOpen.MatchString(line) {
			depth++
		}
		if line == "end" {
			if depth--; depth < 0 {
				return "", "", nil, fmt.Errorf("line %d: an end without a block", i+1)
			}
			if depth == 1 {
				goos, goarch = "", "" // the end of on_macos or on_linux
			} else if depth == 2 {
				goarch = ""
			}
		}
	}
	if depth != 0 {
		return "", "", nil, fmt.Errorf("%d blocks are not closed with end", depth)
	}
	return class, version, entries, nil
}

// validateFormula checks a rendered formula against the release: its class and version, and one
// url and sha256 for each darwin and linux archive, under the right OS and CPU, whose sha256
// is the checksums file's; with Ruby on PATH (GitHub's runners), ruby -c parses it too.
func validateFormula(path string, r *Release, sums map[string]string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	class, version, entries, err := parseFormula(string(src))
	if err != nil {
		return fmt.Errorf("formula %s: %w", path, err)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("formula %s: %s", path, fmt.Sprintf(format, args...)))
	}
	if class != r.Class {
		bad("class is %q, not %s < Formula", class, r.Class)
	}
	if version != r.Version {
		bad("version is %q, the release's is %s", version, r.Version)
	}
	if !strings.Contains(string(src), fmt.Sprintf("bin.install %q", r.Project)) {
		bad("installs no %s (bin.install %q)", r.Project, r.Project)
	}
	var want []Archive
	for _, a := range r.List {
		if a.Goos == "darwin" || a.Goos == "linux" {
			want = append(want, a)
		}
	}
	for _, e := range entries {
		i := slices.IndexFunc(want, func(a Archive) bool { return a.Goos == e.goos && a.Goarch == e.goarch })
		if i < 0 {
			bad("line %d: url %s is under %s/%s, which has no archive (or is listed twice)", e.line, e.url, e.goos, e.goarch)
			continue
		}
		a := want[i]
		want = slices.Delete(want, i, i+1)
		if e.url != a.URL {
			bad("line %d: %s/%s's url is %s, not %s", e.line, e.goos, e.goarch, e.url, a.URL)
		}
		if e.sha256 != sums[a.Name] {
			bad("line %d: %s/%s's sha256 is %q; %s has %s", e.line, e.goos, e.goarch, e.sha256, a.Name, sums[a.Name])
		}
	}
	for _, a := range want {
		bad("has no url for %s/%s (%s)", a.Goos, a.Goarch, a.Name)
	}
	if ruby, err := exec.LookPath("ruby"); err == nil {
		if out, err := exec.Command(ruby, "-c", path).CombinedOutput(); err != nil {
			bad("ruby -c: %v: %s", err, strings.TrimSpace(string(out)))
		}
	}
	return errors.Join(errs...)
}

// scoopManifest is what validateManifest reads of a Scoop manifest.
type scoopManifest struct {
	Version      string `json:"version"`
	Architecture map[string]struct {
		URL  string   `json:"url"`
		Bin  []string `json:"bin"`
		Hash string   `json:"hash"`
	} `json:"architecture"`
	Homepage    string `json:"homepage"`
	Description string `json:"description"`
}

// validateManifest checks a rendered Scoop manifest: valid JSON, the release's version, and for
// each windows archive its architecture entry with its URL, binary and the checksums file's hash.
func validateManifest(path string, r *Release, sums map[string]string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m scoopManifest
	if err := json.Unmarshal(src, &m); err != nil {
		return fmt.Errorf("manifest %s is not valid JSON: %w", path, err)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("manifest %s: %s", path, fmt.Sprintf(format, args...)))
	}
	if m.Version != r.Version {
		bad("version is %q, the release's is %s", m.Version, r.Version)
	}
	if m.Homepage == "" || m.Description == "" {
		bad("homepage and description must be set")
	}
	seen := 0
	for _, a := range r.Archives("windows") {
		key, err := scoopArch(a.Goarch)
		if err != nil {
			return err
		}
		e, ok := m.Architecture[key]
		if !ok {
			bad("architecture has no %q (%s)", key, a.Name)
			continue
		}
		seen++
		if e.URL != a.URL {
			bad("architecture %s: url is %s, not %s", key, e.URL, a.URL)
		}
		if e.Hash != sums[a.Name] {
			bad("architecture %s: hash is %q; %s has %s", key, e.Hash, a.Name, sums[a.Name])
		}
		if !slices.Equal(e.Bin, []string{a.Binary}) {
			bad("architecture %s: bin is %q, not [%q]", key, e.Bin, a.Binary)
		}
	}
	if len(m.Architecture) != seen {
		bad("architecture has %d entries for %d windows archives", len(m.Architecture), len(r.Archives("windows")))
	}
	return errors.Join(errs...)
}

// validateHostArchive opens the archive of this machine's target: it must hold exactly the
// binary (mode 0755) and the configured files, and the binary, run from it, must print stamp.
func validateHostArchive(c *Config, root, dist string, a Archive, stamp string) error {
	path := filepath.Join(dist, a.Name)
	names, modes, bin, err := archiveEntries(path, a.Binary)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Name, err)
	}
	members, err := archiveMembers(c, root, a.Goos, "")
	if err != nil {
		return err
	}
	var want []string
	for _, m := range members {
		want = append(want, m.name)
	}
	if !slices.Equal(names, want) {
		return fmt.Errorf("%s holds %q, not %q", a.Name, names, want)
	}
	if modes[0] != 0o755 {
		return fmt.Errorf("%s: %s has mode %v, not 0755", a.Name, a.Binary, modes[0])
	}
	exe := filepath.Join(dist, "from-archive-"+a.Binary)
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		return err
	}
	defer os.Remove(exe)
	out, err := exec.Command(exe, "version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s from %s: version: %v: %s", a.Binary, a.Name, err, out)
	}
	if !strings.Contains(string(out), " "+stamp+" ") {
		return fmt.Errorf("%s from %s prints %q, which does not name its stamp %s", a.Binary, a.Name, strings.TrimSpace(string(out)), stamp)
	}
	return nil
}
