package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/follow"
	"github.com/mcplogd/mcplogd/oplog"
)

// followSpec is one --follow [PARSER:]NAME=PATH, or
// ENGINE:NAME=auto[:PROJECT_DIR] with the path found (follow.Locate). A
// PATH ending in a separator or naming a directory follows each file of
// the directory once (follow.DirFollower): Minecraft's crash reports.
type followSpec struct {
	Name, Parser, Path string
	Previous           string // the previous run's file, read once first ("": none)
	Why                string // for auto: the rule that found Path
	Glob               string // set when Path is a directory: the files followed
	Note               string // for auto: what the user should know of the file (follow.Location.Note)
	RunsOwned          bool   // the game's process starts its runs (ownRuns)
}

func (f followSpec) String() string {
	s := f.Name + "=" + f.Path
	if f.Parser != "" {
		s = f.Parser + ":" + s
	}
	if f.Glob != "" {
		s += " (each " + f.Glob + ")"
	}
	if f.Why != "" {
		s += " (auto: " + f.Why + ")"
	}
	return s
}

// parseFollow reads [PARSER:]NAME=PATH or ENGINE:NAME=auto[:PROJECT_DIR].
func parseFollow(s string) (followSpec, error) {
	key, path, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(path) == "" {
		return followSpec{}, fmt.Errorf("--follow %q: want [PARSER:]NAME=PATH, such as unity:Editor=/path/to/Editor.log, or ENGINE:NAME=auto[:PROJECT_DIR], such as unity:Editor=auto", s)
	}
	return followKey(key, strings.TrimSpace(path))
}

func followKey(key, path string) (followSpec, error) {
	f := followSpec{Path: path}
	if p, n, ok := strings.Cut(key, ":"); ok {
		f.Parser, f.Name = strings.TrimSpace(p), strings.TrimSpace(n)
	} else {
		f.Name = strings.TrimSpace(key)
	}
	if f.Name == "" || strings.ContainsAny(f.Name, " \t\n=") {
		return followSpec{}, fmt.Errorf("follow %q: the name (the records' source) must be a word, such as Editor", key)
	}
	if dir, ok := autoDir(path); ok {
		return f.locate(key+"="+path, dir)
	}
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(os.PathSeparator)) || isDir(path) {
		f.Glob = "*"
		if p := strings.ToLower(f.Parser); p == "mccrash" || p == "minecraft-crash" {
			f.Glob = follow.McCrashGlob
		}
	}
	return f, nil
}

// waiting says what a follower of f waits for as it starts, for serve to
// print: its file (or directory) does not exist yet, and perhaps neither
// does the directory it would be in; "" when it exists. Paths are
// absolute, so that the user sees where it is looked for.
func (f followSpec) waiting() string {
	path, err := filepath.Abs(f.Path)
	if err != nil {
		path = f.Path
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	what := "waiting for " + path + " to appear"
	if f.Glob != "" {
		what = "waiting for the directory " + path + " to appear"
	}
	parent := filepath.Dir(path)
	if _, err := os.Stat(parent); errors.Is(err, fs.ErrNotExist) {
		what += " (its directory " + parent + " does not exist yet either)"
	}
	return what
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// autoDir reads auto[:PROJECT_DIR]; dir "" is the working directory.
func autoDir(value string) (dir string, ok bool) {
	if value == "auto" {
		return "", true
	}
	dir, ok = strings.CutPrefix(value, "auto:")
	return strings.TrimSpace(dir), ok
}

// locate sets the path of an ENGINE:NAME=auto spec from the engine's rules.
func (f followSpec) locate(spec, dir string) (followSpec, error) {
	if f.Parser == "" {
		return followSpec{}, fmt.Errorf("follow %q: auto needs the engine before the name (unity, godot, log4j or minecraft, unreal, luanti or minetest), such as unity:Editor=auto", spec)
	}
	loc, err := follow.Locate(f.Parser, f.Name, dir, nil)
	if err != nil {
		return followSpec{}, fmt.Errorf("follow %q: %w", spec, err)
	}
	f.Path, f.Previous, f.Why, f.Glob, f.Note = loc.Path, loc.Previous, loc.Why, loc.Glob, loc.Note
	if f.Glob != "" {
		f.Parser = "mccrash" // the only directory Locate finds
	}
	return f, nil
}

// mergeConfig adds to flags the entries of a DATA/config.json map (key to
// value) whose names the flags do not give; parse reads one entry and name
// gives an item's name. Entries are added in key order.
func mergeConfig[T any](flags []T, cfg map[string]string, name func(T) string, parse func(key, value string) (T, error)) ([]T, error) {
	named := map[string]bool{}
	for _, f := range flags {
		named[name(f)] = true
	}
	out := flags
	for _, key := range slices.Sorted(maps.Keys(cfg)) {
		if named[key] {
			continue
		}
		v, err := parse(key, cfg[key])
		if err != nil {
			return nil, fmt.Errorf("config.json: %w", err)
		}
		if !named[name(v)] {
			out = append(out, v)
		}
	}
	return out, nil
}

// follower is a followed file (follow.Follower) or directory
// (follow.DirFollower).
type follower interface {
	Close() error
	Status() oplog.FollowerStatus
}

// startFollowers starts a follower per spec; on an error it stops those
// it started.
func startFollowers(l *oplog.Log, specs []followSpec, logger *slog.Logger) ([]follower, error) {
	var out []follower
	for _, f := range specs {
		var fl follower
		var err error
		if f.Glob != "" {
			fl, err = follow.StartDir(l, follow.DirOptions{Name: f.Name, Dir: f.Path, Glob: f.Glob, Parser: f.Parser, Logger: logger})
		} else {
			fl, err = follow.Start(l, follow.Options{Name: f.Name, Path: f.Path, Previous: f.Previous, Parser: f.Parser, Logger: logger, RunsOwned: f.RunsOwned})
		}
		if err != nil {
			closeFollowers(out, logger)
			return nil, fmt.Errorf("--follow %s: %w", f, err)
		}
		out = append(out, fl)
	}
	crashHint(specs, logger)
	for _, f := range specs {
		if f.Note != "" {
			logger.Warn("follow "+f.Name+": "+f.Note, "path", f.Path)
		}
	}
	return out, nil
}

// crashHint tells the user of a Minecraft log found by auto that the crash
// reports are followed apart, when no follow reads them.
func crashHint(specs []followSpec, logger *slog.Logger) {
	latest := false
	for _, f := range specs {
		switch strings.ToLower(f.Parser) {
		case "mccrash", "minecraft-crash":
			if f.Glob != "" {
				return
			}
		case "log4j", "minecraft":
			latest = latest || f.Why != ""
		}
	}
	if latest {
		logger.Info("follow: Minecraft's crash reports are a separate follow", "hint", "--follow minecraft:Crashes=auto[:DIR]")
	}
}

// closeFollowers stops each follower once; later calls do nothing.
func closeFollowers(fs []follower, logger *slog.Logger) {
	for _, f := range fs {
		if err := f.Close(); err != nil && err != oplog.ErrClosed {
			logger.Warn("stopping a follower", "follower", f.Status().Name, "err", err)
		}
	}
}

// followerStatus reports the followers for /metrics and store_info, a
// directory as one follower; nil when there are none.
func followerStatus(fs []follower) func() []oplog.FollowerStatus {
	if len(fs) == 0 {
		return nil
	}
	return func() []oplog.FollowerStatus {
		out := make([]oplog.FollowerStatus, len(fs))
		for i, f := range fs {
			out[i] = f.Status()
		}
		return out
	}
}
