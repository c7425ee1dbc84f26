package query

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Node is a node of a query tree: a leaf that tests one field, or And, Or,
// Not, All and None around them. The set is closed (node is unexported):
// every compiler has one case per type, and Samples holds one of each.
type Node interface{ node() }

// Pos is where a leaf's value was written: At is its byte offset in the
// query (after "field:"), Raw the text written there. Checks of values
// that the language leaves to the domain (level, kind and status) point
// their errors at it; a leaf built in code has the zero Pos.
type Pos struct {
	At  int
	Raw string
}

// Term matches the words of Text in Field ("": text and stack), as the
// field's analyzer splits them; Fuzzy > 0 allows that many edits per word
// (1 or 2). One word on text or stack with no fuzziness also matches its
// inflections (see Inflections); a Phrase of it does not. On a keyword
// field it is the whole value.
type Term struct {
	Field string
	Text  string
	Fuzzy int
	Pos
}

// Phrase matches its words one after another in a text field, or the whole
// value, spaces and all, of a keyword field.
type Phrase struct {
	Field string
	Text  string
	Pos
}

// Prefix matches the words (text fields) or values (keyword fields) that
// start with Prefix: word* as written.
type Prefix struct {
	Field  string
	Prefix string
	Pos
}

// Wildcard matches whole words or values by a pattern of * (any run of
// characters), ? (any one) and literal characters.
type Wildcard struct {
	Field   string
	Pattern string
	Pos
}

// WildcardRegexp returns the regular expression of a wildcard pattern: *
// any run of characters, ? any one, every other character itself.
func WildcardRegexp(pattern string) string {
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return b.String()
}

// Regexp matches whole words or values by an RE2 regular expression
// (which the parser has checked).
type Regexp struct {
	Field   string
	Pattern string
	Pos
}

// NumberRange matches numbers of Field between Min and Max (nil: no
// bound), each bound included when its Incl says so. No field of a record
// holds numbers, so it matches nothing; the language reads it.
type NumberRange struct {
	Field            string
	Min, Max         *float64
	MinIncl, MaxIncl bool
	Pos
}

// TimeRange matches records whose Field (time: the record's time) lies
// between Start and End (zero: no bound). StartIncl nil means included,
// EndIncl nil means excluded.
type TimeRange struct {
	Field              string
	Start, End         time.Time
	StartIncl, EndIncl *bool
	Pos
}

// And matches when every node in it does. Its Not nodes are exclusions:
// an And of only Not nodes matches every record none of them does.
type And struct{ Nodes []Node }

// Or matches when at least one node in it does.
type Or struct{ Nodes []Node }

// Not matches what Node does not match.
type Not struct{ Node Node }

// All matches every record: a keyword value meaning any (kind:any).
type All struct{}

// None matches no record (an empty list of runs).
type None struct{}

func (*Term) node()        {}
func (*Phrase) node()      {}
func (*Prefix) node()      {}
func (*Wildcard) node()    {}
func (*Regexp) node()      {}
func (*NumberRange) node() {}
func (*TimeRange) node()   {}
func (*And) node()         {}
func (*Or) node()          {}
func (*Not) node()         {}
func (*All) node()         {}
func (*None) node()        {}

// Field returns the field a leaf tests ("" for text and stack), and false
// for And, Or, Not, All and None.
func Field(n Node) (string, bool) {
	switch n := n.(type) {
	case *Term:
		return n.Field, true
	case *Phrase:
		return n.Field, true
	case *Prefix:
		return n.Field, true
	case *Wildcard:
		return n.Field, true
	case *Regexp:
		return n.Field, true
	case *NumberRange:
		return n.Field, true
	case *TimeRange:
		return n.Field, true
	}
	return "", false
}

// PosOf is where the leaf n was written in the query (the zero Pos for a
// leaf built in code, or a node that is not a leaf).
func PosOf(n Node) Pos {
	switch n := n.(type) {
	case *Term:
		return n.Pos
	case *Phrase:
		return n.Pos
	case *Prefix:
		return n.Pos
	case *Wildcard:
		return n.Pos
	case *Regexp:
		return n.Pos
	case *NumberRange:
		return n.Pos
	case *TimeRange:
		return n.Pos
	}
	return Pos{}
}

// Map returns n with each leaf replaced by f's answer, And, Or and Not
// rebuilt around them (n itself is not changed); f's first error stops it.
func Map(n Node, f func(leaf Node) (Node, error)) (Node, error) {
	list := func(ns []Node) ([]Node, error) {
		out := make([]Node, len(ns))
		for i, sub := range ns {
			m, err := Map(sub, f)
			if err != nil {
				return nil, err
			}
			out[i] = m
		}
		return out, nil
	}
	switch n := n.(type) {
	case *And:
		ns, err := list(n.Nodes)
		return &And{Nodes: ns}, err
	case *Or:
		ns, err := list(n.Nodes)
		return &Or{Nodes: ns}, err
	case *Not:
		m, err := Map(n.Node, f)
		return &Not{Node: m}, err
	case *All, *None:
		return n, nil
	}
	return f(n)
}

// String renders n compactly, for tests and messages: and(…), or(…),
// not(…), field:value for leaves, * for All and none for None.
func String(n Node) string {
	field := func(f string) string {
		if f == "" {
			return ""
		}
		return f + ":"
	}
	list := func(name string, ns []Node) string {
		parts := make([]string, len(ns))
		for i, sub := range ns {
			parts[i] = String(sub)
		}
		return name + "(" + strings.Join(parts, " ") + ")"
	}
	bound := func(op string, incl bool, v string) string {
		if incl {
			op += "="
		}
		return op + v
	}
	switch n := n.(type) {
	case nil:
		return "<nil>"
	case *Term:
		s := field(n.Field) + n.Text
		if n.Fuzzy != 0 {
			s += "~" + strconv.Itoa(n.Fuzzy)
		}
		return s
	case *Phrase:
		return field(n.Field) + strconv.Quote(n.Text)
	case *Prefix:
		return field(n.Field) + n.Prefix + "*"
	case *Wildcard:
		return field(n.Field) + "wildcard(" + n.Pattern + ")"
	case *Regexp:
		return field(n.Field) + "/" + n.Pattern + "/"
	case *NumberRange:
		s := field(n.Field)
		if n.Min != nil {
			s += bound(">", n.MinIncl, strconv.FormatFloat(*n.Min, 'g', -1, 64))
		}
		if n.Max != nil {
			s += bound("<", n.MaxIncl, strconv.FormatFloat(*n.Max, 'g', -1, 64))
		}
		return s
	case *TimeRange:
		s := field(n.Field)
		if !n.Start.IsZero() {
			s += bound(">", n.StartIncl == nil || *n.StartIncl, n.Start.Format(time.RFC3339Nano))
		}
		if !n.End.IsZero() {
			s += bound("<", n.EndIncl != nil && *n.EndIncl, n.End.Format(time.RFC3339Nano))
		}
		return s
	case *And:
		return list("and", n.Nodes)
	case *Or:
		return list("or", n.Nodes)
	case *Not:
		return "not(" + String(n.Node) + ")"
	case *All:
		return "*"
	case *None:
		return "none"
	}
	panic(fmt.Sprintf("BUG: query.String: unknown node %T", n))
}
