// Package querytest holds what the semantic tests of the query language's
// compilers share: a small fixed set of records (Records) and, for every
// tree of oplog/query's Samples, a query of that tree's shape with the IDs
// of the records it matches, written out by hand (Cases). Every compiler
// of the language must find exactly those records: bleve's, the predicate
// on the records above the index's watermark and the chunks' term sets
// (package search), and LogsQL in a studio's VictoriaLogs (package
// studio), or, for LogsQL, refuse the query naming what it cannot say.
//
// The compilers' completeness tests prove that every node compiles; these
// prove that the compiled queries agree, in the manner of VictoriaLogs'
// testFilterMatchForColumns: a fixed set of rows and, for each filter, the
// rows it must match.
//
//	recs := logtest.MustAppend(t, l, querytest.Records()...) // IDs 1..len
//	for _, c := range querytest.Cases(t) {
//		// search c.Query, compare the IDs with c.Want
//	}
package querytest
