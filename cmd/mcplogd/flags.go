package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// This file holds the flag types the commands share: sizes with units and
// durations with days.

type sizeValue struct{ n *uint64 }

// sizeVar adds a size flag, in bytes with an optional unit, stored in p.
func sizeVar(fs *flag.FlagSet, p *uint64, name string, def uint64, usage string) {
	*p = def
	fs.Var(sizeValue{p}, name, usage+" (bytes; KB, MB, GB, KiB, MiB, GiB accepted)")
}

func (v sizeValue) String() string {
	if v.n == nil {
		return "0"
	}
	return strconv.FormatUint(*v.n, 10)
}

func (v sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err == nil {
		*v.n = n
	}
	return err
}

func parseSize(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := uint64(1)
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("not a size: want a number of bytes such as 1048576, 512KiB or 2GB")
	}
	return uint64(f * float64(mult)), nil
}

type durationValue struct{ d *time.Duration }

// durationVar adds a duration flag that also takes days ("30d"), stored in p.
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(durationValue{p}, name, usage)
}

func (v durationValue) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

// Set accepts Go durations plus a days suffix ("30d").
func (v durationValue) Set(s string) error {
	if days, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("not a duration: want e.g. 72h or 30d")
		}
		*v.d = time.Duration(n * float64(24*time.Hour))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("not a duration: want e.g. 72h or 30d")
	}
	*v.d = d
	return nil
}

// timeForms is what --since and --until take (oplog.ParseBound reads them).
const timeForms = "yesterday, today, 10:00 or 2026-12-01 10:00 (local time), -1h, 2 days ago, RFC 3339 or Unix ms"

// filterVars adds --level, --name, --source and --kind (default kind) to
// fs, bound to ft.
func filterVars(fs *flag.FlagSet, ft *oplog.FilterText, kind string) {
	fs.StringVar(&ft.Level, "level", "", "minimum level: debug, info, warn, error or fatal")
	fs.StringVar(&ft.Name, "name", "", "only this log name")
	fs.StringVar(&ft.Source, "source", "", "only this source")
	fs.StringVar(&ft.Kind, "kind", kind, "line, op, marker or any")
}

// resolveFlags turns the flags of a read into one request, as every
// adapter does (oplog.Resolve), runs and markers read from src (nil for
// --studio, or without --run and --since last_compile). An error about a
// flag names it as typed ("--since: cannot read time ..."); the log's
// own errors pass as they are.
func resolveFlags(ctx context.Context, src oplog.RunSource, a oplog.Args) (oplog.Request, error) {
	a.StudioWords, a.RunsWords = "--studio", "mcplogd runs lists them"
	r, err := oplog.Resolve(ctx, src, a, time.Now())
	return r, asFlagError(err)
}

// asFlagError words an EINVALID or ENOTFOUND error, whose message names the
// argument first, as a flag's ("--run: ..."); one about the query (the
// words after the flags, no flag) keeps its message as every surface
// words it ("query: ..."); other errors pass.
func asFlagError(err error) error {
	msg := oplog.ErrorMessage(err)
	switch code := oplog.ErrorCode(err); {
	case code == oplog.EINVALID && strings.HasPrefix(msg, "query: "):
		return errors.New(msg)
	case code == oplog.EINVALID, code == oplog.ENOTFOUND:
		return errors.New("--" + msg)
	}
	return err
}
