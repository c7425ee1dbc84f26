package oplog

// Index is the full-text index behind Log.Search (package search, on bleve).
// It is fed in the background from the store and may lag behind it.
type Index interface {
	// Close stops the indexer and closes the index.
	Close() error
}

// SetIndex gives the Log its full-text index, which it then owns (Close
// closes it). Call it before serving.
func (l *Log) SetIndex(idx Index) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.index = idx
}
