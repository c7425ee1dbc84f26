package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// This file is `mcplogd salvage`, and the check that keeps a server from
// starting an empty log beside the index of a lost one.

// refuseLostLog refuses a data directory whose log.db is missing or empty
// while its search index holds records: bbolt would start an empty log,
// and the search index, rebuilt from it, would be deleted.
func refuseLostLog(dir *datadir.Dir) error {
	idx := indexDir(dir)
	fi, err := os.Stat(dir.DBPath())
	what := ""
	switch {
	case errors.Is(err, os.ErrNotExist):
		what = "is missing"
	case err == nil && fi.Size() == 0:
		what = "is empty (0 bytes)"
	default:
		return nil
	}
	if !search.HoldsRecords(idx) {
		return nil
	}
	return fmt.Errorf("the log %s %s, but the search index %s holds records: refusing to start an empty log that would delete the index. "+
		"Restore %s from a backup; or, to start over, move %s away", dir.DBPath(), what, idx, filepath.Base(dir.DBPath()), idx)
}

func (m *Main) salvage(ctx context.Context, args []string) error {
	fs := m.flags("salvage", "--out NEWDIR [--data DIR]", "Copy every readable record of a damaged log.db into a new data directory, "+
		"keeping their IDs, with the token and config.json; the search index is rebuilt at its first start. The server must be stopped.")
	data := m.dataFlag(fs)
	out := fs.String("out", "", "the new data directory (must not exist, or be empty)")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	if *out == "" {
		argsError(m.Stderr, fs, "--out NEWDIR is required")
		return errUsage
	}
	dir, err := stoppedDir(ctx, *data, "salvage", nil)
	if err != nil {
		return err
	}
	if ents, err := os.ReadDir(*out); err == nil && len(ents) > 0 {
		return fmt.Errorf("salvage: %s is not empty; name a new directory", *out)
	}
	if err := os.MkdirAll(*out, 0o700); err != nil {
		return fmt.Errorf("salvage: %w", err)
	}
	rep, err := store.Salvage(dir.DBPath(), filepath.Join(*out, filepath.Base(dir.DBPath())))
	if err != nil {
		return err
	}
	db := filepath.Base(dir.DBPath())
	if err := copyDirFiles(dir.Path, *out, db, db+store.CompactSuffix, db+store.OpenSuffix, "server.json"); err != nil {
		return err
	}
	m.salvageReport(rep, dir, *out)
	return nil
}

func (m *Main) salvageReport(rep store.SalvageReport, dir *datadir.Dir, out string) {
	w := m.Stdout
	fmt.Fprintf(w, "copied %d records (newest ID %d) from %s into %s; ", rep.Copied, rep.LastID, dir.DBPath(), out)
	if rep.Expected > 0 {
		fmt.Fprintf(w, "its counters say it held %d (%d lost)", rep.Expected, rep.Expected-min(rep.Expected, rep.Copied))
	} else {
		fmt.Fprint(w, "its counters are unreadable")
	}
	fmt.Fprintf(w, "; %d records skipped (undecodable%s), %d pages unreadable", rep.Skipped, damagedBlocks(&rep), rep.BadPages)
	if rep.Carved > 0 {
		fmt.Fprintf(w, " (%d records cut out of the pages after them)", rep.Carved)
	}
	fmt.Fprintf(w, ", %d read positions copied\n", rep.Positions)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
	fmt.Fprintf(w, "To use it: keep the server stopped, move %s aside and %s to its place, or start mcplogd --data %s; the search index is rebuilt at start.\n", dir.Path, out, out)
}

// damagedBlocks says how many of the records skipped were lost to damaged
// blocks, and which runs of IDs (a whole block, or the runs of 64 records
// whose checksums failed in a block read in part): ", 2740 of them lost to
// damage in 1 run: #1..#2740".
func damagedBlocks(rep *store.SalvageReport) string {
	if len(rep.Damaged) == 0 {
		return ""
	}
	runs := make([]string, 0, min(len(rep.Damaged), 4))
	for i, d := range rep.Damaged {
		if i == cap(runs) {
			runs = append(runs, "…")
			break
		}
		runs = append(runs, fmt.Sprintf("#%d..#%d", d.From, d.To))
	}
	noun := "runs"
	if len(rep.Damaged) == 1 {
		noun = "run"
	}
	return fmt.Sprintf(", %d of them lost to damage in %d %s: %s", rep.DamagedRecords, len(rep.Damaged), noun, strings.Join(runs, " "))
}

// copyDirFiles copies the regular files of src into dst, except skip.
func copyDirFiles(src, dst string, skip ...string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || slices.Contains(skip, e.Name()) {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return fmt.Errorf("salvage: %w", err)
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
