package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/bench"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// backend is the log as the client commands reach it: the running server
// over HTTP when there is one, else the store opened directly.
type backend struct {
	mcptools.Backend
	close func()
}

func (b backend) Close() { b.close() }

// connect opens dir's log (see openBackend); isRemote says whether it goes
// through a running server.
func connect(ctx context.Context, dir *datadir.Dir) (b backend, isRemote bool, err error) {
	ab, closeFn, err := openBackend(ctx, dir, nil)
	if err != nil {
		return backend{}, false, err
	}
	_, isRemote = ab.(*client.Remote)
	return backend{ab, closeFn}, isRemote, nil
}

// connectExisting connects to the log of the data directory at path,
// which must exist (a read has nothing to read in a new one).
func connectExisting(ctx context.Context, path string) (backend, error) {
	dir, err := datadir.Existing(path)
	if err != nil {
		return backend{}, err
	}
	b, _, err := connect(ctx, dir)
	return b, err
}

func (m *Main) link(_ context.Context, args []string) error {
	fs := m.flags("link", "[--data DIR]", "Print the MCP link of a data directory (the same across launches).")
	data := m.dataFlag(fs)
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	dir, err := datadir.Open(*data)
	if err != nil {
		return err
	}
	token, err := dir.Token()
	if err != nil {
		return err
	}
	s, err := dir.Server()
	if err != nil {
		return err
	}
	if s.Addr == "" {
		s.Addr = datadir.DefaultAddr
	}
	fmt.Fprintln(m.Stdout, datadir.Link(s.BaseURL(), token))
	return nil
}

func (m *Main) token(ctx context.Context, args []string) error {
	fs := m.flags("token", "[--new] [--data DIR]", "Print the access token; --new replaces it (a running server switches at once and the old link stops working).")
	data := m.dataFlag(fs)
	rotate := fs.Bool("new", false, "make a new token")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	dir, err := datadir.Open(*data)
	if err != nil {
		return err
	}
	token, err := dir.Token()
	if err != nil {
		return err
	}
	if *rotate {
		b, _, err := connect(ctx, dir)
		if err != nil {
			return err
		}
		if r, ok := b.Backend.(*client.Remote); ok {
			token, err = r.RotateToken(ctx)
		} else {
			token, err = dir.NewToken()
		}
		b.Close()
		if err != nil {
			return err
		}
	}
	fmt.Fprintln(m.Stdout, token)
	return nil
}

func (m *Main) show(ctx context.Context, args []string) error {
	fs := m.flags("show", "ID [--data DIR]", "Print one record in full as JSON.")
	data := m.dataFlag(fs)
	if err := m.parse(fs, args, 1); err != nil {
		return err
	}
	id, err := strconv.ParseUint(fs.Arg(0), 10, 64)
	if err != nil || id == 0 {
		return fmt.Errorf("ID: %q is not a record ID (a positive integer)", fs.Arg(0))
	}
	b, err := connectExisting(ctx, *data)
	if err != nil {
		return err
	}
	defer b.Close()
	r, err := b.Get(ctx, id)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s\n", out)
	return nil
}

