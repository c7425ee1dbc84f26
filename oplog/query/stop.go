package query

import (
	"slices"
	"strings"
)

// Stop words in a query, as Lucene's query parser treats them: the index
// leaves them out (Words), so a word or a phrase on text and stack that
// holds no other word cannot match anything, and is left out of the query
// rather than left in to match nothing: "attempt to index" is attempt AND
// index, as an agent pasting the message it saw means. Each node drops
// what is left out: an And or an Or keeps its other nodes, a Not around a
// dropped leaf goes with it, and a node left with nothing is left out of
// its parent in turn. A phrase keeps its stop words' places: "attempt to
// index" wants one word between attempt and index (the gap the analyzer's
// positions keep), so it does not match "attempt index". A query left with
// nothing to match is an *Error naming the words (tooCommon), never a
// silent empty answer; one left with only exclusions (the -foo) matches
// every record but those, as -foo does. Keyword fields (name:the) match
// whole values and keep every word.

// wordless reports whether n is a word or a phrase on text and stack that
// holds no word: only stop words, or no letter or digit at all.
func wordless(n Node) bool {
	var field, text string
	switch n := n.(type) {
	case *Term:
		if n.Fuzzy > 0 { // to~1 asks for words near to (go, top), which the index holds
			return false
		}
		field, text = n.Field, n.Text
	case *Phrase:
		field, text = n.Field, n.Text
	default:
		return false
	}
	return (field == "" || slices.Contains(TextFields, field)) && len(Words(text)) == 0
}

// dropWordless returns n without its wordless leaves (see above), and
// appends each leaf it left out to dropped; nil when nothing is left. A
// node none of whose leaves is left out is returned as it is.
func dropWordless(n Node, dropped *[]Node) Node {
	switch n := n.(type) {
	case *And: // an And of one Not is an exclusion: it stays an And
		return regroup(n, n.Nodes, dropped, func(ns []Node) Node { return &And{Nodes: ns} }, true)
	case *Or:
		return regroup(n, n.Nodes, dropped, func(ns []Node) Node { return &Or{Nodes: ns} }, false)
	case *Not:
		m := dropWordless(n.Node, dropped)
		switch m {
		case nil:
			return nil
		case n.Node:
			return n
		}
		return &Not{Node: m}
	}
	if wordless(n) {
		*dropped = append(*dropped, n)
		return nil
	}
	return n
}

// regroup is dropWordless of n, a group of nodes: n itself when nothing
// was dropped, nil when all were, the one left alone (unless keepNot and
// it is a Not), else a new group of those left.
func regroup(n Node, nodes []Node, dropped *[]Node, group func([]Node) Node, keepNot bool) Node {
	out := make([]Node, 0, len(nodes))
	changed := false
	for _, sub := range nodes {
		m := dropWordless(sub, dropped)
		changed = changed || m != sub
		if m != nil {
			out = append(out, m)
		}
	}
	switch {
	case !changed:
		return n
	case len(out) == 0:
		return nil
	case len(out) == 1:
		if _, isNot := out[0].(*Not); !keepNot || !isNot {
			return out[0]
		}
	}
	return group(out)
}

// tooCommon is the error of a query of only wordless leaves: it names
// their stop words (or, with none, the text that holds no word) and says
// what to write instead.
func tooCommon(dropped []Node) *Error {
	var stops, others []string
	for _, n := range dropped {
		text, written := "", ""
		switch n := n.(type) {
		case *Term:
			text, written = n.Text, n.Text
		case *Phrase:
			text, written = n.Text, `"`+n.Text+`"`
		}
		found := false
		for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !IsWordRune(r) }) {
			if w := strings.ToLower(f); stopWords[w] {
				found = true
				if !slices.Contains(stops, w) {
					stops = append(stops, w)
				}
			}
		}
		if !found && !slices.Contains(others, written) {
			others = append(others, written)
		}
	}
	if len(stops) == 0 {
		if len(others) == 1 {
			return errorf("%s holds no word to search (words are letters, digits and underscores); search a word of the message", listed(others))
		}
		return errorf("%s hold no word to search (words are letters, digits and underscores); search a word of the message", listed(others))
	}
	if len(stops) == 1 {
		return errorf("%s is too common to search (it is left out of the index, so alone it matches nothing); "+
			"add a rarer word or a phrase around it", listed(stops))
	}
	return errorf("%s are too common to search (they are left out of the index, so alone they match nothing); "+
		"add a rarer word or a phrase around them", listed(stops))
}

// listed writes words as `a`, `b` and `c`.
func listed(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "`" + w + "`"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
