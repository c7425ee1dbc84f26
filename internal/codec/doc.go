// Package codec encodes records, keys and counters for the bbolt file, at
// the current schema version only: package migrations keeps frozen copies
// of every older layout and brings old files forward.
//
// A record value is a fixed 12-byte header that filters read without
// decoding (format, kind, level, status, time) followed by length-prefixed
// fields. Strings share one allocation when decoded.
//
//	0      format (2; 3 compressed; 1 before runs, read with run 0)
//	1      kind
//	2      level
//	3      status (oplog.Status: a new status is a new value of this
//	       byte, no new format; an older binary reads one it does not
//	       know as a complete operation with an unnamed status)
//	4..11  time, Unix nanoseconds, big-endian
//	12..   the run (uvarint; format 2 only), then uvarint-prefixed
//	       source, name, text, stack, data
//	       operations add tool, arguments, result, error (uvarint-prefixed),
//	       start and end time (varint Unix nanoseconds, 0 for none) and
//	       replayOf (uvarint)
//
// A record whose fields from text on take 256 bytes or more (a stack
// trace, a large JSON value) is written in format 3 when that shrinks it:
// the same header, run, source and name, then those fields as one S2 block
// (compress.go). Header, Run and SourceName read both without expanding.
//
// The run follows the header rather than sitting in it: a filter on runs
// (oplog.Filter.Runs) needs the source as well, so stores read the run
// (Run) and the source (SourceName) only when a filter names runs.
//
// Keys are 8-byte big-endian IDs, so that bbolt's byte order is ID order:
//
//	b.Put(codec.Key(r.ID), codec.Append(nil, &r))
//	r, err := codec.Decode(id, b.Get(codec.Key(id)))
//
// Changing any layout here means a new Format (or schema) number in
// consts.go, a frozen copy of the old one in package migrations and a
// migration step; migrations' tests fail until that is done.
package codec