func (m *Main) tail(ctx context.Context, args []string) error {
	fs := m.flags("tail", "[-f] [-n N] [--level L] [--name N] [--source S] [--kind K] [--json]", "Print the newest console lines; with -f keep printing new ones as they arrive.")
	data := m.dataFlag(fs)
	follow := fs.Bool("f", false, "follow: keep printing new lines")
	n := fs.Int("n", 20, "how many of the newest lines to print first (max 1000)")
	level := fs.String("level", "", "minimum level: debug, info, warn, error or fatal")
	name := fs.String("name", "", "only this log name")
	source := fs.String("source", "", "only this source")
	kind := fs.String("kind", "line", "line, op or any")
	asJSON := fs.Bool("json", false, "print each record as one JSON line")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	q := oplog.TailQuery{Filter: oplog.Filter{Name: *name, Source: *source}, Limit: *n}
	var err error
	if q.MinLevel, err = oplog.ParseLevel(*level); err != nil {
		return fmt.Errorf("--level: %s", oplog.ErrorMessage(err))
	}
	if q.Kind, err = oplog.ParseKind(*kind); err != nil {
		return fmt.Errorf("--kind: %s", oplog.ErrorMessage(err))
	}
	if *n < 1 {
		return fmt.Errorf("-n: want at least 1, got %d", *n)
	}
	dir, err := datadir.Existing(*data)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(m.Stdout)
	defer w.Flush()
	var b backend
	var isRemote bool
	defer func() {
		if b.Backend != nil {
			b.Close()
		}
	}()
	for {
		if *follow && ctx.Err() != nil {
			return nil
		}
		if b.Backend == nil {
			if b, isRemote, err = connect(ctx, dir); err != nil {
				if *follow && ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
		if *follow && isRemote {
			q.Wait = 25 * time.Second
		}
		t, err := b.Tail(ctx, q)
		if !isRemote || err != nil {
			// Without a server, look again later without holding the file, so
			// that one can start; after an error, connect afresh.
			b.Close()
			b = backend{}
		}
		if err != nil {
			if *follow && ctx.Err() != nil {
				return nil
			}
			if !*follow || !isRemote {
				return err
			}
			fmt.Fprintf(m.Stderr, "mcplogd tail: %v; reconnecting\n", err)
		} else {
			printTail(w, &t, *asJSON)
			if err := w.Flush(); err != nil {
				return err
			}
			if !*follow {
				return nil
			}
			q.SinceID, q.HasSince, q.Revision, q.Limit = t.LastID, true, t.Revision, oplog.MaxTailLimit
			if isRemote || t.More {
				continue
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func printTail(w io.Writer, t *oplog.Tail, asJSON bool) {
	if t.Reset {
		fmt.Fprintln(w, "--- the log was reset (cleared or replaced); starting over ---")
	}
	if t.Dropped > 0 {
		fmt.Fprintf(w, "--- %d records were removed by retention before they were read ---\n", t.Dropped)
	}
	for i := range t.Lines {
		r := &t.Lines[i]
		if asJSON {
			b, _ := json.Marshal(r)
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		label := r.Source
		if r.Name != "" {
			label += "/" + r.Name
		}
		fmt.Fprintf(w, "%s #%d %-5s %s %s\n", r.Time.Format("2006-01-02 15:04:05.000"), r.ID, strings.ToUpper(r.Level.String()), label, r.Text)
	}
}

// importBatch is how many lines go into one append; small enough to stay
// under the server's default body limit with ~1 KB lines.
const importBatch = 500

func (m *Main) importFile(ctx context.Context, args []string) error {
	fs := m.flags("import", "FILE|- [--data DIR]", "Append NDJSON lines (the POST /api/v1/logs format, one object per line) from FILE or standard input.")
	data := m.dataFlag(fs)
	if err := m.parse(fs, args, 1); err != nil {
		return err
	}
	in, size := m.Stdin, int64(0)
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		in = f
	}
	dir, err := datadir.Open(*data)
	if err != nil {
		return err
	}
	b, _, err := connect(ctx, dir)
	if err != nil {
		return err
	}
	defer b.Close()
	progress := newProgress(m.Stderr, size)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var batch []oplog.Record
	var batchBytes int
	imported, lineNo := 0, 0
	var first, last uint64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := b.Append(ctx, batch); err != nil {
			return fmt.Errorf("appending lines before line %d: %w (%d lines were imported before them)", lineNo+1, err, imported)
		}
		if first == 0 {
			first = batch[0].ID
		}
		last = batch[len(batch)-1].ID
		imported += len(batch)
		batch, batchBytes = batch[:0], 0
		progress.update(imported)
		return nil
	}
	var readBytes int64
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		readBytes += int64(len(line)) + 1
		progress.bytes = readBytes
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		r, err := api.DecodeLine(line)
		if err != nil {
			return fmt.Errorf("line %d: %s (%d lines before it were imported)", lineNo, oplog.ErrorMessage(err), imported)
		}
		batch = append(batch, r)
		batchBytes += len(line)
		if len(batch) == importBatch || batchBytes > 512<<10 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("line %d: %w", lineNo+1, err)
	}
	if err := flush(); err != nil {
		return err
	}
	progress.done()
	if imported == 0 {
		fmt.Fprintln(m.Stdout, "imported 0 lines")
		return nil
	}
	fmt.Fprintf(m.Stdout, "imported %d lines (IDs %d to %d)\n", imported, first, last)
	return nil
}

// progress draws a one-line progress bar on a terminal, and nothing elsewhere.
type progress struct {
	w     io.Writer
	on    bool
	total int64 // bytes, 0 when unknown
	bytes int64
	last  time.Time
}

func newProgress(w io.Writer, total int64) *progress {
	f, ok := w.(*os.File)
	on := false
	if ok {
		if st, err := f.Stat(); err == nil {
			on = st.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progress{w: w, on: on, total: total}
}

func (p *progress) update(lines int) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\rimported %d lines", lines)
		return
	}
	frac := min(float64(p.bytes)/float64(p.total), 1)
	const width = 30
	bar := strings.Repeat("#", int(frac*width)) + strings.Repeat(".", width-int(frac*width))
	fmt.Fprintf(p.w, "\r[%s] %3.0f%% %d lines", bar, frac*100, lines)
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (m *Main) bench(_ context.Context, args []string) error {
	return bench.Main(args)
}
