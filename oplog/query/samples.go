package query

import "time"

// Samples returns trees that together hold every type of node, each leaf
// on a text field, on the default fields and on a keyword field where the
// language takes it: what a test walks through a compiler so that a new
// node type cannot be half added (a test of this package fails when a type
// is missing here). Each call returns new trees.
func Samples() []Node {
	one, two := 1.0, 2.0
	incl := true
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	return []Node{
		&Term{Text: "physics"},
		&Term{Field: "stack", Text: "NullReference"},
		&Term{Field: "name", Text: "Physics"},
		&Term{Text: "physcs", Fuzzy: 1},
		&Phrase{Text: "null reference"},
		&Phrase{Field: "text", Text: "null reference"},
		&Phrase{Field: "name", Text: "Main Camera"},
		&Prefix{Prefix: "phys"},
		&Prefix{Field: "name", Prefix: "Phys"},
		&Wildcard{Pattern: "te?t"},
		&Wildcard{Field: "tool", Pattern: "spawn_?"},
		&Regexp{Pattern: "null.*"},
		&Regexp{Field: "source", Pattern: "uni.*"},
		&Term{Field: TemplateField, Text: "3f2a9c1b7d0e"},
		&Prefix{Field: TemplateField, Prefix: "3f2a"},
		&NumberRange{Field: "run", Min: &one, Max: &two, MinIncl: true},
		&TimeRange{Field: TimeField, Start: start, StartIncl: &incl},
		&And{Nodes: []Node{&Term{Text: "a"}, &Term{Field: "level", Text: "error"}}},
		&And{Nodes: []Node{&Term{Text: "a"}, &Not{Node: &Term{Text: "b"}}}},
		&Or{Nodes: []Node{&Term{Text: "a"}, &Term{Field: "kind", Text: "op"}}},
		&Not{Node: &Term{Text: "a"}},
		&All{},
		&None{},
	}
}
