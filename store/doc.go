// Package store keeps the operation log in a bbolt file. It implements
// oplog.Store.
//
// Records live under 8-byte big-endian IDs in the records bucket (encoded by
// internal/codec); the counters that make reads cheap — stats (records,
// bytes, counts by kind and level, first and last ID, the generation and
// what retention trimmed) and per-(source, name) counts with first and last
// seen — are kept by hand in the same transaction as the records. Check
// recounts them all from the records; the test helpers of internal/harness/logtest
// run it when every test ends.
//
// The positions bucket holds each writer's read position (oplog.Position,
// a followed file's offset): AppendAt puts it in the transaction that puts
// the writer's records, so both are durable or neither; retention and Clear
// leave it alone.
//
// The runs bucket holds each source's runs (oplog.RunInfo, runs.go): the
// committer sets every record's Run and updates its run in the same
// transaction; retention and Clear leave runs alone, so a source's run
// numbers never repeat. Records written before schema 6 have run 0.
//
// Appends from many goroutines share one transaction and one fsync (group
// commit, commit.go); retention trims the oldest records in the background
// in small transactions (retention.go); Clear starts a new generation while
// IDs go on. At Open, package migrations brings an older file forward and
// refuses a newer one.
//
// A sealed block whose body does not expand (a flipped bit: its checksum
// fails), or a loose record whose key or value a damaged leaf page
// garbled, does not stop a read: the readers step over it and name its
// run of IDs in their answers (oplog.Damaged in Page, Tail and
// SearchPage); a Get of one of its records is an error (EDAMAGED) naming
// the run and mcplogd salvage; Damage lists the runs found since Open, and
// after an unclean stop (the marker log.db.open left behind) every block
// is checked in the background (damage.go). Damage to the pages bbolt
// checks itself (meta pages, page headers) is refused at Open.
//
// bbolt never gives back the pages it freed: once most of the file is free
// pages, the sealer copies what is live into a new file and renames it over
// the data file (compact.go).
//
// bbolt reads the file through a shared read-only mapping, so every page a
// reader touched counts in the process's resident set until the kernel
// needs it back. ReleaseMapped (mapped.go) drops those pages from the
// mapping (they stay in the page cache): the search index calls it as its
// indexers read through a burst, so that the records they have read once do
// not keep ~240 MiB of a 1,000,000-record file resident.
//
//	db, err := store.Open("mcplogd-data/log.db", nil)
//	...
//	log := oplog.New(db, nil) // the Log owns db and closes it
package store
