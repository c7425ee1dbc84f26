// Package crash groups crashes: Signature normalises a stack trace so that
// one crash seen many times (from other lines, addresses, builds or
// argument values) has one signature, and Index keeps the error records
// with stack traces of a log grouped by it, behind oplog.Log.FindCrashes.
// It is a sibling of search: both are indexes that oplog.Log owns and that
// read the store in the background. Unlike search it links nothing but
// oplog, the standard library and a demangler of C++'s names (itself of
// the standard library only), and so belongs to the domain: adapters
// may import it (package studio titles and classes the studio's crash
// groups with it, as the local index does), and it imports no adapter.
//
//	sig, title, frames := crash.Signature(stack)
//	// title: "NullReferenceException in Player.Update"
//
//	idx := crash.New(log, nil) // reads the log in the background
//	log.SetCrashes(idx)        // the log owns idx and closes it
//	groups, err := log.FindCrashes(ctx, oplog.CrashQuery{Since: time.Now().Add(-time.Hour)})
//
// # Signatures
//
// Parse (parse.go) reads a stack in any of the shapes game engines write
// (Unity and Mono, .NET, Java, Lua, Go, gdb, Python, JavaScript; the frame
// shapes of each family are in frames.go, those of native programs on
// Linux and macOS, glibc's backtrace_symbols, lldb and the sanitizers, in
// unix.go) into a Trace: the head (the
// exception and its message) and the top TopFrames frames. normalize.go
// strips what differs between occurrences of one crash: line numbers,
// addresses, generic arguments, compiler-made numbering in names, numbers
// and quoted values in messages. The signature is a hash of what remains;
// the title names the crash's type and the first telling frame.
//
// # The index
//
// Each group has a class (class.go): a crash (a fatal occurrence, or the
// crash of a run, oplog.RunInfo.CrashID), an error, or a compiler's
// diagnostic. One crash is one occurrence however many lines an engine
// prints as it dies (firstFatal, reasonBefore in feed.go). A group's title
// (title.go) is its newest occurrence's message and the first frame that
// belongs to the game, read at query time from that record.
//
// The index never slows appends: a background reader (feed.go) follows the
// store after its own watermark, keeping a compact entry per crash (ID,
// time, source, group). A query (find.go) first reads and groups whatever
// the reader has not reached yet, so answers are exact however far behind
// it is. Its limits are in consts.go.
package crash
