package bench

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The targets, reported against in the last table.
const (
	targetBatchRate  = 250_000
	targetRawShare   = 0.75
	target64Writers  = 40_000
	target8Writers   = 8_000
	targetTailP99    = time.Millisecond
	targetReopen     = time.Second
	targetDiskFactor = 1.3
)

// report writes the Markdown report of everything measured.
func (r *runner) report(out io.Writer) error {
	w := &errWriter{w: out}
	r.reportHeader(w)
	switch r.cfg.Only {
	case "burst":
		r.reportBurst(w)
		r.reportVL(w)
		return w.err
	case "memory":
		r.reportMemory(w)
		return w.err
	}
	r.reportIngest(w)
	r.reportStore(w)
	r.reportHTTP(w)
	r.reportBurst(w) // report_burst.go
	r.reportVL(w)    // report_vl.go
	r.reportMemory(w)
	r.reportTargets(w)
	return w.err
}

// reportHeader writes the title and where, when and how the figures were
// measured.
func (r *runner) reportHeader(w *errWriter) {
	c := r.cfg
	w.printf("# mcplogd benchmark\n\n")
	w.printf("- date: %s (took %s)\n", r.started.UTC().Format("2006-01-02 15:04 MST"), time.Since(r.started).Round(time.Second))
	w.printf("- machine: %s\n", machine())
	if others := othersShare(r.cpu, sampleCPU()); others >= 0 {
		w.printf("- other processes kept %.0f%% of the CPUs busy during the run (a shared machine: figures drift with that)\n", 100*others)
	}
	w.printf("- command: `%s`\n", r.command())
	what := "the benchmark workload (internal/workload: debug 30%% / info 55%% / warn 10%% / error 5%%, 50 names, 4 sources, ~120-byte messages, 10%% with a stack, 1%% operations"
	if c.Workload == "words" {
		what = "random words (internal/workload.NewWords: 18 words a line from a 5,000-word vocabulary, every third from its first 500; debug 30%% / info 55%% / warn 10%% / error 5%%, 50 names, 4 sources; no stacks, data or operations"
	}
	w.printf("- workload: "+what+"; seed %d); ingest figures are the median of %d run(s), "+
		"each in a fresh store, stopping after %s records or %s; latencies are the median over the runs of each run's "+
		"percentile of %s reads\n\n", c.Seed, c.Runs, commas(int64(c.Records)), c.PerConfig, commas(int64(c.Samples)))
}

// reportIngest writes the table of ingest in process against raw bbolt.
func (r *runner) reportIngest(w *errWriter) {
	w.printf("## Durable ingest in process\n\n")
	w.printf("oplog.Log.Append over store.DB: validation, group commit, an fsync per commit. Each writer appends batches "+
		"from its own pool of %s records generated before the clock starts. Raw bbolt: the same records and encoding "+
		"under sequential keys in durable transactions of %s from one writer, same bbolt options, no validation or counters.\n\n",
		commas(poolRecords), commas(rawBatch))
	raw := r.raw.median().rate()
	w.printf("The last column is the most CPU that other processes of the machine took during one of the row's runs.\n\n")
	w.printf("| writers | batch | records/s (median) | min – max | records per run | of raw bbolt | others' CPU |\n")
	w.printf("|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := range r.ingest {
		row := &r.ingest[i]
		w.printf("| %d | %s | %s | %s | %s | %s | %s |\n", row.writers, commas(int64(row.batch)), rate(row.median()),
			spread(row), perRun(row), percent(row.median().rate()/raw), others(row))
	}
	w.printf("| raw bbolt | %s | %s | %s | %s | 100%% | %s |\n\n", commas(rawBatch), rate(r.raw.median()), spread(&r.raw),
		perRun(&r.raw), others(&r.raw))
}

