package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// indexDir is where a data directory keeps its search index.
func indexDir(dir *datadir.Dir) string { return filepath.Join(dir.Path, "index") }

// openIndex opens (or starts rebuilding) dir's search index over db and
// gives it to l, which closes it.
func openIndex(dir *datadir.Dir, l *oplog.Log, db *store.DB, logger *slog.Logger) error {
	idx, err := search.Open(indexDir(dir), db, &search.Options{Changed: l.Changed, Logger: logger})
	if err != nil {
		return err
	}
	l.SetIndex(idx)
	return nil
}

func (m *Main) search(ctx context.Context, args []string) error {
	fs := m.flags("search", "QUERY [flags]", "Search records newest first. QUERY: words (all required), field:value (text, stack, name, level, "+
		"source, kind, tool, status, time), \"phrases\", OR, NOT, parentheses; e.g. 'level:error AND name:Physics \"null reference\"'.")
	data := m.dataFlag(fs)
	var in struct{ level, name, source, kind, tool, status, since, until, cursor string }
	fs.StringVar(&in.level, "level", "", "minimum level: debug, info, warn, error or fatal")
	fs.StringVar(&in.name, "name", "", "only this log name")
	fs.StringVar(&in.source, "source", "", "only this source")
	fs.StringVar(&in.kind, "kind", "", "line, op or any")
	fs.StringVar(&in.tool, "tool", "", "only operations of this tool")
	fs.StringVar(&in.status, "status", "", "only operations with this status")
	fs.StringVar(&in.since, "since", "", "only records at or after this time (RFC 3339, -1h, Unix ms)")
	fs.StringVar(&in.until, "until", "", "only records before this time")
	fs.StringVar(&in.cursor, "cursor", "", "continue after a previous page (its next cursor)")
	limit := fs.Int("limit", 20, "hits to print (max 500)")
	asJSON := fs.Bool("json", false, "print each hit as one JSON line (record and fragment)")
	if err := m.parse(fs, args, -1); err != nil {
		return err
	}
	q := oplog.SearchQuery{Query: strings.Join(fs.Args(), " "), Filter: oplog.Filter{Name: in.name, Source: in.source},
		Tool: in.tool, Limit: *limit, Cursor: in.cursor}
	var err error
	now := time.Now()
	if q.MinLevel, err = oplog.ParseLevel(in.level); err != nil {
		return fmt.Errorf("--level: %s", oplog.ErrorMessage(err))
	}
	if q.Kind, err = oplog.ParseKind(in.kind); err != nil {
		return fmt.Errorf("--kind: %s", oplog.ErrorMessage(err))
	}
	if q.Status, err = oplog.ParseStatus(in.status); err != nil {
		return fmt.Errorf("--status: %s", oplog.ErrorMessage(err))
	}
	if q.Since, err = oplog.ParseTime(in.since, now); err != nil {
		return fmt.Errorf("--since: %s", oplog.ErrorMessage(err))
	}
	if q.Until, err = oplog.ParseTime(in.until, now); err != nil {
		return fmt.Errorf("--until: %s", oplog.ErrorMessage(err))
	}
	dir, err := datadir.Existing(*data)
	if err != nil {
		return err
	}
	b, closeFn, err := openSearchBackend(ctx, dir)
	if err != nil {
		return err
	}
	defer closeFn()
	p, err := b.Search(ctx, q)
	if err != nil {
		return errors.New(oplog.ErrorMessage(err))
	}
	w := bufio.NewWriter(m.Stdout)
	defer w.Flush()
	for _, h := range p.Hits {
		r := &h.Record
		if *asJSON {
			b, _ := json.Marshal(struct {
				Record   oplog.Record `json:"record"`
				Fragment string       `json:"fragment,omitempty"`
			}{*r, h.Fragment})
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		label := r.Source
		if r.Name != "" {
			label += "/" + r.Name
		}
		text := r.Text
		if h.Fragment != "" {
			text = h.Fragment
		}
		fmt.Fprintf(w, "%s #%d %-5s %s %s\n", r.Time.Format("2006-01-02 15:04:05.000"), r.ID, strings.ToUpper(r.Level.String()), label, text)
	}
	if !*asJSON {
		total := fmt.Sprintf("%d", p.Total)
		if !p.TotalExact {
			total = "about " + total
		}
		fmt.Fprintf(w, "-- %d shown, %s matching", len(p.Hits), total)
		if p.NextCursor != "" {
			fmt.Fprintf(w, "; more with --cursor %s", p.NextCursor)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// openSearchBackend returns the running server of dir when one answers,
// else the store opened directly with its search index.
func openSearchBackend(ctx context.Context, dir *datadir.Dir) (mcptools.Backend, func(), error) {
	if r := runningServer(ctx, dir); r != nil {
		return r, func() { r.Close() }, nil
	}
	db, err := store.Open(dir.DBPath(), nil)
	if err != nil {
		return nil, nil, explainOpen(dir, err)
	}
	l := oplog.New(db, nil)
	if err := openIndex(dir, l, db, nil); err != nil {
		l.Close()
		return nil, nil, err
	}
	return l, func() { l.Close() }, nil
}

// runningServer returns a Remote for dir's server when one answers with its token.
func runningServer(ctx context.Context, dir *datadir.Dir) *client.Remote {
	token, err := dir.Token()
	if err != nil {
		return nil
	}
	s, _ := dir.Server()
	if s.Addr == "" {
		return nil
	}
	c := client.NewClient(s.BaseURL(), token)
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := c.Stats(pctx); err != nil {
		return nil
	}
	return client.NewRemote(c)
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
	dir, err := datadir.Existing(*data)
	if err != nil {
		return err
	}
	if r := runningServer(ctx, dir); r != nil {
		r.Close()
		s, _ := dir.Server()
		return fmt.Errorf("a server (pid %d, %s) holds %s; stop it and run reindex again, or delete %s and restart it: it rebuilds the index at start",
			s.PID, s.BaseURL(), dir.Path, indexDir(dir))
	}
	db, err := store.Open(dir.DBPath(), nil)
	if err != nil {
		return explainOpen(dir, err)
	}
	l := oplog.New(db, nil)
	defer l.Close()
	idx, err := search.Open(indexDir(dir), db, &search.Options{Changed: l.Changed})
	if err != nil {
		return err
	}
	l.SetIndex(idx)
	start := time.Now()
	bar := newProgress(m.Stderr, 0)
	err = idx.Reindex(ctx, func(done, total uint64) {
		if total > 0 {
			bar.total, bar.bytes = int64(total), int64(done)
		}
		bar.update(int(done))
	})
	bar.done()
	if err != nil {
		return err
	}
	st := idx.Status()
	fmt.Fprintf(m.Stdout, "reindexed %d records in %s (%d segments, %d bytes)\n", db.Stats().Records, time.Since(start).Round(time.Millisecond), st.Segments, st.Bytes)
	return nil
}
