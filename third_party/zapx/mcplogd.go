package zap

import "github.com/RoaringBitmap/roaring/v2"

// mcplogd's change to zapx v17.2.5 (MCPLOGD.md): a term whose postings
// all have frequency 0 and no locations, as the fields indexed with
// SkipFreqNorm give, is written without its frequency chunk, a zero byte
// a posting that nothing reads (~1 byte of every posting); and such a term
// of one document is written as its dictionary entry alone (the "1-hit"
// encoding zap gives a term of one document and frequency 1). Its postings
// read as frequency 0, and merges copy them as such.

// dropZeroFreqs empties tf, a term's closed frequency coder, when each of
// its postings has frequency 0 and no locations (loc, the term's location
// coder, is empty): frequency 0 without locations encodes as one zero
// byte, and any other posting holds a byte that is not. The term is then
// written without a frequency chunk (writeAt: termNotEncoded), and its
// postings read as frequency 0 (PostingsList.iterator).
func dropZeroFreqs(tf, loc *chunkedIntCoder) {
	if loc.FinalSize() > 0 {
		return
	}
	for _, b := range tf.final {
		if b != 0 {
			return
		}
	}
	tf.Reset()
}

// normBitsZeroFreq is the norm of a term of one document and frequency 0
// written as its dictionary entry alone (zeroFreqOneHit): a norm no field
// has (norms are field lengths), and not 0, which reads as no entry.
const normBitsZeroFreq = mask31Bits

// zeroFreqOneHit is writePostings' choice of the 1-hit encoding for a term
// of postings written by a new segment: a term of one document whose
// frequency chunk dropZeroFreqs emptied (tf, closed).
func zeroFreqOneHit(postings *roaring.Bitmap, tf *chunkedIntCoder) func(uint64) (bool, uint64, uint64) {
	return func(cardinality uint64) (bool, uint64, uint64) {
		if cardinality != 1 || len(tf.final) > 0 {
			return false, 0, 0
		}
		docNum := uint64(postings.Minimum())
		return under32Bits(docNum), docNum, normBitsZeroFreq
	}
}

// Encoding names how p was written, for tests: "1-hit" (a term of one
// document, its dictionary entry alone), "postings", "postings without
// frequencies" (dropZeroFreqs), or "none".
func (p *PostingsList) Encoding() string {
	switch {
	case p.normBits1Hit != 0:
		return "1-hit"
	case p.postings == nil:
		return "none"
	case p.freqOffset == termNotEncoded:
		return "postings without frequencies"
	}
	return "postings"
}