// reportStore writes the figures of the filled store: reads, reopen,
// memory and disk.
func (r *runner) reportStore(w *errWriter) {
	f := &r.fill
	w.printf("## A store of %s records\n\n", commas(int64(f.records)))
	w.printf("| what | figure |\n|---|---|\n")
	w.printf("| fill: 1 writer, batches of %s generated on the fly | %.2f s, %s records/s (others' CPU %s) |\n", commas(fillBatch),
		f.elapsed.Seconds(), commas(int64(float64(f.records)/f.elapsed.Seconds())), percent(f.fillOthers))
	tail, l10, l200 := medianLatency(f.tail), medianLatency(f.list10), medianLatency(f.list200)
	w.printf("| tail: %d records after a sinceId up to %s before the end, p50 / p99 / max | %s / %s / %s |\n",
		tailLimit, commas(tailBehind), dur(tail.p50), dur(tail.p99), dur(tail.max))
	w.printf("| list newest 10, p50 / p99 / max | %s / %s / %s |\n", dur(l10.p50), dur(l10.p99), dur(l10.max))
	w.printf("| list newest 200, p50 / p99 / max | %s / %s / %s |\n", dur(l200.p50), dur(l200.p99), dur(l200.max))
	w.printf("| others' CPU during the reads, most in one run | %s |\n", percent(f.readOthers))
	ro := percentiles(slices.Clone(f.reopen))
	w.printf("| reopen: store.Open + Stats after Close, p50 / max of %d (file in the page cache) | %s / %s |\n",
		len(f.reopen), dur(ro.p50), dur(ro.max))
	m := f.memAfter
	w.printf("| RSS after the fill: VmRSS (RssAnon + RssFile) / VmHWM | %s (%s + %s) / %s |\n",
		mib(m.rss), mib(m.anon), mib(m.file), mib(m.hwm))
	w.printf("| RSS before the fill / Go heap in use after it | %s / %s |\n", mib(f.memBefore.rss), mib(int64(f.heapInuse)))
	w.printf("| data file: size / allocated on disk | %s / %s |\n", mib(f.fileSize), mib(f.diskUsage))
	n := int64(max(f.records, 1))
	w.printf("| bytes per record: file / encoded record / raw payload | %s / %s / %s |\n",
		commas(f.fileSize/n), commas(int64(f.encoded)/n), commas(f.payload/n))
	w.printf("| file size ÷ raw payload | %.2f |\n\n", r.diskFactor())
}

// reportHTTP writes the table of ingest through the HTTP API, if measured.
func (r *runner) reportHTTP(w *errWriter) {
	if len(r.http) == 0 {
		return
	}
	w.printf("## Ingest through POST /api/v1/logs\n\n")
	w.printf("The api package's handler served on 127.0.0.1 over a new store; clients in this process send " +
		"pre-encoded JSON arrays of the workload's lines (operations have their own route) with the bearer token " +
		"and check each answer's count.\n\n")
	w.printf("| clients | lines per request | lines/s (median) | min – max | lines per run | of in process, same shape | others' CPU |\n")
	w.printf("|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := range r.http {
		row := &r.http[i]
		share := "–"
		if in := r.ingestRow(row.writers, row.batch); in != nil {
			share = percent(row.median().rate() / in.median().rate())
		}
		w.printf("| %d | %s | %s | %s | %s | %s | %s |\n", row.writers, commas(int64(row.batch)), rate(row.median()),
			spread(row), perRun(row), share, others(row))
	}
	w.printf("\n")
}

