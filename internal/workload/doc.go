// Package workload generates the benchmark workload: a deterministic
// stream of console lines and operations that every benchmark appends, so
// that figures compare.
//
// The mix: levels debug 30%, info 55%, warn 10%, error 5%; 50 log names and 4
// sources, both skewed as real loggers are; messages of about 120 bytes
// drawn from a 5,000-word vocabulary; 10% of records (every error among them)
// carry a stack trace of about 1 KB in one of four shapes (Unity C#, Lua,
// Java, a native backtrace); 15% of lines carry a small JSON data object; 1%
// are operations (run_lua, execute_code, query, get_scene) recorded after
// they ended, with JSON arguments and a result or an error.
//
// The same seed gives the same records, however the stream is cut into
// batches:
//
//	g := workload.New(1)
//	batch := make([]oplog.Record, 1000)
//	for range 1000 {
//		g.Fill(batch)
//		if err := log.Append(ctx, batch); err != nil { ... }
//	}
package workload
