package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options says what build and check do.
type Options struct {
	// Root is the repository's root; Dist the directory of the artefacts, relative to Root unless
	// absolute (check: empty means a temporary directory, removed afterwards).
	Root, Dist string
	// Stamp is what the binaries print (main.version): git describe's, or the tag.
	Stamp string
	// Tag makes build refuse a Stamp that is not a release version (v1.2.3, v1.2.3-rc.1).
	Tag bool
	// StandIn makes check build no binary: every archive holds a stand-in file (for its tests).
	StandIn bool
	// Out receives the progress and the list of what was written.
	Out io.Writer
}

func (o *Options) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(o.Root, p)
}

// rel is p as artifacts.json names it: relative to the root when it is under it.
func (o *Options) rel(p string) string {
	if r, err := filepath.Rel(o.Root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// build writes every artefact of the release into o.Dist: binaries (scripts/dist), archives,
// checksums, npm packages (npm/pack.mjs), formula, manifest and artifacts.json.
func build(o *Options) error {
	start := time.Now()
	c, plan, err := loadChecked(o)
	if err != nil {
		return err
	}
	if o.Tag && (!strings.HasPrefix(o.Stamp, "v") || plan.Version != o.Stamp[1:]) {
		return fmt.Errorf("tag %q is not a release version (vMAJOR.MINOR.PATCH or vMAJOR.MINOR.PATCH-PRERELEASE): npm would get %s", o.Stamp, plan.Version)
	}
	dist := o.abs(o.Dist)
	if err := clean(dist, c); err != nil {
		return err
	}
	if err := runIn(o, map[string]string{"VERSION": o.Stamp, "DIST_DIR": dist}, filepath.Join(o.Root, "scripts/dist"), c.Targets...); err != nil {
		return err
	}
	bins := map[string]string{}
	for _, t := range c.Targets {
		goos, goarch, _ := strings.Cut(t, "/")
		bins[t] = filepath.Join(dist, c.distBinary(goos, goarch))
	}
	r, err := packageRelease(o, c, plan, dist, bins)
	if err != nil {
		return err
	}
	if err := runIn(o, map[string]string{"DIST_DIR": dist}, "node", append([]string{filepath.Join(o.Root, packScript), o.Stamp}, c.Targets...)...); err != nil {
		return err
	}
	a, err := artifacts(o, c, plan, r, dist)
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(a, "", "  ")
	if err := os.WriteFile(filepath.Join(dist, "artifacts.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "\n%s %s (binaries stamped %s) in %s, %.0f s:\n", c.Project, r.Version, o.Stamp, o.rel(dist), time.Since(start).Seconds())
	return listFiles(o.Out, dist, o.rel)
}

// loadChecked reads config.json, asks npm/pack.mjs for its plan and checks that the files which
// must agree with them do.
func loadChecked(o *Options) (*Config, *npmPlan, error) {
	c, err := loadConfig(o.Root)
	if err != nil {
		return nil, nil, err
	}
	// A plan that fails still leaves the other files to check: every problem is told at once.
	plan, perr := readPlan(o.Root, o.Stamp, c.Targets)
	if err := errors.Join(perr, checkStatic(o.Root, c, plan)); err != nil {
		return nil, nil, err
	}
	return c, plan, nil
}

// clean removes what an earlier build left that scripts/dist does not (it removes the binaries,
// the npm tarballs and dist/npm), so that nothing stale outlives a failure or is published.
func clean(dist string, c *Config) error {
	old, _ := filepath.Glob(filepath.Join(dist, c.Project+"_*"))
	for _, p := range append(old, filepath.Join(dist, "homebrew"), filepath.Join(dist, "scoop"), filepath.Join(dist, "artifacts.json")) {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return os.MkdirAll(dist, 0o755)
}

// packageRelease writes one archive of each target's binary (bins) into dist, the checksums file
// over them, the formula and the manifest rendered from them, and validates all of it.
func packageRelease(o *Options, c *Config, plan *npmPlan, dist string, bins map[string]string) (*Release, error) {
	mtime := sourceTime(o.Root)
	var names []string
	for _, t := range c.Targets {
		goos, goarch, _ := strings.Cut(t, "/")
		name := c.archiveName(plan.Version, goos, goarch)
		members, err := archiveMembers(c, o.Root, goos, bins[t])
		if err != nil {
			return nil, err
		}
		if err := writeArchive(filepath.Join(dist, name), members, mtime); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	checksums := c.checksumsName(plan.Version)
	sums, err := writeChecksums(filepath.Join(dist, checksums), dist, names)
	if err != nil {
		return nil, err
	}
	r := newRelease(c, o.Stamp, plan.Version, sums)
	if sums, err = validateChecksums(dist, checksums, r); err != nil {
		return nil, err
	}
	formula := filepath.Join(dist, "homebrew", filepath.FromSlash(c.Homebrew.Path))
	manifest := filepath.Join(dist, "scoop", filepath.FromSlash(c.Scoop.Path))
	for path, tmpl := range map[string]string{formula: c.Homebrew.Template, manifest: c.Scoop.Template} {
		out, err := render(o.Root, tmpl, r)
		if err != nil {
			return nil, fmt.Errorf("rendering %s: %w", tmpl, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return nil, err
		}
	}
	return r, errors.Join(validateFormula(formula, r, sums), validateManifest(manifest, r, sums))
}

// sourceTime is the time every archive entry gets: SOURCE_DATE_EPOCH when set, else the commit's
// time, else 1980-01-01 (the oldest a zip can say), so that a build can be repeated bit for bit.
func sourceTime(root string) time.Time {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		out, _ := exec.Command("git", "-C", root, "log", "-1", "--format=%ct").Output()
		s = strings.TrimSpace(string(out))
	}
	if sec, err := strconv.ParseInt(s, 10, 64); err == nil && sec >= 315532800 {
		return time.Unix(sec, 0).UTC()
	}
	return time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
}

// artifacts lists what scripts/release-publish publishes, from the release and from the
// packages.json npm/pack.mjs wrote, which must be the plan's packages in the plan's order.
func artifacts(o *Options, c *Config, plan *npmPlan, r *Release, dist string) (*Artifacts, error) {
	a := &Artifacts{
		Project: c.Project, Version: r.Version, Tag: r.Tag, Stamp: r.Stamp, Prerelease: r.Prerelease, NPMTag: "latest",
		Homebrew: Published{c.Homebrew.Repo, c.Homebrew.Path, o.rel(filepath.Join(dist, "homebrew", c.Homebrew.Path))},
		Scoop:    Published{c.Scoop.Repo, c.Scoop.Path, o.rel(filepath.Join(dist, "scoop", c.Scoop.Path))},
	}
	if r.Prerelease {
		a.NPMTag = "next"
	}
	for _, ar := range r.List {
		a.Release = append(a.Release, o.rel(filepath.Join(dist, ar.Name)))
	}
	a.Release = append(a.Release, o.rel(filepath.Join(dist, c.checksumsName(r.Version))))
	data, err := os.ReadFile(filepath.Join(dist, "npm", "packages.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &a.NPM); err != nil {
		return nil, fmt.Errorf("dist/npm/packages.json: %w", err)
	}
	if len(a.NPM) != len(plan.Packages) {
		return nil, fmt.Errorf("npm/pack.mjs packed %d packages, its plan has %d", len(a.NPM), len(plan.Packages))
	}
	for i, p := range a.NPM {
		if p.Name != plan.Packages[i].Name || p.Version != plan.Version || p.File != plan.Packages[i].File {
			return nil, fmt.Errorf("npm/pack.mjs packed %s@%s as %s where its plan said %s@%s as %s", p.Name, p.Version, p.File, plan.Packages[i].Name, plan.Version, plan.Packages[i].File)
		}
		a.NPM[i].File = o.rel(filepath.Join(dist, p.File))
	}
	return a, nil
}

// runIn runs a command in the root with env added to the environment, its output on o.Out.
func runIn(o *Options, env map[string]string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = o.Root
	cmd.Stdout, cmd.Stderr = o.Out, o.Out
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", o.rel(name), strings.Join(args, " "), err)
	}
	return nil
}

// listFiles prints every file under dir with its size, sorted by name, but for the package
// directories npm/pack.mjs packed the .tgz files from.
func listFiles(w io.Writer, dir string, rel func(string) string) error {
	var paths []string
	sizes := map[string]int64{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if filepath.Base(filepath.Dir(path)) == "npm" && filepath.Dir(filepath.Dir(path)) == dir {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		paths = append(paths, rel(path))
		sizes[rel(path)] = info.Size()
		return nil
	})
	slices.Sort(paths)
	for _, p := range paths {
		fmt.Fprintf(w, "%12d  %s\n", sizes[p], p)
	}
	return err
}

// hostTarget is the GOOS/GOARCH this program runs on, which check can build and run.
func hostTarget() string { return runtime.GOOS + "/" + runtime.GOARCH }
