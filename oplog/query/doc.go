// Package query is mcplogd's query language: the tree a query string
// parses into, and the parser. The language is mcplogd's own; the index
// (package search, bleve), the evaluation of records the index has not
// reached yet, the term sets of recent chunks and a studio's VictoriaLogs
// (package studio, LogsQL) are targets, each with a compiler that has one
// case per node type. A new operator is a node type here, a case in the
// parser, one case per compiler, and a tree in Samples, which the
// compilers' tests walk, so that no compiler can miss it.
//
// The language reads the way log search usually does: clauses are all
// required (AND may be written), OR joins alternatives and binds looser,
// NOT or a leading - excludes, parentheses group. A clause is a word
// (searching text and stack), field:value, "a phrase", word* (a prefix),
// a wildcard with * and ?, /a regular expression/, word~1 (fuzzy, up to
// MaxFuzzy edits), field:>n or field:<="2026-05-01" (ranges; only time
// holds values they match), with backslash escapes; message and msg
// name text. Each clause reads as bleve's query strings read it, which
// mcplogd used before it owned the language, so that queries people
// wrote then read the same.
//
// Stop words are left out as Lucene's query parser leaves them out: a word
// or phrase on text and stack of only stop words, which the index does not
// hold, is dropped from the tree (attempt to index is attempt AND index),
// a phrase keeps their places, and a query left with nothing to match is
// an *Error naming them (stop.go).
//
// The parser checks what the language knows: field names, regular
// expressions, fuzziness, the limits (MaxBytes, UTF-8). Which values
// level, kind and status take is the domain's (oplog.ParseQuery checks
// them, at the Pos each leaf records). Errors are *Error, which say where
// the query broke:
//
//	query: syntax error at character 7: '(' is never closed
//	  a AND (b
//	        ^
//
// A short example:
//
//	n, err := query.Parse(`level:error AND name:Physics "null reference"`)
//	if err != nil {
//		return err // an *Error
//	}
//	fmt.Println(query.String(n)) // and(level:error name:Physics "null reference")
package query
