package mcptools

import (
	"context"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// SinceLastCompile is the since value that stands for the time of the
// newest compile.start marker (of the source, or of any source).
const SinceLastCompile = "last_compile"

// RunBackend is what Scope needs of a log: its runs and its markers.
type RunBackend interface {
	ResolveRun(ctx context.Context, source, sel string) (map[string]uint64, error)
	LastMarker(ctx context.Context, source string, names ...string) (oplog.Record, bool, error)
}

// IsLastCompile reports whether a since argument is last_compile.
func IsLastCompile(since string) bool {
	return strings.EqualFold(strings.TrimSpace(since), SinceLastCompile)
}

// SinceTime is since as oplog.ParseTime reads it: "" for last_compile,
// which Scope resolves.
func SinceTime(since string) string {
	if IsLastCompile(since) {
		return ""
	}
	return since
}

// Scope narrows f to a run selector (current, previous or a number; "" any
// run) of f.Source ("" every source) and, when since is last_compile, to
// records at or after the newest compile.start marker: an EINVALID error
// names the argument, ENOTFOUND says there is no such run or compile.
func Scope(ctx context.Context, b RunBackend, f *oplog.Filter, run, since string) error {
	if strings.TrimSpace(run) != "" {
		runs, err := b.ResolveRun(ctx, f.Source, run)
		if err != nil {
			return err
		}
		f.Runs = runs
	}
	if !IsLastCompile(since) {
		return nil
	}
	m, ok, err := b.LastMarker(ctx, f.Source, oplog.MarkerCompileStart)
	if err != nil {
		return err
	}
	if !ok {
		where := "any source"
		if f.Source != "" {
			where = "source " + f.Source
		}
		return oplog.Errorf(oplog.ENOTFOUND, "since: last_compile: %s has no compile.start marker yet", where)
	}
	f.Since = m.Time
	return nil
}
