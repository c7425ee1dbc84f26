package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// defaultRunsShown is how many of the newest runs `mcplogd runs` prints
// without --limit or --all; each crashed one costs a Get for its crash.
const defaultRunsShown = 20

// crashTextRunes is how much of a crash's first line the table shows.
const crashTextRunes = 80

func (m *Main) runs(ctx context.Context, args []string) error {
	fs := m.flags("runs", "[--source S] [--limit N] [--all] [-r] [--json|-o json] [--data DIR]",
		"List the runs of each source, oldest first (-r: newest first), like journalctl --list-boots: its offset (0 a source's current run, -1 the one before, ...), "+
			"source, run number, first and last record's time, duration, records, errors, and how it ended (crashed, exited, ended or running), "+
			"with a crashed run's crash record and its first line.")
	data := m.dataFlag(fs)
	source := fs.String("source", "", "only the runs of this source")
	limit := fs.Int("limit", defaultRunsShown, "how many of the newest runs to print")
	all := fs.Bool("all", false, "print every run")
	reverse := fs.Bool("r", false, "newest first")
	out := outputVars(fs, "print each run as one JSON line (oplog.RunInfo's fields, offset and crashText)")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	limitSet := false
	fs.Visit(func(f *flag.Flag) { limitSet = limitSet || f.Name == "limit" })
	switch {
	case *all && limitSet:
		return errors.New("--all and --limit: give one of the two")
	case *limit < 1:
		return fmt.Errorf("--limit: want at least 1, got %d", *limit)
	case *all:
		*limit = 0
	}
	list, err := readLog(ctx, *data, openOptions{}, func(b backend) (runList, error) {
		return listRuns(ctx, b, strings.TrimSpace(*source), *limit)
	})
	if err != nil {
		return err
	}
	if *reverse {
		slices.Reverse(list.Runs)
	}
	return m.paged(out.noPager, func(w io.Writer, p paint) error { return printRuns(w, &list, out.json, p) })
}

// shownRun is one line of `mcplogd runs`.
type shownRun struct {
	// Offset counts back from its source's current run (by start time,
	// as oplog.Latest picks it): 0, -1, -2, ...
	Offset int `json:"offset"`
	oplog.RunInfo
	// CrashText is the first line of a crashed run's crash as a crash
	// group's title says it (crash.Message: the exception a logger's
	// message carries, "KeyError: 'dragon'"); "" when the run did not
	// crash or retention removed the record.
	CrashText string `json:"crashText,omitempty"`
}

// runList is what `mcplogd runs` prints: the newest runs, oldest first,
// and how many runs there are in all.
type runList struct {
	Runs  []shownRun
	Total int
}

// listRuns reads source's runs ("" every source's), orders them by start
// time, oldest first, gives each its offset and keeps the newest limit (0:
// all), reading the crash record of each crashed run kept. A source with
// no runs is an error that lists the sources there are.
func listRuns(ctx context.Context, b backend, source string, limit int) (runList, error) {
	runs, err := b.Runs(ctx, source)
	if err != nil {
		return runList{}, err
	}
	if len(runs) == 0 && source != "" {
		return runList{}, noSuchSource(ctx, b, source)
	}
	// By start, the higher run first at the same time, as oplog.Latest
	// decides which run is current.
	slices.SortStableFunc(runs, func(a, b oplog.RunInfo) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.Run, b.Run), cmp.Compare(a.Source, b.Source))
	})
	shown := make([]shownRun, len(runs))
	later := map[string]int{} // runs of each source after the one at hand
	for i := len(runs) - 1; i >= 0; i-- {
		shown[i] = shownRun{Offset: -later[runs[i].Source], RunInfo: runs[i]}
		later[runs[i].Source]++
	}
	if limit > 0 && len(shown) > limit {
		shown = shown[len(shown)-limit:]
	}
	for i := range shown {
		r := &shown[i]
		if r.Outcome != oplog.OutcomeCrashed || r.CrashID == 0 {
			continue
		}
		rec, err := b.Get(ctx, r.CrashID)
		switch {
		case oplog.ErrorCode(err) == oplog.ENOTFOUND: // retention removed it: the ID stays
		case err != nil:
			return runList{}, fmt.Errorf("the crash of %s's run %d (record %d): %w", r.Source, r.Run, r.CrashID, err)
		default:
			r.CrashText = firstLine(crash.Message(&rec))
		}
	}
	return runList{Runs: shown, Total: len(runs)}, nil
}

