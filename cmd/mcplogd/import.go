package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/follow"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

func (m *Main) importFile(ctx context.Context, args []string) error {
	fs := m.flags("import", "FILE|- [--parser P] [--source NAME] [--data DIR]",
		"Import a log: a game's log file (read by the parsers serve --follow uses, detected from its first lines), JSON lines of a "+
			"structured logger, or NDJSON records (the POST /api/v1/logs format). Importing the same file again adds nothing; a file that grew adds what is new.")
	data := m.dataFlag(fs)
	fs.Bool("create", false, "accepted for older command lines: import makes a missing data directory anyway")
	parser := fs.String("parser", "", "the log's format: "+follow.ParserNames+" (default: detected)")
	source := fs.String("source", "", "the records' source (default: the file's name, \"stdin\" for -); NDJSON records keep their own")
	if err := m.parse(fs, args, 1); err != nil {
		return err
	}
	name := fs.Arg(0)
	in, size, date := m.Stdin, int64(0), time.Now
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			size = st.Size()
			date = st.ModTime
		}
		in = f
	}
	in, err := refuseNonObject(in)
	if err != nil {
		return err
	}
	dir, _, err := openDir(*data)
	if err != nil {
		return err
	}
	b, err := connect(ctx, dir, openOptions{})
	if err != nil {
		return err
	}
	defer b.Close()
	opts := importOptions(name, *source, *parser, date)
	bar := newProgress(m.Stderr, size)
	opts.Progress = func(read int64, records int) { bar.bytes = read; bar.update(records) }
	res, err := follow.Import(ctx, importSink(b), in, opts)
	bar.done()
	if err != nil {
		return fmt.Errorf("import %s: %w", name, err)
	}
	if b.local != nil && res.Records > 0 {
		// A server seals the records once appends pause; this process
		// exits now, so it does that itself.
		if err := b.local.db.Settle(ctx); err != nil {
			return fmt.Errorf("import %s: the records are in, but sealing them failed: %w", name, err)
		}
	}
	m.importReport(name, opts.Source, res)
	return nil
}

// importOptions are follow.Import's options for the file called name.
func importOptions(name, source, parser string, date func() time.Time) follow.ImportOptions {
	if source == "" {
		source = "stdin"
		if name != "-" {
			source = filepath.Base(name)
		}
	}
	opts := follow.ImportOptions{Source: source, Parser: parser, Date: date}
	if name != "-" {
		opts.File, _ = filepath.Abs(name)
	}
	explicit := source != "stdin" && source != filepath.Base(name)
	opts.Decode = func(line []byte) (oplog.Record, error) {
		r, err := api.DecodeLine(line)
		if err == nil && r.Source == "" && explicit {
			r.Source = source
		}
		return r, err
	}
	return opts
}

// importSink is where an import goes: the running server, or the log.
func importSink(b backend) follow.Sink {
	if b.remote != nil {
		return b.remote
	}
	return b.local.log
}

// importReport says what an import did.
func (m *Main) importReport(name, source string, res follow.ImportResult) {
	switch {
	case res.Records == 0 && res.Skipped > 0 && res.Skipped == res.Bytes:
		fmt.Fprintf(m.Stdout, "%s was imported into source %s before: nothing new (%s)\n", name, source, mcptools.Plural(int(res.Bytes), "byte"))
	case res.Records == 0:
		fmt.Fprintf(m.Stdout, "imported 0 records from %s\n", name)
	default:
		what := "records"
		if res.Parser == "ndjson" {
			what = "lines"
		}
		fmt.Fprintf(m.Stdout, "imported %d %s (IDs %d to %d) from %s", res.Records, what, res.First, res.Last, name)
		if res.Parser != "ndjson" {
			fmt.Fprintf(m.Stdout, " into source %s (parser %s)", source, res.Parser)
		}
		if res.Skipped > 0 {
			fmt.Fprintf(m.Stdout, "; its first %s were imported before", mcptools.Plural(int(res.Skipped), "byte"))
		}
		fmt.Fprintln(m.Stdout)
	}
}

// ndjsonExample is one line of the NDJSON import reads.
const ndjsonExample = `{"level":"info","name":"Player","text":"spawned"}`

// refuseNonObject refuses an input whose first line is JSON but not an
// object (a JSON array, null): import reads NDJSON, one object a line. It
// returns the input to read: standard input read through a buffer.
func refuseNonObject(in io.Reader) (io.Reader, error) {
	head := make([]byte, 64<<10)
	if f, ok := in.(*os.File); ok && f != os.Stdin {
		n, _ := f.ReadAt(head, 0)
		head = head[:n]
	} else {
		br := bufio.NewReaderSize(in, len(head))
		head, _ = br.Peek(len(head))
		in = br
	}
	line, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n"), []byte{'\n'})
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] == '{' || !json.Valid(line) {
		return in, nil
	}
	if line[0] == '[' {
		return nil, errors.New("line 1: a JSON array; import reads NDJSON, one JSON object per line such as " + ndjsonExample +
			" (POST /api/v1/logs takes arrays: curl --data-binary @FILE), or a game's log")
	}
	c, _ := oplog.ClipRunes(string(line), 40)
	return nil, fmt.Errorf("line 1: %q is JSON but not an object; import reads NDJSON, one JSON object per line such as %s, or a game's log", c, ndjsonExample)
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
