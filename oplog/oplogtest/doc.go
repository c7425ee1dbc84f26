// Package oplogtest is the conformance suite for oplog.Store and an
// in-memory reference store.
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
// The suite does not cover what only one store has: retention, reopening a
// file and group commit are tested in package store.
package oplogtest
