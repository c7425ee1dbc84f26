package bench

import (
	"fmt"
	"slices"
	"time"
)

// Goals after a burst, reported against in the burst table.
const (
	goalLagSearch = 100 * time.Millisecond
	goalCatchUp   = time.Second
	goalSQLite    = 3.0
)

// reportBurst writes the table of the burst section, if measured.
func (r *runner) reportBurst(w *errWriter) {
	b := &r.burst
	if b.data == nil || len(b.quiet) == 0 || len(b.busy) == 0 {
		return
	}
	d := b.data
	w.printf("## After a burst of %s lines through HTTP\n\n", commas(int64(d.lines)))
	w.printf("A server as `mcplogd serve` runs one (store, search index, crash index, HTTP API on 127.0.0.1) takes %s workload "+
		"lines from %d clients in requests of %s (JSON arrays, pre-encoded); the last request, sent alone, holds the newest line, "+
		"which alone has the word `%s`. Each of %d round(s) runs the burst twice in new stores: once with nothing asked until "+
		"every record is in the index on disk and it settled (records sealed into blocks, none in an older format, the data folder's bytes unchanged for three seconds), then the newest 50 over HTTP; once with GET /api/v1/search "+
		"asked in a loop (one at a time, the shapes in turn, newest 50) from the last answer until every record is. "+
		"A record is in the index once it is in the term set of its chunk (`indexedThrough`), and on disk once that set is "+
		"written to the sets file (`segmentsThrough`: a whole chunk's at once, the growing one's once the sets caught up or a second passed); the lag beside each search is the records not yet on disk when it was asked. "+
		"Then the SQLite baseline: Python's sqlite3 in process on the same lines, decoded before the clock starts (only "+
		"the inserts and commits are timed; WAL, synchronous=FULL, FTS5 over text and stack by a trigger, an index on name, "+
		"level, id; %s lines per transaction), and the same newest-50 reads. Figures are medians over the runs (min – max). "+
		"The bursts run %s.\n\n",
		commas(int64(d.lines)), burstClients, commas(burstBatch), burstWord, len(b.quiet), commas(burstBatch), limitNote(b.limit))
	w.printf("| what | mcplogd | baseline, same run | goal | |\n|---|---|---|---|---|\n")
	r.reportBurstIngest(w)
	var lags, segLags, cQuiet, cBusy, sQuiet, sBusy, queries []time.Duration
	for i := range b.quiet {
		cQuiet, sQuiet = append(cQuiet, b.quiet[i].catchUp), append(sQuiet, b.quiet[i].segCatchUp)
	}
	for i := range b.busy {
		cBusy, sBusy = append(cBusy, b.busy[i].catchUp), append(sBusy, b.busy[i].segCatchUp)
		queries = append(queries, time.Duration(len(b.busy[i].searches)))
	}
	for _, run := range append(slices.Clone(b.quiet), b.busy...) {
		lags, segLags = append(lags, time.Duration(run.lagAtEnd)), append(segLags, time.Duration(run.segLagAtEnd))
	}
	w.printf("| index lag when the ingest ended: records in no index / not yet on disk | %s / %s | | | |\n",
		commas(int64(medianDur(lags))), commas(int64(medianDur(segLags))))
	for sh := range b.shapes {
		r.reportBurstShape(w, sh)
	}
	catchUp := func(what string, d []time.Duration, goal bool) {
		m := medianDur(d)
		g, v := "", ""
		if goal {
			g, v = "≤ 1 s", verdict(m <= goalCatchUp)
		}
		w.printf("| %s: after the ingest's end | %s (%s – %s) | | %s | %s |\n", what, dur(m), dur(slices.Min(d)), dur(slices.Max(d)), g, v)
	}
	catchUp("index caught up (every record in a term set), no searches meanwhile", cQuiet, true)
	catchUp(fmt.Sprintf("index caught up while searches run (%d queries)", medianDur(queries)), cBusy, true)
	catchUp("every record in the index on disk, no searches meanwhile", sQuiet, true)
	catchUp("every record in the index on disk while searches run", sBusy, true)
	var nl, wd []latency
	for i := range b.quiet {
		nl, wd = append(nl, b.quiet[i].newest[newestNameLevel]), append(wd, b.quiet[i].newest[newestWord])
	}
	var snl, swd []latency
	for i := range b.sqlite {
		snl, swd = append(snl, b.sqlite[i].nameLevel), append(swd, b.sqlite[i].word)
	}
	r.reportNewest(w, fmt.Sprintf("newest 50 `name=%s` + `level=%s` over HTTP, index caught up, p50 / p99", d.name, d.level), nl, snl,
		"name, level")
	r.reportNewest(w, fmt.Sprintf("newest 50 with the word `%s` over HTTP, index caught up, p50 / p99", burstCommon), wd, swd, "FTS5")
	most := -1.0
	for _, run := range append(slices.Clone(b.quiet), b.busy...) {
		most = max(most, run.others)
	}
	if most >= 0 {
		w.printf("\nOther processes kept up to %s of the CPUs busy during one of the burst's runs.\n", percent(most))
	}
	w.printf("\n")
}

