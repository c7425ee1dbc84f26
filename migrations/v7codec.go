package migrations

import "go.etcd.io/bbolt"

// Schema 7 lets records be written compressed, in record format 3:
//
//	0      format (3)
//	1..11  kind, level, status, time as in format 2
//	12..   the run (uvarint), source and name (uvarint-prefixed) as in
//	       format 2, then one S2 block (github.com/klauspost/compress/s2,
//	       block format: the expanded length as a uvarint, then the
//	       compressed bytes) of format 2's fields from text on
//
// The header, run, source and name are where format 2 has them. Records of
// formats 1 and 2 are not rewritten, and a file keeps records of all three.

// RecordFormat3 is the format byte of a record written compressed since
// schema 7.
const RecordFormat3 = 3

// allowCompressed is schema 7. Nothing in the file changes: the step
// records that it may now hold format-3 records, so that an mcplogd older
// than this one refuses the file (ErrNewer) rather than calling them
// corrupt.
func allowCompressed(*bbolt.Tx) error { return nil }
