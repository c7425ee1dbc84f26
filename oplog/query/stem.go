package query

import "strings"

// Inflections: a bare word of text and stack (a Term with no fuzziness,
// not quoted, one word as Words splits it) also matches the inflections
// of its stem, so that crash finds crashed, crashes and crashing. Every
// target matches the same finite list of words (Inflections), each as an
// exact word, so that the index, the evaluator of records above it and
// LogsQL agree without a dictionary scan. A quoted word ("crash") is a
// phrase and stays exact.
//
// The stemmer is deliberately small (the first step of Porter's, on
// lower-case ASCII words): -ies and -ied become -y; -eed stays; -ing and
// -ed go when a vowel stays before them, and a doubled final consonant
// (but l, s, z and f) is undoubled after them; -s goes but after s, u or
// i; a final e goes but after another e. It knows no -er, -ion or -ly:
// server is not serve, nor connection connect.

// MinStem is the length of the shortest stem that expands: a word whose
// stem is shorter matches only itself (sav of saved, use, add).
const MinStem = 4

// MaxInflected is the length of the longest word that expands, in bytes:
// longer ones (identifiers, blobs) match only themselves.
const MaxInflected = 64

// Stem returns the stem of word (lower-case) by the rules above; a word
// that is not lower-case ASCII letters is its own stem.
func Stem(word string) string {
	if !isLowerASCII(word) {
		return word
	}
	s := word
	switch { // the first rule that applies
	case len(s) > 4 && (strings.HasSuffix(s, "ies") || strings.HasSuffix(s, "ied")):
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "eed"):
		return s // exceed, proceed; exceeded is exceed+ed
	case strings.HasSuffix(s, "ing") && hasVowel(s[:len(s)-3]):
		return undouble(s[:len(s)-3])
	case strings.HasSuffix(s, "ed") && hasVowel(s[:len(s)-2]):
		return undouble(s[:len(s)-2])
	case strings.HasSuffix(s, "s") && len(s) > 1 && !strings.ContainsRune("sui", rune(s[len(s)-2])):
		s = s[:len(s)-1]
	}
	return dropE(s)
}

// undouble drops the last letter of s when it doubles a consonant
// (stopp of stopped), or else a final e (creat of created, as of create).
func undouble(s string) string {
	if n := len(s); n >= 2 && s[n-1] == s[n-2] && !isVowel(s[n-1]) && !strings.ContainsRune("lszf", rune(s[n-1])) {
		return s[:n-1]
	}
	return dropE(s)
}

// dropE drops a final e but after another e (creat of create; free stays).
func dropE(s string) string {
	if n := len(s); n >= 2 && s[n-1] == 'e' && s[n-2] != 'e' {
		return s[:n-1]
	}
	return s
}

func hasSuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

func isVowel(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }

func hasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

// Inflections returns the words that a bare word (lower-case, as Words
// returns it) matches: the word itself first, then the other words whose
// Stem is the word's, when that stem is at least MinStem long, among the
// stem followed by nothing, e, es, ed, ing; s but after s, x, z, ch, sh;
// eing after u; its last consonant doubled and ed or ing after a
// consonant, a vowel and a consonant other than l, s, z, f, w, x, y; and
// ies and ied for a stem in y; the stem itself but when the word is the
// stem and e (value does not match valu). A finite list, at most eleven
// words.
func Inflections(word string) []string {
	forms := []string{word}
	s := Stem(word)
	if len(s) < MinStem || len(word) > MaxInflected || !isLowerASCII(word) {
		return forms
	}
	// Only the spellings English uses: each costs the index a lookup. A
	// word written with its final e (value) does not match its stem without
	// it (valu, state and stat).
	cands := []string{s + "e", s + "es", s + "ed", s + "ing"}
	if word != s+"e" {
		cands = append([]string{s}, cands...)
	}
	if !hasSuffix(s, "s", "x", "z", "ch", "sh") {
		cands = append(cands, s+"s") // spawns, but crashes
	}
	if strings.HasSuffix(s, "u") {
		cands = append(cands, s+"eing") // queueing
	}
	if n := len(s); !isVowel(s[n-3]) && isVowel(s[n-2]) && !isVowel(s[n-1]) && !strings.ContainsRune("lszfwxy", rune(s[n-1])) {
		c := s[n-1:]
		cands = append(cands, s+c+"ed", s+c+"ing") // stopped, committing
	}
	if y, ok := strings.CutSuffix(s, "y"); ok {
		cands = append(cands, y+"ies", y+"ied")
	}
	for _, c := range cands {
		if c != word && Stem(c) == s {
			forms = append(forms, c)
		}
	}
	return forms
}

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
