package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const usage = `usage:
  go run ./scripts/release build -tag vX.Y.Z [-dist dist]     every artefact of the release of a tag
  go run ./scripts/release build -version STAMP [-dist dist]  the same for any stamp: a dry run
  go run ./scripts/release check [-version STAMP] [-dist DIR]  check the release configuration`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "scripts/release: %v\n", err)
		os.Exit(1)
	}
}

// run parses the command line; a usage error says what was wrong and prints the usage.
func run(args []string, out io.Writer) error {
	if len(args) == 0 || (args[0] != "build" && args[0] != "check") {
		return fmt.Errorf("give build or check\n%s", usage)
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := &Options{Out: out}
	fs.StringVar(&o.Root, "root", ".", "the repository's root")
	fs.StringVar(&o.Dist, "dist", "", "where the artefacts go (build: dist; check: a temporary directory)")
	fs.StringVar(&o.Stamp, "version", "", "the stamp the binaries print (make passes git describe's)")
	tag := fs.String("tag", "", "build: the git tag being released, which must be a release version")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%s: %w\n%s", args[0], err, usage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q (config.json names the targets)\n%s", args[0], fs.Arg(0), usage)
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return err
	}
	o.Root = root
	if args[0] == "check" {
		if *tag != "" {
			return errors.New("check: -tag is build's; give -version")
		}
		if o.Stamp == "" {
			o.Stamp = "dev"
		}
		return check(o)
	}
	switch {
	case *tag != "" && o.Stamp != "":
		return errors.New("build: give -tag or -version, not both")
	case *tag != "":
		o.Stamp, o.Tag = *tag, true
	case o.Stamp == "":
		return fmt.Errorf("build: give -tag (a release) or -version (a dry run)\n%s", usage)
	}
	if o.Dist == "" {
		o.Dist = "dist"
	}
	return build(o)
}

// check checks the release configuration (checkStatic), then packages one archive per target
// into a scratch directory (this machine's with its real binary, built once by scripts/dist;
// the others with a stand-in file), renders the formula and the manifest over them and
// validates them all, and runs the binary from its archive.
func check(o *Options) error {
	start := time.Now()
	c, plan, err := loadChecked(o)
	if err != nil {
		return fmt.Errorf("the release configuration is broken:\n%w", err)
	}
	var dist string
	if o.Dist == "" {
		if dist, err = os.MkdirTemp("", "mcplogd-release-check-"); err != nil {
			return err
		}
		defer os.RemoveAll(dist)
	} else {
		dist = o.abs(o.Dist)
		if err := os.MkdirAll(dist, 0o755); err != nil {
			return err
		}
	}
	bins := map[string]string{}
	var built, standIns []string
	for _, t := range c.Targets {
		goos, goarch, _ := strings.Cut(t, "/")
		if t == hostTarget() && !o.StandIn {
			if err := runIn(o, map[string]string{"VERSION": o.Stamp, "DIST_DIR": dist}, filepath.Join(o.Root, "scripts/dist"), t); err != nil {
				return err
			}
			bins[t] = filepath.Join(dist, c.distBinary(goos, goarch))
			built = append(built, t)
			continue
		}
		bins[t] = filepath.Join(dist, "stand-in-"+c.distBinary(goos, goarch))
		standIns = append(standIns, t)
		if err := os.WriteFile(bins[t], []byte("a stand-in for mcplogd "+t+": make release-check builds only this machine's binary\n"), 0o755); err != nil {
			return err
		}
	}
	r, err := packageRelease(o, c, plan, dist, bins)
	if err != nil {
		return fmt.Errorf("the release configuration is broken:\n%w", err)
	}
	for _, a := range r.List {
		if len(built) > 0 && a.Goos+"/"+a.Goarch == built[0] {
			if err := validateHostArchive(c, o.Root, dist, a, o.Stamp); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(o.Out, "release check OK (%.1f s): %s's targets agree with the Makefile, npm/pack.mjs and the launcher; "+
		"the workflow and scripts/release-publish run what they must; the formula and the manifest of %s render and match %s "+
		"(archives of %s built here, stand-ins for %s)\n",
		time.Since(start).Seconds(), configPath, r.Version, c.checksumsName(r.Version), orNone(built), orNone(standIns))
	return nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
