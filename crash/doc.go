// Package crash groups crashes: Signature normalises a stack trace so that
// one crash seen many times (from other lines, addresses, builds or
// argument values) has one signature, and Index keeps the error records
// with stack traces of a log grouped by it, behind oplog.Log.FindCrashes.
//
//	sig, title, frames := crash.Signature(stack)
//	// title: "NullReferenceException in Player.Update"
//
//	idx := crash.New(log, nil) // reads the log in the background
//	log.SetCrashes(idx)        // the log owns idx and closes it
//	groups, err := log.FindCrashes(ctx, oplog.CrashQuery{Since: time.Now().Add(-time.Hour)})
//
// The index never slows appends: a background reader follows the store
// after its own watermark, keeping a compact entry per crash (ID, time,
// source, group). A query first reads and groups whatever the reader has
// not reached yet, so answers are exact however far behind it is.
package crash
