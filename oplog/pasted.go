package oplog

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// A line pasted whole, as the console printed it, often begins with what
// the log keeps apart from a record's text: its time, level and name
// (`2026-12-05 10:00:00: ERROR[Main]:`, `[ERROR]`, `Error:`), or the words
// a runtime prints before an uncaught error's own (`Exception in thread
// "main"`). No record's text holds them, so the line's words, all
// required, find nothing. Where a search engine would say "showing
// results for", the search of such a line answers with the records its
// words find without its first few, and says which it left out; the
// cursor of its pages leaves them out too. A query whose first words do
// not look like a line's beginning (`spawn enemy wave now`) gets that
// request as a hint instead, and is not answered with it.

// leadWords is how many of a pasted line's first words may be left out:
// a date, a time, a level, a thread and a logger's name, and a few more.
const leadWords = 8

// withoutLead tries q's query of words and phrases without its first word,
// then its first two, up to leadWords, while two words with a letter stay,
// and returns the first such search that finds records: c, which leaves
// out the first lead bytes of q's query, and the n records it finds; n is
// 0 when none does. Only the words left out that accept takes are tried
// (all when it is nil): a line's beginning ("SCRIPT ERROR:") is left out
// whole, not its first word alone, whose rest ("ERROR: GDScript::reload:
// Parse Error: ...") may find the record too.
func (l *Log) withoutLead(ctx context.Context, q *SearchQuery, accept func(lead string) bool) (c SearchQuery, lead int, n int64, exact bool) {
	tree, err := ParseQuery(q.Query)
	if err != nil || !onlyWords(tree) {
		return c, 0, 0, false
	}
	fields := strings.Fields(q.Query)
	end := 0 // of the words left out so far
	for k := 1; k <= leadWords && k < len(fields); k++ {
		end += strings.Index(q.Query[end:], fields[k-1]) + len(fields[k-1])
		lead = end + strings.Index(q.Query[end:], fields[k])
		if letterWords(q.Query[lead:]) < 2 {
			break
		}
		if strings.Count(q.Query[:lead], `"`)%2 != 0 || accept != nil && !accept(q.Query[:lead]) {
			continue // inside a phrase, or not taken
		}
		c = *q
		c.Query, c.Tree = q.Query[lead:], nil
		if _, err := ParseQuery(c.Query); err != nil {
			continue
		}
		if n, exact = l.trial(ctx, &c); n > 0 {
			return c, lead, n, exact
		}
	}
	return c, 0, 0, false
}

// pasted answers q, whose first page came back empty, with the first page
// of its query without its first words, when they look like a line's
// beginning and the rest finds records; its Hint says what was left out.
func (l *Log) pasted(ctx context.Context, q *SearchQuery) (SearchPage, bool) {
	if _, ok := panicPlace(strings.TrimSpace(q.Query)); ok {
		return SearchPage{}, false // its words without the first find other lines: the hint names the panics there (panicHint)
	}
	c, lead, n, exact := l.withoutLead(ctx, q, linePrefix)
	if n == 0 {
		return SearchPage{}, false
	}
	p, err := l.search(ctx, c)
	if err != nil || len(p.Hits) == 0 {
		return SearchPage{}, false
	}
	p.NextCursor = leadCursor(p.NextCursor, uint64(lead))
	args, _ := c.hintArgs()
	args["query"] = strings.TrimSpace(args["query"])
	p.Hint = &SearchHint{Text: "the whole line matches nothing; shown without " + strconv.Quote(strings.TrimSpace(q.Query[:lead])) +
		" (a line's time, level and name are not its text): " + argsText(args) + " (" + records(n, exact) + ")", Args: args, Records: n}
	return p, true
}

// leadHint is the hint of q's query without its first words (see
// withoutLead), when they do not look like a line's beginning.
func (l *Log) leadHint(ctx context.Context, q *SearchQuery) *SearchHint {
	c, lead, n, exact := l.withoutLead(ctx, q, nil)
	if n == 0 {
		return nil
	}
	args, _ := c.hintArgs()
	args["query"] = strings.TrimSpace(args["query"])
	return &SearchHint{Text: "0 hits; without " + strconv.Quote(strings.TrimSpace(q.Query[:lead])) + ": " + argsText(args) + " (" + records(n, exact) + ")",
		Args: args, Records: n}
}

// linePrefix reports whether s, the first words of a query, look like the
// beginning of a printed line rather than words of a message: they hold a
// digit (a date, a time, a process ID), a bracket, a colon or a quote
// (`[Main]`, `Error:`, `thread 'main'`), or a level's name.
func linePrefix(s string) bool {
	if strings.ContainsAny(s, "0123456789[]():'\"`<>|") {
		return true
	}
	return slices.ContainsFunc(strings.FieldsFunc(s, notWordRune), func(w string) bool {
		_, ok := levelSpellings[strings.ToLower(w)]
		return ok
	})
}

// onlyWords reports whether tree is words, phrases and patterns on text
// and stack only, none of them excluded: what a message pasted as it was printed
// reads as.
func onlyWords(tree ql.Node) bool {
	switch n := tree.(type) {
	case *ql.And:
		return !slices.ContainsFunc(n.Nodes, func(m ql.Node) bool { return !onlyWords(m) })
	case *ql.Or:
		return !slices.ContainsFunc(n.Nodes, func(m ql.Node) bool { return !onlyWords(m) })
	case *ql.Term, *ql.Phrase, *ql.Wildcard, *ql.Prefix: // a pattern: a marked level as printed, "**ERROR**:"
		f, _ := ql.Field(n)
		return f == "" || slices.Contains(ql.TextFields, f)
	}
	return false
}

// letterWords counts the words of s, as the index reads words, that hold
// a letter.
func letterWords(s string) int {
	n := 0
	for _, w := range strings.FieldsFunc(s, notWordRune) {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			n++
		}
	}
	return n
}

func notWordRune(r rune) bool { return !ql.IsWordRune(r) }
