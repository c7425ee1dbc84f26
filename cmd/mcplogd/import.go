package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/oplog"
)

// importBatch is how many lines go into one append; small enough to stay
// under the server's default body limit with ~1 KB lines.
const importBatch = 500

// importBatchBytes ends a batch early when its lines add up to more.
const importBatchBytes = 512 << 10

func (m *Main) importFile(ctx context.Context, args []string) error {
	fs := m.flags("import", "FILE|- [--data DIR]", "Append NDJSON lines (the POST /api/v1/logs format, one object per line) from FILE or standard input.")
	data := m.dataFlag(fs)
	create := createFlag(fs)
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
	dir, _, err := clientDir(*data, *create)
	if err != nil {
		return err
	}
	b, err := connect(ctx, dir, openOptions{})
	if err != nil {
		return err
	}
	defer b.Close()
	imp := &importer{b: b, progress: newProgress(m.Stderr, size)}
	if err := imp.read(ctx, in); err != nil {
		return err
	}
	if imp.imported == 0 {
		fmt.Fprintln(m.Stdout, "imported 0 lines")
		return nil
	}
	fmt.Fprintf(m.Stdout, "imported %s (IDs %d to %d)\n", plural(imp.imported, "line"), imp.first, imp.last)
	return nil
}

// importer appends NDJSON lines in batches.
type importer struct {
	b        backend
	progress *progress

	batch       []oplog.Record
	batchBytes  int
	lineNo      int // lines read
	imported    int // records appended
	first, last uint64
}

// read appends every line of in; an error says which line and how many
// were imported before it.
func (imp *importer) read(ctx context.Context, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var readBytes int64
	for sc.Scan() {
		imp.lineNo++
		line := sc.Bytes()
		readBytes += int64(len(line)) + 1
		imp.progress.bytes = readBytes
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		r, err := api.DecodeLine(line)
		if err != nil {
			return fmt.Errorf("line %d: %s (%s)", imp.lineNo, importProblem(line, err), imp.before())
		}
		imp.batch = append(imp.batch, r)
		imp.batchBytes += len(line)
		if len(imp.batch) == importBatch || imp.batchBytes > importBatchBytes {
			if err := imp.flush(ctx); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("line %d: %w", imp.lineNo+1, err)
	}
	if err := imp.flush(ctx); err != nil {
		return err
	}
	imp.progress.done()
	return nil
}

// before says what was imported before an error.
func (imp *importer) before() string {
	if imp.imported == 0 {
		return "nothing was imported"
	}
	if imp.imported == 1 {
		return "1 line before it was imported"
	}
	return fmt.Sprintf("%d lines before it were imported", imp.imported)
}

// ndjsonExample is one line of what import reads.
const ndjsonExample = `{"level":"info","name":"Player","text":"spawned"}`

// importProblem words a line's decoding error for a person who may have
// given import a plain-text log or a JSON array: import reads NDJSON.
func importProblem(line []byte, err error) string {
	b := bytes.TrimSpace(line)
	c, _ := oplog.ClipRunes(string(b), 40)
	switch {
	case !json.Valid(b) && b[0] != '{':
		return fmt.Sprintf("not JSON: %q; import reads NDJSON, one JSON object per line such as %s "+
			"(a game's plain-text log is read by: mcplogd serve --follow NAME=PATH)", c, ndjsonExample)
	case b[0] == '[':
		return "a JSON array; import reads NDJSON, one JSON object per line such as " + ndjsonExample +
			" (POST /api/v1/logs takes arrays: curl --data-binary @FILE)"
	case b[0] != '{':
		return fmt.Sprintf("%s; import reads NDJSON, one JSON object per line such as %s", oplog.ErrorMessage(err), ndjsonExample)
	}
	return oplog.ErrorMessage(err)
}

// flush appends the batch.
func (imp *importer) flush(ctx context.Context) error {
	if len(imp.batch) == 0 {
		return nil
	}
	if err := imp.b.Append(ctx, imp.batch); err != nil {
		return fmt.Errorf("appending lines before line %d: %w (%s)", imp.lineNo+1, err, imp.before())
	}
	if imp.first == 0 {
		imp.first = imp.batch[0].ID
	}
	imp.last = imp.batch[len(imp.batch)-1].ID
	imp.imported += len(imp.batch)
	imp.batch, imp.batchBytes = imp.batch[:0], 0
	imp.progress.update(imp.imported)
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