// reportTargets writes the table of the figures against the targets.
func (r *runner) reportTargets(w *errWriter) {
	f := &r.fill
	raw := r.raw.median().rate()
	tail := medianLatency(f.tail)
	ro := percentiles(slices.Clone(f.reopen))
	w.printf("## Against the targets\n\n")
	w.printf("| target | measured | |\n|---|---|---|\n")
	if b := r.ingestRow(1, 1000); b != nil {
		w.printf("| ≥ %s lines/s in process, batches of 1,000 | %s (1 writer); %s (8 writers) | %s |\n",
			commas(targetBatchRate), rate(b.median()), r.rateOf(8, 1000), verdict(b.median().rate() >= targetBatchRate))
		share := b.median().rate() / raw
		w.printf("| ≥ %s of raw bbolt, batches of 1,000 | %s (1 writer, same transaction size) | %s |\n",
			percent(targetRawShare), percent(share), verdict(share >= targetRawShare))
	}
	if b := r.ingestRow(64, 1); b != nil {
		w.printf("| ≥ %s lines/s from 64 writers of one line | %s in process%s | %s |\n", commas(target64Writers),
			rate(b.median()), r.httpNote(64, 1), verdict(b.median().rate() >= target64Writers))
	}
	if b := r.ingestRow(8, 1); b != nil {
		w.printf("| ≥ %s lines/s from 8 writers of one line | %s in process%s | %s |\n", commas(target8Writers),
			rate(b.median()), r.httpNote(8, 1), verdict(b.median().rate() >= target8Writers))
	}
	w.printf("| tail of 200, p99 < %s | %s | %s |\n", dur(targetTailP99), dur(tail.p99), verdict(tail.p99 < targetTailP99))
	on := ""
	if f.records != DefaultRecords {
		on = fmt.Sprintf(" (a store of %s records, not 1,000,000)", commas(int64(f.records)))
	}
	w.printf("| reopen a 1,000,000-record store ≤ %s | %s p50, %s max%s | %s |\n", dur(targetReopen), dur(ro.p50), dur(ro.max), on,
		verdict(ro.max <= targetReopen))
	w.printf("| disk ≤ %.1f × raw payload | %.2f | %s |\n", targetDiskFactor, r.diskFactor(), verdict(r.diskFactor() <= targetDiskFactor))
}

func (r *runner) diskFactor() float64 {
	if r.fill.payload == 0 {
		return 0
	}
	return float64(r.fill.fileSize) / float64(r.fill.payload)
}

func (r *runner) ingestRow(writers, batch int) *ingestRow {
	for i := range r.ingest {
		if row := &r.ingest[i]; row.writers == writers && row.batch == batch {
			return row
		}
	}
	return nil
}

func (r *runner) rateOf(writers, batch int) string {
	if row := r.ingestRow(writers, batch); row != nil {
		return rate(row.median())
	}
	return "–"
}

func (r *runner) httpNote(clients, batch int) string {
	for i := range r.http {
		if row := &r.http[i]; row.writers == clients && row.batch == batch {
			return "; " + rate(row.median()) + " over HTTP"
		}
	}
	return ""
}

// command is the mcplogd bench command line that repeats this run.
func (r *runner) command() string {
	c := r.cfg
	args := []string{"mcplogd bench", "--records=" + strconv.Itoa(c.Records), "--runs=" + strconv.Itoa(c.Runs),
		"--seconds=" + strconv.FormatFloat(c.PerConfig.Seconds(), 'f', -1, 64)}
	if c.Seed != DefaultSeed {
		args = append(args, "--seed="+strconv.FormatInt(c.Seed, 10))
	}
	if c.Samples != DefaultSamples {
		args = append(args, "--samples="+strconv.Itoa(c.Samples))
	}
	if c.NoHTTP {
		args = append(args, "--no-http")
	}
	if c.Only != "" {
		args = append(args, "--only="+c.Only)
	}
	if c.Workload != "game" {
		args = append(args, "--workload="+c.Workload)
	}
	return strings.Join(args, " ")
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

func rate(run ingestRun) string { return commas(int64(run.rate())) }

func spread(row *ingestRow) string {
	return commas(int64(row.runs[0].rate())) + " – " + commas(int64(row.runs[len(row.runs)-1].rate()))
}

// perRun gives the records and the time of the median run.
func perRun(row *ingestRow) string {
	m := row.median()
	return commas(int64(m.records)) + fmt.Sprintf(" in %.2f s", m.elapsed.Seconds())
}

// others gives the most CPU other processes took during one of row's runs.
func others(row *ingestRow) string {
	m := -1.0
	for _, run := range row.runs {
		m = max(m, run.others)
	}
	if m < 0 {
		return "?"
	}
	return percent(m)
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" }

func mib(b int64) string {
	if b < 0 {
		return "?"
	}
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB"
}

// dur prints a latency in the unit that reads best.
func dur(d time.Duration) string {
	switch {
	case d < 10*time.Microsecond:
		return strconv.FormatFloat(float64(d)/1e3, 'f', 1, 64) + " µs"
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/1e3, 'f', 0, 64) + " µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
}

// commas prints n with thousands separators.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// errWriter keeps the first write error so that report can print freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
