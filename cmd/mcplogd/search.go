package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/oplog"
)

func (m *Main) search(ctx context.Context, args []string) error {
	fs := m.flags("search", "QUERY [flags]", "Search records newest first. QUERY: words (all required), field:value (text, stack, name, level, "+
		"source, kind, tool, status, run, time), \"phrases\", OR, NOT, parentheses; e.g. 'level:error AND name:Physics \"null reference\"'. "+
		"An error message pasted as the game printed it finds its records too, time and level in front or not: "+
		"'ERROR: res://player.gd:42 - Invalid get index'.")
	data := m.dataFlag(fs)
	var st oplog.SearchText
	filterVars(fs, &st.FilterText, "")
	fs.StringVar(&st.Tool, "tool", "", "only operations of this tool")
	fs.StringVar(&st.Status, "status", "", "only operations with this status: pending, success, error, timeout, cancelled or crashed")
	fs.StringVar(&st.Since, "since", "", "only records at or after this time: "+timeForms+", or last_compile")
	run := fs.String("run", "", "only records of this run of each source: current, previous, a run number, or an offset as mcplogd runs prints it (0, -1, ...)")
	fs.StringVar(&st.Until, "until", "", "only records before this time, written like --since")
	fs.StringVar(&st.Cursor, "cursor", "", "continue after a previous page (its next cursor)")
	fs.IntVar(&st.Limit, "limit", 20, "hits to print (max 500)")
	out := outputVars(fs, "print each hit as one JSON line (record and fragment), then {\"nextCursor\": …} when there are more")
	inStudio := fs.Bool("studio", false, "search every machine of the project in the studio (the running server's --studio, else config.json's \"studio\") instead of this log")
	machine := fs.String("machine", "", "with --studio: only this machine")
	if err := m.parse(fs, args, -1); err != nil {
		return err
	}
	st.Query = strings.Join(fs.Args(), " ")
	a := oplog.Args{SearchText: st, Run: *run, Machine: *machine}
	if *inStudio {
		a.Scope = "studio"
		q, err := resolveFlags(ctx, nil, a)
		if err != nil {
			return err
		}
		return m.studioSearch(ctx, *data, q, out.json)
	}
	p, err := readLog(ctx, *data, openOptions{Search: true}, func(b backend) (oplog.SearchPage, error) {
		q, err := resolveFlags(ctx, b, a)
		if err != nil {
			return oplog.SearchPage{}, err
		}
		q.Hint = true // an empty answer says what to send instead
		p, err := b.Search(ctx, q.SearchQuery)
		if err != nil {
			return p, errors.New(cliMessage(fs, err))
		}
		return p, nil
	})
	if err != nil {
		return err
	}
	return m.paged(out.noPager, func(w io.Writer, pt paint) error {
		printHits(w, &p, out.json, pt)
		return nil
	})
}

// printHits prints a page of search hits, one line each with the matched
// word in bold (pt), and a last line with the totals; asJSON prints each
// hit as one JSON object instead, its fragment's **marks** kept.
func printHits(w io.Writer, p *oplog.SearchPage, asJSON bool, pt paint) {
	for _, h := range p.Hits {
		r := &h.Record
		if asJSON {
			b, _ := marshalJSON(struct {
				Record   oplog.Record `json:"record"`
				Fragment string       `json:"fragment,omitempty"`
			}{*r, h.Fragment}, false)
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		text := r.Text
		if h.Fragment != "" {
			text = pt.highlight(h.Fragment)
		}
		printRecord(w, r, text, pt)
	}
	if asJSON {
		if p.Hint != nil { // one line of its own: no hit has a hint
			b, _ := marshalJSON(struct {
				Hint *oplog.SearchHint `json:"hint"`
			}{p.Hint}, false)
			fmt.Fprintf(w, "%s\n", b)
		}
		if p.NextCursor != "" { // the next page's --cursor, a line of its own too
			b, _ := marshalJSON(struct {
				NextCursor string `json:"nextCursor"`
			}{p.NextCursor}, false)
			fmt.Fprintf(w, "%s\n", b)
		}
		return
	}
	total := fmt.Sprintf("%d", p.Total)
	if !p.TotalExact {
		total = "about " + total
	}
	summary := fmt.Sprintf("-- %d shown, %s matching", len(p.Hits), total)
	if p.NextCursor != "" {
		summary += "; more with --cursor " + p.NextCursor
	}
	fmt.Fprintln(w, pt.dim(summary))
	if p.Hint != nil {
		fmt.Fprintln(w, "-- "+p.Hint.Text)
	}
}

// reindex rebuilds the search index of a data directory no server holds:
// a server rebuilds a missing or damaged index itself at start, and two
// processes cannot share the bbolt file.
func (m *Main) reindex(ctx context.Context, args []string) error {
	fs := m.flags("reindex", "[--data DIR]", "Rebuild the search index from the log, with a progress bar. The server must be stopped "+
		"(a server rebuilds a missing or damaged index by itself at start).")
	data := m.dataFlag(fs)
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	dir, err := stoppedDir(ctx, *data, "reindex", func(dir *datadir.Dir) string {
		return ", or delete " + indexDir(dir) + " and restart it: it rebuilds the index at start"
	})
	if err != nil {
		return err
	}
	o, err := openLog(dir, openOptions{Search: true})
	if err != nil {
		return err
	}
	defer o.Close()
	start := time.Now()
	bar := newProgress(m.Stderr, 0)
	err = o.idx.Reindex(ctx, func(done, total uint64) {
		if total > 0 {
			bar.total, bar.bytes = int64(total), int64(done)
		}
		bar.update(int(done))
	})
	bar.done()
	if err != nil {
		return err
	}
	st := o.idx.Status()
	fmt.Fprintf(m.Stdout, "reindexed %d records in %s (the term sets of %d complete chunks, %d bytes)\n", o.db.Stats().Records, time.Since(start).Round(time.Millisecond), st.Segments, st.Bytes)
	return nil
}
