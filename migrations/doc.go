// Package migrations brings a bbolt file's layout forward to the current
// schema, one numbered step at a time.
//
// Each step is one bbolt transaction that also records its version under
// meta/schema, so a step is applied whole or not at all, and a crash in the
// middle of an upgrade leaves a file that the next Open carries on from. A
// file written by a newer mcplogd is refused with both versions named
// (ErrNewer) and nothing in it is changed.
//
// A step reads and writes the layout of its own version, never today's: each
// format a step touches is copied here, frozen, in a file named after the
// schema version that introduced it (v1codec.go for record format 1 and the
// keys, v2codec.go for meta/stats, v3codec.go for the names bucket,
// v7codec.go for compressed records). When package internal/codec changes a
// format, it gets a new format number in consts.go, a new vNcodec.go and a
// new step; the old steps keep working on the files they were written for. A test checks that the newest frozen
// codecs still agree with internal/codec.
//
// Package store calls Apply at every Open:
//
//	from, to, err := migrations.Apply(db, migrations.All, func(m migrations.Migration) {
//		log.Info("migrating", "version", m.Version, "step", m.Name)
//	})
package migrations
