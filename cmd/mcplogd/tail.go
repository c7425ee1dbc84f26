package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

func (m *Main) tail(ctx context.Context, args []string) error {
	fs := m.flags("tail", "[-f] [-n N] [-r] [--since T] [--until T] [--level L] [--name N] [--source S] [--kind K] [--run R] [--json|-o json]",
		"Print the newest console lines and markers, oldest first (-r: newest first); with -f keep printing new ones as they arrive. "+
			"With --since or --until and no -n, every line of that time.")
	data := m.dataFlag(fs)
	follow := fs.Bool("f", false, "follow: keep printing new lines")
	n := fs.Int("n", 20, "how many of the newest lines to print first")
	reverse := fs.Bool("r", false, "newest first")
	var ft oplog.FilterText
	filterVars(fs, &ft, "line")
	fs.StringVar(&ft.Since, "since", "", "only lines at or after this time: "+timeForms)
	fs.StringVar(&ft.Until, "until", "", "only lines before this time, written like --since")
	out := outputVars(fs, "print each record as one JSON line")
	run := fs.String("run", "", "only lines of this run of each source, as it is when tail starts: current, previous, a run number, or an offset as mcplogd runs prints it (0, -1, ...)")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	nSet := false
	fs.Visit(func(fl *flag.Flag) { nSet = nSet || fl.Name == "n" })
	switch {
	case *n < 1:
		return fmt.Errorf("-n: want at least 1, got %d", *n)
	case *follow && *reverse:
		return errors.New("-f and -r: give one of the two (a followed tail prints the newest line last)")
	case *follow && ft.Until != "":
		return errors.New("-f and --until: give one of the two (a followed tail has no end)")
	}
	dir, err := datadir.Existing(*data)
	if err != nil {
		return err
	}
	w, p, wait := m.Stdout, m.paintFor(m.Stdout), func() {}
	if !*follow {
		w, p, wait = m.page(out.noPager)
	}
	defer wait()
	t := &tailer{dir: dir, q: oplog.TailQuery{Limit: *n}, follow: *follow, asJSON: out.json,
		args:    &oplog.Args{SearchText: oplog.SearchText{FilterText: ft}, Run: *run},
		reverse: *reverse, all: !nSet && (ft.Since != "" || ft.Until != ""), w: bufio.NewWriter(w), stderr: m.Stderr, paint: p,
		hint: !*follow && (ft.Level != "" || ft.Name != "" || ft.Source != "" || ft.Since != "" || ft.Until != "" || *run != "" || ft.Kind != "line")}
	defer t.w.Flush()
	defer t.disconnect()
	return t.run(ctx)
}

// tailer is one run of `mcplogd tail`.
type tailer struct {
	dir            *datadir.Dir
	q              oplog.TailQuery
	follow, asJSON bool
	reverse        bool        // -r: newest first (never with follow)
	all            bool        // every line of the filter's time, not the newest q.Limit
	args           *oplog.Args // the filter flags, resolved into q.Filter at the first connection (--run to the runs as they are then); nil once resolved
	paint          paint
	w              *bufio.Writer
	stderr         io.Writer
	b              backend // zero while not connected
	hint           bool    // the first page is yet to come and filters were given: an empty one prints oplog.FilterHint
}

// printHint prints, once, the hint of the filters, for an empty first
// page.
func (t *tailer) printHint(ctx context.Context) {
	if !t.hint {
		return
	}
	t.hint = false
	if h := oplog.FilterHint(ctx, t.b, t.q.Filter); h != nil {
		if t.asJSON {
			b, _ := marshalJSON(struct {
				Hint *oplog.SearchHint `json:"hint"`
			}{h}, false)
			fmt.Fprintf(t.w, "%s\n", b)
			return
		}
		fmt.Fprintln(t.w, t.paint.dim("-- "+h.Text))
	}
}

func (t *tailer) disconnect() {
	if t.b.Backend != nil {
		t.b.Close()
		t.b = backend{}
	}
}

