package oplog

import "time"

// Commit describes one group commit of a Store: what it wrote and how long
// the write took. A Store reports it to whoever asked (store.Options.OnCommit),
// for metrics; the Log does not use it.
type Commit struct {
	Appended  int               // records appended
	Completed int               // operations completed
	Took      time.Duration     // the write transaction, its fsync included
	Counts    Counts            // records appended by [Kind][Level]
	Sources   map[string]uint64 // records appended by source; a new map for each Commit
}
