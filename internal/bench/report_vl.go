package bench

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mcplogd/mcplogd/internal/vlnode"
)

// reportVL writes the table of mcplogd beside VictoriaLogs (and SQLite
// where the baseline measures the same), if the burst was measured.
func (r *runner) reportVL(w *errWriter) {
	b := &r.burst
	if b.data == nil || len(b.quiet) == 0 {
		return
	}
	d := b.data
	w.printf("## Beside VictoriaLogs, same burst\n\n")
	w.printf("In each round, after mcplogd and SQLite, a VictoriaLogs %s single node (a child process on 127.0.0.1, "+
		"default flags but `-retentionPeriod=100y`, its data in a new folder) takes the same %s lines in the same "+
		"requests of %s from %d clients, as JSON lines to `/insert/jsonline` (`_msg` the text; `_time`, level, name, source, "+
		"kind, stack and data as fields; `_stream_fields=source`). mcplogd answers a request once its records are fsynced; "+
		"VictoriaLogs once it has buffered them in memory. Its catch-up is the time from its last answer until "+
		"`/select/logsql/query` finds the word only in the newest line (asked every %s); mcplogd's is until every record "+
		"is in the index on disk. Then VictoriaLogs settles (`/internal/force_flush`, then until its metrics show "+
		"no pending rows, in-memory parts or merges) and both are asked the newest 50 of four shapes up to %d times each "+
		"(a shape's series stops after %s once it has %d) over HTTP, "+
		"timed the same way (from the request to the answer's last byte): mcplogd GET /api/v1/search with limit=50, "+
		"VictoriaLogs the LogsQL filter + `| sort by (_time desc) | limit 50` over all time (a bare LogsQL word is exact-case "+
		"over `_msg`; mcplogd's matches text and stack in any case and its inflections). Disk is the whole data folder's "+
		"bytes over the JSON bytes each was sent (the sum of its request bodies), settled (mcplogd: its records sealed into blocks and its data folder's bytes unchanged for three seconds, the data file compacted; VictoriaLogs: as above); RSS is read then. "+
		"mcplogd runs in the benchmark's process, which also holds every pre-encoded request. Medians over the rounds.\n\n",
		vlnode.Version, commas(int64(d.lines)), commas(burstBatch), burstClients, burstPoll, min(r.cfg.Samples, 500), newestBudget,
		newestMinSamples)
	w.printf("| what | mcplogd | VictoriaLogs %s | SQLite |\n|---|---|---|---|\n", vlnode.Version)
	vl := func(f func() string) string {
		if len(b.vl) == 0 {
			return "–"
		}
		return f()
	}
	r.reportVLIngest(w)
	w.printf("| index catch-up after the ingest's end | %s (every record on disk; in a term set after %s) | %s | "+
		"in the transaction (FTS5 by a trigger) |\n",
		dur(medianDur(collect(b.quiet, func(x burstRun) time.Duration { return x.segCatchUp }))),
		dur(medianDur(collect(b.quiet, func(x burstRun) time.Duration { return x.catchUp }))),
		vl(func() string {
			return dur(medianDur(collect(b.vl, func(x vlRun) time.Duration { return x.catchUp }))) + " (the newest line found)"
		}))
	for i, sh := range b.newestShapes {
		sq := "–"
		if len(b.sqlite) > 0 && (i == newestWord || i == newestNameLevel) {
			sq = dur(medianDur(collect(b.sqlite, func(x sqliteRun) time.Duration {
				if i == newestWord {
					return x.word.p50
				}
				return x.nameLevel.p50
			}))) + " (in process)"
		}
		w.printf("| newest 50, p50: %s | %s | %s | %s |\n", sh.name,
			dur(medianDur(collect(b.quiet, func(x burstRun) time.Duration { return x.newest[i].p50 }))),
			vl(func() string {
				return dur(medianDur(collect(b.vl, func(x vlRun) time.Duration { return x.newest[i].p50 })))
			}), sq)
	}
	r.reportVLDisk(w)
	w.printf("| RSS, settled | %s (the benchmark's process; %s before the server started) | %s | – |\n\n",
		mib(medianInt(collect(b.quiet, func(x burstRun) int64 { return x.rss }))),
		mib(medianInt(collect(b.quiet, func(x burstRun) int64 { return x.rssBefore }))),
		vl(func() string {
			return mib(medianInt(collect(b.vl, func(x vlRun) int64 { return x.rss }))) + " (the child process)"
		}))
	w.printf("The fewest newest-50 reads of a shape in a run: mcplogd %d, VictoriaLogs %s.\n\n",
		slices.Min(collect(b.quiet, func(x burstRun) int { return x.samples })),
		vl(func() string { return strconv.Itoa(slices.Min(collect(b.vl, func(x vlRun) int { return x.samples }))) }))
}

