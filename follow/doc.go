// Package follow turns log files that a game engine writes into records of
// an oplog.Log, like `tail -F` with a parser behind it.
//
// # Following
//
// A Follower (Start) follows one path. The file need not exist yet: it
// waits, polling every Options.Poll. Once open it reads what is there and
// what is appended, in chunks, splits the bytes into lines and holds an
// unterminated last line until its newline arrives (a line longer than
// maxLine is kept as its head, marked with its length: lineCutter). It notices, once per pass, that the file was
// truncated or rewritten in place (it is read again from 0), and at the
// end of the file that the path now names another file (a rotation: the
// rest of the old file is read and stored, then the new one is followed).
// Completed entries are appended in batches, each Append one fsync.
// Status reports the follower's state (StateWaiting, StateFollowing,
// StateFailing) for the MCP store_info tool and the metrics.
//
// # Parsers
//
// A Parser (NewParser) turns lines into records, holding lines while an
// entry may go on (a stack trace below its message): "unity" for Unity's
// Editor.log and Player.log, "log4j" (alias "minecraft") for Log4j layouts,
// "godot" for Godot's output and Godot 3's file logger, "unreal", "luanti"
// (alias "minetest") for Luanti's debug.txt and console, "rust" for
// tracing's fmt lines, "json" for JSON lines of structured loggers,
// "generic" (alias "lua", "love") for a timestamp and a level word of any
// logger, Lua's uncaught errors and Rust's panics, "plain" for one info
// record per line, and "auto", which reads the first lines (detectLines)
// and picks one. Some parsers are layers in front of others (layer): the
// generic parser is Lua's errors in front of Rust's panics in front of
// genericParser. Lines reach a parser without their \r and terminal
// escapes (cleanLine). An entry held when the file goes quiet for
// Options.Quiet is flushed, so that the last message of a paused game is
// not kept back.
//
// # Runtimes
//
// Every parser but "plain" has the runtimes' recognisers in front of it
// (runtimeLayer, runtime.go): a crash report a runtime prints (a Python
// traceback, glibc's assertion, a crash handler's backtrace, a sanitizer,
// .NET's, the JVM's, Node's, a Go panic) is one record whatever prefix a
// logger put on its lines (cutPrefix), and a traceback joins the line
// before it only when that line announces it. An engine's parser keeps
// the reports it reads its own way (reportOwner). The parsers are one
// table (parsers in parse.go).
//
// # Runs of a program, and imports
//
// RunCommand runs a game and records its output, read through a
// pseudo-terminal so that it stays line-buffered: a run marker at the
// launch, an exit marker with its status or signal at the end. Import
// reads a log once with the same parsers, its position stored with its
// records so that importing it again adds nothing.
//
// # Positions kept with the records
//
// The follower keeps no state file. Every record it appends carries in its
// Data "file" (the path it was read from), "offset" (the offset just past
// its last line) and "fileId" (device, inode and a hash of the file's first
// bytes, so that a new file that reuses the inode is told apart), and each
// batch stores the same three for its last record as the Log position of
// the follower (oplog.Log.AppendAt), in the same transaction as the
// records. The position's key is the follower's source name and absolute
// path, so each file has its own (the files of a directory too) and no
// other writer of the source moves or hides it; Clear and retention keep
// it. Start reads that position in O(1) (for a store written before
// positions were kept apart, the newest record of its source that has
// them) and resumes there: in the same file at that offset, in the file it
// was rotated to while mcplogd was down (found in the same directory by its
// fileId), or from the start of a file it has never seen. A restart
// neither duplicates nor skips a line; an entry held at a crash is read
// again, since the position is just past the last entry stored.
//
// # Where the logs are, and directories
//
// Locate finds an engine's usual log from a project directory per OS
// (Unity Editor and Player, Godot, Minecraft, Unreal, Luanti; locate.go). StartDir
// follows a directory of files that appear over time, such as Minecraft's
// crash-reports/crash-*.txt: each file once to its end, with a position of
// its own (dir.go).
//
// # Example
//
//	f, err := follow.Start(l, follow.Options{
//		Name: "unity-editor",
//		Path: filepath.Join(home, ".config/unity3d/Editor.log"),
//		Parser: "unity",
//	})
//	if err != nil {
//		return err
//	}
//	defer f.Close() // stores the entry the parser holds
package follow
