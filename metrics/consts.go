package metrics

// Label values beyond these many distinct ones are reported as otherLabel,
// so that a client sending made-up sources or tool names cannot make the
// metrics grow without bound.
const (
	maxSourceLabels = 200
	maxToolLabels   = 200
	otherLabel      = "_other"
	// unknownTool labels tools/call requests that failed as requests (an
	// unknown tool, bad params) with a name not seen succeed before.
	unknownTool = "_unknown"
)

var (
	// latencyBuckets span a cached read (100 µs) to the longest long poll
	// (oplog.MaxWait, 30 s).
	latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	// commitBuckets span one fsync (~0.3 ms here) to a large batch.
	commitBuckets = []float64{.00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}
	// commitSizeBuckets go up to store.Options.MaxCommitRecords' default, 20,000.
	commitSizeBuckets = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000}
)