func (r *runner) reportVLIngest(w *errWriter) {
	b := &r.burst
	lines := b.data.lines
	var mine []float64
	for _, run := range slices.Concat(b.quiet, b.busy) {
		mine = append(mine, run.rate(lines))
	}
	theirs := vlMissing
	if b.vlSkipped == "" {
		theirs = rateSpread(collect(b.vl, func(x vlRun) float64 { return x.rate(lines) })) + "; answered once buffered"
	}
	sq := "skipped: " + b.sqliteSkipped
	if len(b.sqlite) > 0 {
		sq = rateSpread(collect(b.sqlite, sqliteRun.rate)) + " (in process, a commit per " + commas(burstBatch) + ")"
	}
	w.printf("| ingest, lines/s, %d clients × %s lines per request | %s; answered after fsync | %s | %s |\n",
		burstClients, commas(burstBatch), rateSpread(mine), theirs, sq)
}

func (r *runner) reportVLDisk(w *errWriter) {
	b := &r.burst
	d := b.data
	n := float64(d.lines)
	dir := medianInt(collect(b.quiet, func(x burstRun) int64 { return x.dirBytes }))
	logB := medianInt(collect(b.quiet, func(x burstRun) int64 { return x.logBytes }))
	idxB := medianInt(collect(b.quiet, func(x burstRun) int64 { return x.idxBytes }))
	freeB := medianInt(collect(b.quiet, func(x burstRun) int64 { return x.freeBytes }))
	theirs := "–"
	if len(b.vl) > 0 {
		vb := medianInt(collect(b.vl, func(x vlRun) int64 { return x.bytes }))
		theirs = fmt.Sprintf("%.2f× (%s of %s sent; %.0f B/record)", float64(vb)/float64(d.vlBytes), mib(vb), mib(d.vlBytes), float64(vb)/n)
	}
	w.printf("| disk: data folder ÷ JSON sent, settled | %.2f× (%s of %s sent; log.db %.0f B/record, %.0f of them free pages the next records reuse; index %.0f B/record) | %s | – |\n",
		float64(dir)/float64(d.bytes), mib(dir), mib(d.bytes), float64(logB)/n, float64(freeB)/n, float64(idxB)/n, theirs)
}

// collect maps runs to one figure each.
func collect[R, T any](runs []R, f func(R) T) []T {
	out := make([]T, len(runs))
	for i, run := range runs {
		out[i] = f(run)
	}
	return out
}

// rateSpread prints the median of rates (the lower middle of an even
// count) and their range.
func rateSpread(rates []float64) string {
	if len(rates) == 0 {
		return "–"
	}
	slices.Sort(rates)
	return fmt.Sprintf("%s (%s – %s)", commas(int64(rates[(len(rates)-1)/2])), commas(int64(rates[0])), commas(int64(rates[len(rates)-1])))
}

// medianInt is the median of v (sorted in place), -1 of none.
func medianInt(v []int64) int64 {
	if len(v) == 0 {
		return -1
	}
	slices.Sort(v)
	return v[len(v)/2]
}