// run prints the newest lines and, with -f, the new ones until ctx ends.
// Through a server it long-polls; without one it looks again every half
// second without holding the file, so that a server can start.
func (t *tailer) run(ctx context.Context) error {
	for {
		if t.follow && ctx.Err() != nil {
			return nil
		}
		more, err := t.once(ctx)
		if err != nil {
			if t.follow && ctx.Err() != nil {
				return nil
			}
			return err
		}
		if !t.follow {
			if more && t.all {
				continue
			}
			return nil
		}
		if more {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// once reads and prints one page; more says to read the next one at once.
// A failed read through a server when following is reported and retried.
func (t *tailer) once(ctx context.Context) (more bool, err error) {
	if t.b.Backend == nil {
		if t.b, err = connect(ctx, t.dir, openOptions{}); err != nil {
			return false, err
		}
	}
	if t.args != nil {
		r, err := resolveFlags(ctx, t.b, *t.args)
		if err != nil {
			t.disconnect()
			return false, err
		}
		t.q.Filter, t.args = r.Filter, nil
		t.q.WithMarkers = t.q.Kind == oplog.KindLine
	}
	if t.reverse {
		return false, t.newest(ctx)
	}
	isRemote := t.b.remote != nil
	if t.follow && isRemote {
		t.q.Wait = 25 * time.Second
	}
	switch {
	case t.all && !t.q.HasSince:
		t.q.HasSince, t.q.Limit = true, oplog.MaxTailLimit // from the first ID: the whole time range
	case !t.q.HasSince && t.q.Limit > oplog.MaxTailLimit: // more than a page: from the Nth newest, page by page
		from, err := t.nthNewest(ctx, t.q.Limit)
		if err != nil {
			t.disconnect()
			return false, err
		}
		t.q.SinceID, t.q.HasSince, t.q.Limit, t.all = from-1, true, oplog.MaxTailLimit, true
	}
	page, err := t.b.Tail(ctx, t.q)
	if t.follow && !isRemote || err != nil {
		// Without a server, look again later without holding the file, so
		// that one can start; after an error, connect afresh.
		t.disconnect()
	}
	if err != nil {
		if !t.follow || !isRemote || ctx.Err() != nil {
			return false, err
		}
		fmt.Fprintf(t.stderr, "mcplogd tail: %v; reconnecting\n", err)
		return false, nil
	}
	printTail(t.w, &page, t.asJSON, t.paint)
	if len(page.Lines) == 0 {
		t.printHint(ctx) // (not following: still connected)
	}
	t.hint = false
	if err := t.w.Flush(); err != nil {
		return false, err
	}
	t.q.SinceID, t.q.HasSince, t.q.Revision, t.q.Limit = page.LastID, true, page.Revision, oplog.MaxTailLimit
	return t.follow && isRemote || page.More, nil
}

// nthNewest returns the ID of the nth newest record of the filter (the
// oldest when there are fewer), walking back a page at a time.
func (t *tailer) nthNewest(ctx context.Context, n int) (uint64, error) {
	q, oldest := oplog.Query{Filter: t.q.Filter}, uint64(1)
	for n > 0 {
		q.Count = min(n, oplog.MaxListCount)
		page, err := t.b.List(ctx, q)
		if err != nil || len(page.Records) == 0 {
			return oldest, err
		}
		oldest = page.Records[len(page.Records)-1].ID
		n -= len(page.Records)
		if !page.More {
			break
		}
		q.Before = oldest
	}
	return oldest, nil
}

// newest prints the lines newest first (-r): the newest q.Limit, or with
// all every one, a page of the list at a time.
func (t *tailer) newest(ctx context.Context) error {
	left := t.q.Limit
	if t.all {
		left = -1
	}
	q := oplog.Query{Filter: t.q.Filter}
	for left != 0 {
		q.Count = oplog.MaxListCount
		if left > 0 {
			q.Count = min(left, oplog.MaxListCount)
		}
		page, err := t.b.List(ctx, q)
		if err != nil {
			return err
		}
		printTail(t.w, &oplog.Tail{Lines: page.Records}, t.asJSON, t.paint)
		if len(page.Records) == 0 {
			t.printHint(ctx)
		}
		t.hint = false
		left = max(left-len(page.Records), -1)
		if !page.More || len(page.Records) == 0 {
			break
		}
		q.Before = page.Records[len(page.Records)-1].ID
	}
	return t.w.Flush()
}

func printTail(w io.Writer, t *oplog.Tail, asJSON bool, p paint) {
	if t.Reset {
		fmt.Fprintln(w, p.dim("--- the log was reset (cleared or replaced); starting over ---"))
	}
	if t.Dropped > 0 {
		fmt.Fprintln(w, p.dim(fmt.Sprintf("--- %d records were removed by retention before they were read ---", t.Dropped)))
	}
	for i := range t.Lines {
		r := &t.Lines[i]
		if asJSON {
			b, _ := marshalJSON(r, false)
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		printRecord(w, r, r.Text, p)
	}
}

// printRecord prints one record as a line: time, ID, level, source/name,
// for an operation its status and duration, the text, and for a record
// with a stack how many frames it has (mcplogd show ID prints them).
func printRecord(w io.Writer, r *oplog.Record, text string, p paint) {
	label := r.Source
	if r.Name != "" {
		label += "/" + r.Name
	}
	var op string
	if r.Kind == oplog.KindOp {
		op = p.status(r.Status, "["+r.Status.String())
		if d, ok := opDuration(r); ok {
			op += p.status(r.Status, " "+d)
		}
		op += p.status(r.Status, "]") + " "
	}
	var stack string
	if r.Stack != "" {
		stack = "  " + p.magenta("[stack: "+mcptools.Plural(len(stackFrames(r.Stack)), "line")+"]")
	}
	if r.Kind == oplog.KindMarker {
		text = p.dim("-- " + text + " --")
	}
	fmt.Fprintf(w, "%s %s %s %s %s%s%s\n", p.dim(r.Time.Local().Format("2006-01-02 15:04:05.000")), p.dim(fmt.Sprintf("#%d", r.ID)),
		p.level(r.Level, fmt.Sprintf("%-5s", strings.ToUpper(r.Level.String()))), p.cyan(label), op, text, stack)
}
