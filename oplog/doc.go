// Package oplog is mcplogd's domain: the records of the operation log and
// the Log service that appends, completes, lists and tails them.
//
// One log holds two kinds of record under one strictly increasing ID
// sequence: console lines (KindLine) and tool invocations (KindOp), so a
// reader sees a call and the lines it printed in order. An operation is
// appended when it starts (StatusPending) and completed in place once.
//
// Readers poll without missing or repeating a record by passing the lastId
// of one Tail answer as the SinceID of the next; Revision tells them when
// the store was replaced or cleared (Reset), and Dropped how many records
// retention removed before they were read.
//
//	log := oplog.New(db, nil) // db implements Store (package store: bbolt)
//	lines := []oplog.Record{{Level: oplog.LevelInfo, Name: "Player", Text: "spawned"}}
//	if err := log.Append(ctx, lines); err != nil { ... } // durable; lines[0].ID is set
//	t, err := log.Tail(ctx, oplog.TailQuery{SinceID: last, HasSince: true, Wait: 25 * time.Second})
//
// The package imports only the standard library; adapters (store, api)
// import it. Errors are *Error values with a Code (EINVALID, ENOTFOUND,
// ECONFLICT, EUNAVAILABLE, EINTERNAL) whose Message names what was wrong.
package oplog
