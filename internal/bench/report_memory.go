package bench

import "fmt"

// Targets of disk and memory, and the figures before the work on them.
const (
	targetSteadyRSS = 300 << 20
	baseLogFactor   = 1.25 // log.db ÷ raw payload before that work
	baseIndexPerRec = 178  // index bytes per record before that work
)

// reportMemory writes the memory and disk of a store with its indexes
// running, as `mcplogd serve` keeps it.
func (r *runner) reportMemory(w *errWriter) {
	m := &r.memory
	if m.records == 0 {
		return
	}
	n, raw := int64(m.records), float64(max(m.payload, 1))
	w.printf("## Memory and disk with the indexes, %s records\n\n", commas(n))
	w.printf("A data directory opened as `mcplogd serve` opens it (store, log, crash index's background reader, search "+
		"index), fed %s workload lines in batches of %s by one writer; RSS from /proc/self/status every %s during the "+
		"ingest, until the search index caught up and the store had sealed what it held (blocks the ingest sealed fast, with S2, "+
		"sealed again), then for %s (steady: the median sample of that window); %s.\n\n",
		commas(n), commas(fillBatch), memorySample, steadyWindow(m.records), limitNote(m.limit))
	w.printf("| what | figure |\n|---|---|\n")
	w.printf("| ingest / index caught up after its end / the store sealed after that | %.2f s (%s records/s) / %.2f s / %.2f s |\n", m.ingest.Seconds(),
		commas(int64(float64(n)/m.ingest.Seconds())), m.catchUp.Seconds(), m.sealed.Seconds())
	w.printf("| RSS before opening | %s |\n", mib(m.before.rss))
	w.printf("| RSS during the ingest: median / peak of ingest and catch-up (RssAnon + RssFile at the peak) | %s / %s (%s + %s) |\n",
		mib(m.ingestP), mib(m.peak.rss), mib(m.peak.anon), mib(m.peak.file))
	w.printf("| RSS steady after catch-up (RssAnon + RssFile) / Go heap in use | %s (%s + %s) / %s |\n",
		mib(m.steady.rss), mib(m.steady.anon), mib(m.steady.file), mib(int64(m.heap)))
	w.printf("| log.db: size / per record / ÷ raw payload | %s / %s B / %.2f |\n", mib(m.logBytes), commas(m.logBytes/n),
		float64(m.logBytes)/raw)
	w.printf("| index: size / per record / ÷ raw payload | %s / %s B / %.2f |\n", mib(m.idxBytes), commas(m.idxBytes/n),
		float64(m.idxBytes)/raw)
	w.printf("| log + index ÷ raw payload (raw payload %s B per record) | %.2f |\n", commas(m.payload/n),
		float64(m.logBytes+m.idxBytes)/raw)
	w.printf("| others' CPU meanwhile | %s |\n\n", percent(m.others))
	before := fmt.Sprintf("%.2f × raw + %d B/record", baseLogFactor, baseIndexPerRec)
	w.printf("| target | measured | |\n|---|---|---|\n")
	w.printf("| steady RSS < %s during (the median) and after the ingest; the peak reported | during %s, after %s; peak %s | %s |\n",
		mib(targetSteadyRSS), mib(m.ingestP), mib(m.steady.rss), mib(m.peak.rss), verdict(m.ingestP < targetSteadyRSS && m.steady.rss < targetSteadyRSS))
	w.printf("| disk below %s | %.2f × raw + %s B/record | %s |\n\n", before, float64(m.logBytes)/raw, commas(m.idxBytes/n),
		verdict(float64(m.logBytes)+float64(m.idxBytes) < baseLogFactor*raw+float64(baseIndexPerRec*n)))
}
