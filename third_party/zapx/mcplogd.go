package zap

// mcplogd's change to zapx v17.2.5 (MCPLOGD.md): a term whose postings
// all have frequency 0 and no locations, as the fields indexed with
// SkipFreqNorm give, is written without its frequency chunk, a zero byte
// a posting that nothing reads (~1 byte of every posting). Its postings
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

// FreqsWritten reports whether p, a postings list of more than one
// document, was written with its frequency chunk; false for a list of one
// document kept in the dictionary ("1-hit") or an empty one.
func (p *PostingsList) FreqsWritten() bool {
	return p.normBits1Hit == 0 && p.postings != nil && p.freqOffset != termNotEncoded
}
