package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// replay sends recorded operations to their upstreams again, through the
// running server (which holds the upstream connections), in order, and
// prints whether each answered the same.
func (m *Main) replay(ctx context.Context, args []string) error {
	fs := m.flags("replay", "ID [ID…|FROM..TO] [--yes] [--data DIR]",
		"Replay recorded operations against their upstreams, in order, and print a table of same/differs. "+
			"Operations of tools the upstream does not mark read-only are only replayed with --yes.")
	data := m.dataFlag(fs)
	yes := fs.Bool("yes", false, "also replay tools that may change the game (not marked read-only)")
	if err := m.parse(fs, args, -1); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		argsError(m.Stderr, fs, "no record ID; give one or more, or FROM..TO")
		return errUsage
	}
	dir, token, err := existingDir(*data)
	if err != nil {
		return err
	}
	r := runningServer(ctx, dir, token)
	if r == nil {
		return fmt.Errorf("replay needs the running server, which holds the upstream connections; start it with: mcplogd serve --data %s --upstream NAME=URL", *data)
	}
	defer r.Close()
	c := r.Client
	ids, err := m.replayIDs(ctx, c, fs.Args())
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSOURCE\tTOOL\tREPLAY\tOUTCOME")
	var failed int
	var firstErr string // the first failure's message, while every row fails alike
	for i, id := range ids {
		r, err := c.Replay(ctx, id, *yes)
		if err != nil {
			if msg := cliMessage(fs, err); i == failed && (i == 0 || msg == firstErr) {
				firstErr = msg
			} else {
				firstErr = ""
			}
			failed++
			source, tool := "-", "-"
			if rec, gerr := c.Get(ctx, id); gerr == nil {
				source, tool = rec.Source, rec.Tool
			}
			fmt.Fprintf(w, "%d\t%s\t%s\t-\t%s\n", id, source, orDash(tool), oplog.OneLine(cliMessage(fs, err), true))
			continue
		}
		outcome := "same"
		if !r.Same {
			outcome = "differs: " + r.Diff
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\n", id, r.Original.Source, r.Original.Tool, r.Replay.ID, oplog.OneLine(outcome, true))
	}
	if failed == len(ids) && firstErr != "" {
		// Every row failed alike (no upstream, or it is down): say it once;
		// the table, still buffered in w, is not printed.
		if failed == 1 {
			return errors.New(firstErr)
		}
		return fmt.Errorf("%s (all %d operations)", firstErr, failed)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d operations not replayed", failed, len(ids))
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// replayIDs reads IDs and FROM..TO ranges; a range stands for the
// operations in it, oldest first.
func (m *Main) replayIDs(ctx context.Context, c *client.Client, args []string) ([]uint64, error) {
	var ids []uint64
	for _, a := range args {
		from, to, isRange := strings.Cut(a, "..")
		lo, err1 := strconv.ParseUint(from, 10, 64)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.ParseUint(to, 10, 64)
		}
		if err1 != nil || err2 != nil || lo == 0 || hi < lo {
			return nil, fmt.Errorf("replay: %q is neither an ID nor a range FROM..TO", a)
		}
		if !isRange {
			ids = append(ids, lo)
			continue
		}
		for since := lo - 1; since < hi; {
			t, err := c.Tail(ctx, oplog.TailQuery{Filter: oplog.Filter{Kind: oplog.KindOp}, SinceID: since, HasSince: true, Limit: oplog.MaxTailLimit})
			if err != nil {
				return nil, err
			}
			for _, r := range t.Lines {
				if r.ID <= hi {
					ids = append(ids, r.ID)
				}
			}
			if t.Reset || t.LastID <= since || len(t.Lines) == 0 {
				break
			}
			since = t.LastID
		}
	}
	return ids, nil
}
