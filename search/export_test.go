package search

import (
	"os"
	"path/filepath"
)

// BuildTerms builds the chunk term sets now: an index opened with a long
// Interval and no Changed builds them only when it opens.
func (x *Index) BuildTerms() (int, error) {
	n, _, err := x.buildTerms()
	return n, err
}

// Steps is how many times the indexer looked at the log.
func (x *Index) Steps() uint64 { return x.steps.Load() }

// SkippedChunks is how many chunks searches skipped by their term sets or postings.
func (x *Index) SkippedChunks() uint64 { return x.skipped.Load() }

// PostedChunks is how many chunks searches read the postings of.
func (x *Index) PostedChunks() uint64 { return x.posted.Load() }

// SetPostings makes x's searches use the chunks' postings, or not.
func (x *Index) SetPostings(on bool) { x.noPost.Store(!on) }

// TermSetChunks is how many chunks have a growing set, not yet stored.
func (x *Index) TermSetChunks() int {
	x.terms.mu.Lock()
	defer x.terms.mu.Unlock()
	return len(x.terms.chunks)
}

// SetMaxTermSetBytes sets maxTermSetBytes until the returned func runs.
func SetMaxTermSetBytes(n int64) (restore func()) {
	old := maxTermSetBytes
	maxTermSetBytes = n
	return func() { maxTermSetBytes = old }
}

// TermSetBytes is what the term sets take, about.
func (x *Index) TermSetBytes() int64 {
	x.terms.mu.Lock()
	defer x.terms.mu.Unlock()
	return x.terms.bytes
}

// StoredSets is how many chunks' sets are in the sets file.
func (x *Index) StoredSets() int { return x.terms.storedCount() }

// SetMinRewriteBytes sets minRewriteBytes until the returned func runs.
func SetMinRewriteBytes(n int64) (restore func()) {
	old := minRewriteBytes
	minRewriteBytes = n
	return func() { minRewriteBytes = old }
}

// SetsFileFrames is how many sets the sets file in dir holds (up to the
// first bad frame).
func SetsFileFrames(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, setsName))
	if err != nil {
		return 0, err
	}
	if len(b) < len(header(0, 0)) {
		return 0, nil
	}
	frames, _, _ := readFrames(b[len(header(0, 0)):])
	return len(frames), nil
}

// SetMaxPostBytes sets the budget of the stored chunks' postings, returning
// what puts it back.
func SetMaxPostBytes(n int64) func() {
	old := maxPostBytes
	maxPostBytes = n
	return func() { maxPostBytes = old }
}

// StoredPostings is how many stored chunks have postings of all their
// records (not of those since a restart only).
func (x *Index) StoredPostings() int {
	t := &x.terms
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for k, p := range t.posts {
		if s := t.stored[k]; s != nil && p.from <= s.from {
			n++
		}
	}
	return n
}
