package query

import (
	"strings"
	"unicode"
)

// Words are what text and stack are searched by: runs of letters, digits,
// marks and underscores, lower-cased, without English stop words. The
// index (package search) splits records this way and every target
// searches words this way, so that a word means the same everywhere.

// Word is a word of a text and its position: the first word is 1, and
// stop words count, so that a phrase knows the gaps they leave.
type Word struct {
	Term     string // lower-cased
	Position int
}

// IsWordRune reports whether r is part of a word.
func IsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.IsMark(r)
}

// Words splits text into its words, lower-cased, stop words left out.
func Words(text string) []Word {
	var ws []Word
	pos := 0
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !IsWordRune(r) }) {
		pos++
		if t := strings.ToLower(f); !stopWords[t] {
			ws = append(ws, Word{Term: t, Position: pos})
		}
	}
	return ws
}

// StopWords returns the stop words (the Snowball project's English list),
// sorted as listed there.
func StopWords() []string { return append([]string(nil), stopList...) }

var stopList = []string{
	"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours", "yourself",
	"yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its",
	"itself", "they", "them", "their", "theirs", "themselves", "what", "which", "who", "whom", "this",
	"that", "these", "those", "am", "is", "are", "was", "were", "be", "been", "being", "have", "has",
	"had", "having", "do", "does", "did", "doing", "would", "should", "could", "ought", "i'm",
	"you're", "he's", "she's", "it's", "we're", "they're", "i've", "you've", "we've", "they've",
	"i'd", "you'd", "he'd", "she'd", "we'd", "they'd", "i'll", "you'll", "he'll", "she'll", "we'll",
	"they'll", "isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't", "doesn't",
	"don't", "didn't", "won't", "wouldn't", "shan't", "shouldn't", "can't", "cannot", "couldn't",
	"mustn't", "let's", "that's", "who's", "what's", "here's", "there's", "when's", "where's",
	"why's", "how's", "a", "an", "the", "and", "but", "if", "or", "because", "as", "until", "while",
	"of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during",
	"before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over",
	"under", "again", "further", "then", "once", "here", "there", "when", "where", "why", "how",
	"all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not",
	"only", "own", "same", "so", "than", "too", "very",
}

var stopWords = func() map[string]bool {
	m := make(map[string]bool, len(stopList))
	for _, w := range stopList {
		m[w] = true
	}
	return m
}()

// EditDistance is the optimal string alignment distance of a and b, by
// characters: insertions, deletions, substitutions and transpositions of
// two neighbours each count one, as vellum's automata with transpositions
// count them: fuzzy words (word~1) match by it.
func EditDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1) // words are short: the whole table
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
