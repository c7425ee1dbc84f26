package oplog

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// More shapes of text pasted as it was printed that find nothing as a
// query: a block of lines (a panic and the runtime's note after it, which
// no record keeps), a runtime's header before a crash, and a line whose
// words the language reads as operators ("Shader NOT compiled", "peer
// -timeout"). Each gets, as its hint, the query that finds what was meant.

// pasteLines is how many lines of a pasted block lineHint tries.
const pasteLines = 8

// lineHint is the hint of q, a block of lines that matches nothing as one:
// the first of its lines (with two words or more) that finds records as it
// is, else the first that does without its first words (withoutLead).
func (l *Log) lineHint(ctx context.Context, q *SearchQuery) *SearchHint {
	lines := strings.Split(q.Query, "\n")
	if len(lines) < 2 {
		return nil
	}
	var tries []int // the lines tried
	for i, line := range lines {
		if letterWords(line) >= 2 && len(tries) < pasteLines {
			tries = append(tries, i)
		}
	}
	for _, lead := range []bool{false, true} {
		for _, i := range tries {
			c := *q
			c.Query, c.Tree = strings.TrimSpace(lines[i]), nil
			if _, err := ParseQuery(c.Query); err != nil {
				continue
			}
			var n int64
			var exact bool
			if lead {
				c, _, n, exact = l.withoutLead(ctx, &c, nil)
			} else {
				n, exact = l.trial(ctx, &c)
			}
			if n == 0 {
				continue
			}
			args, _ := c.hintArgs()
			args["query"] = strings.TrimSpace(args["query"])
			return &SearchHint{Text: fmt.Sprintf("0 hits for the %d lines as one; line %d finds records: %s (%s)", len(lines), i+1, argsText(args), records(n, exact)),
				Args: args, Records: n}
		}
	}
	return nil
}

// panicHint is the hint of q, which holds Rust's panic header as printed
// ("thread 'main' panicked at src/main.rs:7:5:"), a line no record's text
// holds (a panic's record is named panic, its text the message): the
// panics at that place, when there are any.
func (l *Log) panicHint(ctx context.Context, q *SearchQuery) *SearchHint {
	for line := range strings.Lines(q.Query) {
		loc, ok := panicPlace(strings.TrimSpace(line))
		if !ok {
			continue
		}
		c := *q
		c.Query, c.Tree = "name:panic "+loc, nil
		if _, err := ParseQuery(c.Query); err != nil {
			c.Query = "name:panic " + strconv.Quote(loc)
		}
		n, exact := l.trial(ctx, &c)
		if n == 0 {
			return nil
		}
		args, _ := c.hintArgs()
		return &SearchHint{Text: "0 hits; a Rust panic's header is no record's text: the panics at " + loc + ", " + argsText(args) + " (" + records(n, exact) + ")",
			Args: args, Records: n}
	}
	return nil
}

// panicPlace is where the panic a Rust panic's header names happened:
// "thread 'main' panicked at src/main.rs:7:5:" (Rust 1.91: "thread 'main'
// (1234) panicked at …"; before 1.73: "thread 'main' panicked at 'msg',
// src/main.rs:7:5").
func panicPlace(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "thread '")
	if _, r, found := strings.Cut(rest, "' "); ok && found {
		rest = r
	} else {
		return "", false
	}
	if strings.HasPrefix(rest, "(") {
		_, rest, _ = strings.Cut(rest, ") ")
	}
	if rest, ok = strings.CutPrefix(rest, "panicked at "); !ok {
		return "", false
	}
	if i := strings.LastIndex(rest, "', "); strings.HasPrefix(rest, "'") && i > 0 {
		rest = rest[i+3:]
	}
	loc := strings.TrimSuffix(rest, ":")
	return loc, loc != "" && !strings.ContainsAny(loc, " \t")
}

// crashHeaders are lines runtimes print before a crash's own (its
// exception, signal or assertion), which no record's text keeps: the
// crash's record holds what follows them, at level fatal.
var crashHeaders = []string{
	"Unhandled Exception:",          // Mono, .NET Framework
	"Unhandled exception:",          // the Dart VM
	"=== Critical error: ===",       // Unreal
	"ERROR:CRASH: CALL STACK:",      // Defold
	"AddressSanitizer:DEADLYSIGNAL", // the sanitizers, before a signal's report
	"FATAL EXCEPTION:",              // Android's runtime, and the thread's name
	"---- Minecraft Crash Report ----",
	"A detailed walkthrough of the error, its code path and all known details is as follows:", // the report's, before its sections
}

// headerHint is the hint of q, a line that is a crash's header as printed
// (crashHeaders), maybe after a line's time, level and name and before a
// thread's name: the crashes, where there are any.
func (l *Log) headerHint(ctx context.Context, q *SearchQuery) *SearchHint {
	s := strings.TrimSpace(q.Query)
	for _, h := range crashHeaders {
		i := strings.Index(s, h)
		if i < 0 || strings.Contains(s, "\n") || i > 0 && !linePrefix(s[:i]) || len(strings.Fields(s[i+len(h):])) > 1 {
			continue
		}
		c := *q
		c.Query, c.Tree = "level:fatal", nil
		n, exact := l.trial(ctx, &c)
		if n == 0 {
			return nil
		}
		args, _ := c.hintArgs()
		return &SearchHint{Text: "0 hits; " + strconv.Quote(h) + " is what a runtime prints before a crash, no record's text: the crashes, " + argsText(args) + " (" + records(n, exact) + ")",
			Args: args, Records: n}
	}
	return nil
}

// operatorHint is the hint of q, whose query reads words as operators (NOT,
// AND, OR, a word's leading -) and finds nothing: the query as one phrase,
// the words they are, when that finds records.
func (l *Log) operatorHint(ctx context.Context, q *SearchQuery) *SearchHint {
	tree, err := ParseQuery(q.Query)
	if err != nil || !hasOperator(tree) || strings.Contains(q.Query, `"`) || !onlyWords(withoutNot(tree)) {
		return nil
	}
	c := *q
	c.Query, c.Tree = `"`+q.Query+`"`, nil
	if _, err := ParseQuery(c.Query); err != nil {
		return nil
	}
	n, exact := l.trial(ctx, &c)
	if n == 0 {
		return nil
	}
	args, _ := c.hintArgs()
	return &SearchHint{Text: "0 hits; NOT, AND, OR and a word's leading - are operators: as the words they are, " + argsText(args) + " (" + records(n, exact) + ")",
		Args: args, Records: n}
}

// hasOperator reports a tree that excludes or alternates: what NOT, OR or
// a leading - wrote.
func hasOperator(n ql.Node) bool {
	switch n := n.(type) {
	case *ql.Not, *ql.Or:
		return true
	case *ql.And:
		return slices.ContainsFunc(n.Nodes, hasOperator)
	}
	return false
}

// withoutNot is tree with its exclusions read as what they exclude.
func withoutNot(n ql.Node) ql.Node {
	switch n := n.(type) {
	case *ql.Not:
		return withoutNot(n.Node)
	case *ql.And:
		c := &ql.And{}
		for _, m := range n.Nodes {
			c.Nodes = append(c.Nodes, withoutNot(m))
		}
		return c
	case *ql.Or:
		c := &ql.Or{}
		for _, m := range n.Nodes {
			c.Nodes = append(c.Nodes, withoutNot(m))
		}
		return c
	}
	return n
}
