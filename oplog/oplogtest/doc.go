// Package oplogtest is the conformance suite for oplog.Store, an
// in-memory reference store and an in-memory studio.
//
// TestStore exercises oplog.Log over a store: IDs of appends, get, list with
// filters and offsets, tail with sinceId, limits and resets, completion,
// names, neighbours, clear and the stats, and the waiting readers. Every
// Store runs the same suite, as hashicorp/raft's bench package serves every
// log store:
//
//	func TestStore(t *testing.T) {
//		oplogtest.TestStore(t, func(t *testing.T) oplog.Store {
//			return logtest.MustOpenDB(t, nil)
//		})
//	}
//
// Memory is the reference: a slice of records that recounts its stats and
// names at every call, simple enough to be obviously right. Package oplog's
// own tests run the suite and the Log's other tests over it, so that the
// domain is tested without bbolt; package store runs the suite over bbolt.
//
// Studio is the in-memory oplog.Studio, the reference for package studio's
// Client as Memory is for the stores: the rows the forwarder sends
// (StudioRow: machine, revision, seq, record, crash signature) kept in a
// slice, and each method answering as the Client's LogsQL and sums do (an
// operation's newest row wins, lists page newest first by cursor, crash
// groups are summed across machines), with a small matcher of the query
// language whose answers internal/harness/querytest checks against the
// ones written out for every node. What only package crash knows (a
// group's title and frames, whether it is a compile error) the caller
// passes in StudioOptions. The studio-scope tests of mcptools and api run
// over it on every go test, and over VictoriaLogs too where one can run
// (internal/harness/studiotest.Impls):
//
//	s := oplogtest.NewStudio("game", &oplogtest.StudioOptions{Describe: crash.Describe, IsCompile: crash.IsCompile})
//	s.Add(oplogtest.StudioRow{Machine: "alice-pc", Revision: 1, Seq: 1, Record: rec, Signature: sig})
//	page, err := s.Search(ctx, oplog.StudioSearchQuery{SearchQuery: oplog.SearchQuery{Query: "null reference"}})
//
// The suite does not cover what only one store has: retention, reopening a
// file and group commit are tested in package store.
package oplogtest
