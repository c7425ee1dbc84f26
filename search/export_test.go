package search

import (
	"context"
	"fmt"
	"time"

	index "github.com/blevesearch/bleve_index_api"
)

// BuildTerms builds the chunk term sets now: an index opened with a long
// Interval and no Changed builds them only when it opens.
func (x *Index) BuildTerms() (int, error) {
	n, _, err := x.buildTerms()
	return n, err
}

// Steps is how many times the indexer looked at the log.
func (x *Index) Steps() uint64 { return x.steps.Load() }

// SkippedChunks is how many chunks searches skipped by their term sets.
func (x *Index) SkippedChunks() uint64 { return x.skipped.Load() }

// TermSetChunks is how many chunks have a term set.
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

// SetOmitTemplates makes documents without template (as mapping version 7
// did) until the returned func runs.
func SetOmitTemplates() (restore func()) {
	omitTemplates = true
	return func() { omitTemplates = false }
}

// SetScorchTuning adds m to every new or opened segment's scorch config
// until the returned func runs.
func SetScorchTuning(m map[string]any) (restore func()) {
	old := scorchTuning
	scorchTuning = m
	return func() { scorchTuning = old }
}

// SetFieldOptions sets the indexing options of keyword and text fields
// until the returned func runs.
func SetFieldOptions(keyword, text index.FieldIndexingOptions) (restore func()) {
	ok, ot := keywordOpts, textOpts
	keywordOpts, textOpts = keyword, text
	return func() { keywordOpts, textOpts = ok, ot }
}

// SetCompactSealed sets whether sealed segments are merged into one file
// until the returned func runs.
func SetCompactSealed(on bool) (restore func()) {
	old := compactSealed.Swap(on)
	return func() { compactSealed.Store(old) }
}

// SetUniqueOptions sets the indexing options of the nearly unique keyword
// fields until the returned func runs.
func SetUniqueOptions(o index.FieldIndexingOptions) (restore func()) {
	old := uniqueOpts
	uniqueOpts = o
	return func() { uniqueOpts = old }
}

// Settle waits until no segment has a merge or a persist under way nor
// an in-memory segment, every sealed segment is merged into one file (if
// they are), and their files stayed the same for settleQuiet,
// or timeout passes; it returns the bytes of the segments' files, of
// those their snapshots use (the others are removed at their next
// persist), and the files.
func (x *Index) Settle(timeout time.Duration) (bytes, live, files uint64, err error) {
	const settleQuiet = 500 * time.Millisecond
	deadline := time.Now().Add(timeout)
	var last string
	var since time.Time
	for {
		state, quiet := "", true
		bytes, live, files = 0, 0, 0
		x.mu.RLock()
		for _, s := range x.segs {
			m, _ := s.idx.StatsMap()["index"].(map[string]any)
			u := func(k string) uint64 { v, _ := m[k].(uint64); return v }
			if u("num_root_memorysegments") > 0 || u("TotFileMergeZapBeg") != u("TotFileMergeZapEnd") ||
				compactSealed.Load() && s.hi <= x.persisted && !s.compacted {
				quiet = false
			}
			bytes, live, files = bytes+u("CurOnDiskBytes"), live+u("num_bytes_used_disk_by_root"), files+u("CurOnDiskFiles")
			state += fmt.Sprint(u("num_root_memorysegments"), " ", u("num_root_filesegments"), " ", u("CurOnDiskBytes"), " ", u("TotFileMergeZapBeg"), "/", u("TotFileMergeZapEnd"), "; ")
		}
		x.mu.RUnlock()
		if x.compacting.Load() {
			quiet = false
		}
		switch {
		case !quiet || state != last:
			last, since = state, time.Now()
		case time.Since(since) >= settleQuiet:
			return bytes, live, files, nil
		}
		if time.Now().After(deadline) {
			return bytes, live, files, fmt.Errorf("segments not settled after %v: %s quiet %v", timeout, state, quiet)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SegmentFiles is how many files each segment's scorch index holds (by its
// first ID), as its root snapshot lists them.
func (x *Index) SegmentFiles() map[uint64]uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	files := map[uint64]uint64{}
	for _, s := range x.segs {
		m, _ := s.idx.StatsMap()["index"].(map[string]any)
		n, _ := m["num_root_filesegments"].(uint64)
		mem, _ := m["num_root_memorysegments"].(uint64)
		files[s.lo] = n + mem
	}
	return files
}

// TermFrequency is the frequency that the first segment holding term in
// field gives its first posting; found false if none holds it.
func (x *Index) TermFrequency(field, term string) (freq uint64, found bool, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for _, s := range x.segs {
		a, err := s.idx.Advanced()
		if err != nil {
			return 0, false, err
		}
		r, err := a.Reader()
		if err != nil {
			return 0, false, err
		}
		tfr, err := r.TermFieldReader(context.Background(), []byte(term), field, true, true, false)
		if err != nil {
			_ = r.Close()
			return 0, false, err
		}
		d, err := tfr.Next(nil)
		_ = tfr.Close()
		_ = r.Close()
		if err != nil {
			return 0, false, err
		}
		if d != nil {
			return d.Freq, true, nil
		}
	}
	return 0, false, nil
}

// TermDocs is how many documents of every segment hold term in field.
func (x *Index) TermDocs(field, term string) (uint64, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var n uint64
	for _, s := range x.segs {
		a, err := s.idx.Advanced()
		if err != nil {
			return 0, err
		}
		r, err := a.Reader()
		if err != nil {
			return 0, err
		}
		tfr, err := r.TermFieldReader(context.Background(), []byte(term), field, false, false, false)
		if err != nil {
			_ = r.Close()
			return 0, err
		}
		n += tfr.Count()
		_, _ = tfr.Close(), r.Close()
	}
	return n, nil
}

// SetOmitText makes documents without text and stack, the fields of
// filters only, until the returned func runs.
func SetOmitText() (restore func()) {
	omitText = true
	return func() { omitText = false }
}