func (r *runner) reportBurstIngest(w *errWriter) {
	b := &r.burst
	var rates []float64
	for _, runs := range [][]burstRun{b.quiet, b.busy} {
		for _, run := range runs {
			rates = append(rates, run.rate(b.data.lines))
		}
	}
	slices.Sort(rates)
	m := rates[(len(rates)-1)/2] // of an even count, the lower middle
	mine := fmt.Sprintf("%s lines/s (%s – %s)", commas(int64(m)), commas(int64(rates[0])), commas(int64(rates[len(rates)-1])))
	if len(b.sqlite) == 0 {
		w.printf("| HTTP ingest, %d clients × %s lines per request | %s | SQLite rows skipped: %s | ≥ %.0f× SQLite | – |\n",
			burstClients, commas(burstBatch), mine, b.sqliteSkipped, goalSQLite)
		return
	}
	var srates []float64
	for _, s := range b.sqlite {
		srates = append(srates, s.rate())
	}
	slices.Sort(srates)
	sm := srates[len(srates)/2] // of an even count, the higher middle
	ratio := m / sm
	w.printf("| HTTP ingest, %d clients × %s lines per request | %s, **%.2f×** SQLite | SQLite %s WAL synchronous=FULL + FTS5 in process: "+
		"%s lines/s (%s – %s) | ≥ %.0f× | %s |\n", burstClients, commas(burstBatch), mine, ratio, b.sqlite[0].version,
		commas(int64(sm)), commas(int64(srates[0])), commas(int64(srates[len(srates)-1])), goalSQLite, verdict(ratio >= goalSQLite))
}

// reportBurstShape writes the row of one query shape asked during the lag:
// the first query of the shape in each run (and the lag then), the median
// of all, and the slowest of the run.
func (r *runner) reportBurstShape(w *errWriter, sh int) {
	b := &r.burst
	var first, slowest, lags, all []time.Duration
	n := 0
	for _, run := range b.busy {
		var runFirst, runMax time.Duration
		seen := false
		for _, s := range run.searches {
			if s.shape != sh {
				continue
			}
			n++
			all = append(all, s.took)
			if !seen {
				seen, runFirst = true, s.took
				lags = append(lags, time.Duration(s.segLag))
			}
			runMax = max(runMax, s.took)
		}
		if seen {
			first, slowest = append(first, runFirst), append(slowest, runMax)
		}
	}
	name := "search during the lag: " + b.shapes[sh].name + "; first query (records not on disk then) / median / slowest"
	if len(first) == 0 {
		w.printf("| %s | not asked: the index caught up first | | ≤ %s | – |\n", name, "100 ms")
		return
	}
	ms := medianDur(slowest)
	w.printf("| %s | %s (%s records) / %s / %s; %d queries in %d run(s) | | ≤ %s | %s |\n", name, dur(medianDur(first)),
		commas(int64(medianDur(lags))), dur(medianDur(all)), dur(ms), n, len(first), "100 ms", verdict(ms <= goalLagSearch))
}

func (r *runner) reportNewest(w *errWriter, name string, mine, sqlite []latency, how string) {
	m := medianLatency(mine)
	base := "SQLite rows skipped: " + r.burst.sqliteSkipped
	if len(sqlite) > 0 {
		s := medianLatency(sqlite)
		base = fmt.Sprintf("SQLite in process (%s): %s / %s", how, dur(s.p50), dur(s.p99))
	}
	w.printf("| %s | %s / %s | %s | keep | |\n", name, dur(m.p50), dur(m.p99), base)
}

// medianDur is the median of d (sorted in place).
func medianDur(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}