// noSuchSource is the error for --source naming a source without runs.
func noSuchSource(ctx context.Context, b backend, source string) error {
	every, err := b.Runs(ctx, "")
	if err != nil {
		return err
	}
	var names []string
	for _, r := range every {
		if !slices.Contains(names, r.Source) {
			names = append(names, r.Source)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("--source: no runs of %q: the log has no runs yet", source)
	}
	slices.Sort(names)
	return fmt.Errorf("--source: no runs of %q; the sources are %s", source, strings.Join(names, ", "))
}

// firstLine is s's first non-empty line, trimmed.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// printRuns prints the runs as a table, oldest first, or with asJSON one
// JSON object per run.
func printRuns(w io.Writer, list *runList, asJSON bool, p paint) error {
	if asJSON {
		for i := range list.Runs {
			line, err := marshalJSON(&list.Runs[i], false)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\n", line)
		}
		return nil
	}
	if len(list.Runs) == 0 {
		fmt.Fprintln(w, "no runs")
		return nil
	}
	const timeFormat = "2006-01-02 15:04:05"
	rows := [][]string{{"IDX", "SOURCE", "RUN", "START", "LAST", "DURATION", "RECORDS", "ERRORS", "OUTCOME"}}
	for _, r := range list.Runs {
		rows = append(rows, []string{strconv.Itoa(r.Offset), r.Source, strconv.FormatUint(r.Run, 10),
			r.Start.Local().Format(timeFormat), r.Last.Local().Format(timeFormat), roundDuration(r.Last.Sub(r.Start)),
			strconv.FormatUint(r.Records, 10), strconv.FormatUint(r.Errors, 10), r.Outcome})
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for c, cell := range row {
			width[c] = max(width[c], utf8.RuneCountInString(cell))
		}
	}
	left := []bool{false, true, false, true, true, false, false, false, true}
	for i, row := range rows {
		var b strings.Builder
		for c, cell := range row {
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(cell))
			if c > 0 {
				b.WriteString("  ")
			}
			if c == len(row)-1 && i > 0 {
				cell = paintOutcome(p, cell)
			}
			if left[c] {
				b.WriteString(cell + pad)
			} else {
				b.WriteString(pad + cell)
			}
		}
		line := b.String()
		if i == 0 {
			line = p.bold(line + "  CRASH")
		} else if r := &list.Runs[i-1]; r.CrashID != 0 && r.Outcome == oplog.OutcomeCrashed {
			text, cut := oplog.ClipRunes(r.CrashText, crashTextRunes)
			if cut {
				text += "…"
			}
			line += fmt.Sprintf("  #%d %s", r.CrashID, text)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	if list.Total > len(list.Runs) {
		fmt.Fprintf(w, "(the newest %d of %d runs; --all shows every run)\n", len(list.Runs), list.Total)
	}
	return nil
}

// paintOutcome colours an outcome (already padded): crashed as an error,
// running in cyan, ended dimmed.
func paintOutcome(p paint, cell string) string {
	switch strings.TrimSpace(cell) {
	case oplog.OutcomeCrashed:
		return p.level(oplog.LevelError, cell)
	case oplog.OutcomeRunning:
		return p.cyan(cell)
	case oplog.OutcomeEnded:
		return p.dim(cell)
	}
	return cell
}
