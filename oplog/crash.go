package oplog

// CrashIndex groups error records with stack traces by a normalised stack
// signature, behind Log.FindCrashes. It is fed in the background from the
// store and may lag behind it.
type CrashIndex interface {
	// Close stops the background work.
	Close() error
}

// SetCrashes gives the Log its crash index, which it then owns (Close
// closes it). Call it before serving.
func (l *Log) SetCrashes(c CrashIndex) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.crashes = c
}
