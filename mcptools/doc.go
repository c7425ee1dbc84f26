// Package mcptools is mcplogd's MCP server: the tools agents call to read
// and write the operation log, its resources, the triage prompt and
// argument completion. It knows nothing of HTTP servers: package api mounts
// it at /mcp/{token} over Streamable HTTP, and `mcplogd stdio` serves it
// over stdin and stdout.
//
// The server works over a Backend, what the tools need of the log: an
// *oplog.Log in the process that owns the data directory, or a
// remote.Backend (package mcptools/remote) that forwards to the server
// that does. A Gateway (package gateway, or remote.Gateway) adds the
// upstream game servers' tools beside mcplogd's own and serves
// replay_operation.
//
//	srv := mcptools.New(log, &mcptools.Options{Version: version, Logger: logger})
//	err := srv.Run(ctx, &mcp.StdioTransport{})
//
// The tools, one file per family: console_tail (tail.go); get_logs,
// get_logs_by_name, get_log_by_name, get_log_details and get_result
// (logs.go); list_log_names (names.go); append_log and clear_logs
// (write.go); store_info, ping and help (info.go); search_logs (search.go);
// find_crashes (crashes.go); log_stats and compare_runs (stats.go: a
// run's digest and two runs compared, each within 4 KB); replay_operation
// (replay.go). Resources are
// mcplogd://console (subscribable, watch.go), mcplogd://records/{id} and
// mcplogd://names/{name} (resources.go).
//
// Every read tool answers within a byte budget (budget.go: maxBytes,
// DefaultBudget 32 KB, DefaultTailBudget 16 KB for console_tail, counted
// on the whole tools/call result as sent) and
// says when more exists (more, lastId, nextOffset, nextCursor, skipped), so
// paging stays lossless. Its structuredContent is the JSON its outputSchema
// describes; its text block is compact lines, one per record (text.go),
// with lines in a row that differ only in their values (one template)
// collapsed into one entry with a repeat count. console_tail, get_logs and
// search_logs send each record once: in the text block, and in
// structuredContent too only with format json (formatArg).
// get_log_details (details.go, fields.go, crumbs.go) cuts a field longer
// than its 64 KB budget and pages it with field and offset, adds
// breadcrumbs with around, and an operation's own lines.
//
// Runs (runs.go): console_tail, get_logs, search_logs and find_crashes
// take run (current, previous or a run number, of source or of every
// source) and since last_compile (the newest compile.start marker's
// time), which oplog.Resolve turns into the filter with the other
// arguments, as it does for the HTTP API and the command line
// (resolve.go); tails show markers beside the lines (marker: true), and
// store_info lists each source's newest runs.
//
// The tools that take scope read through a source (source.go): this
// machine's log or the studio, in one shape, so each tool is one path
// and only its answer's shape (studio_tools.go, studio_details.go)
// differs.
//
// Bad arguments are tool results with isError: true whose text starts with
// the error code's title (oplog.ErrorTitle) and names the argument;
// JSON-RPC errors are left to malformed requests. Texts in lists and tails
// are cut at Options.MaxTextChars characters, never bytes.
//
// A tool that waits (console_tail and get_result with waitMs) also ends
// when the HTTP request that carried the call ends, through Requests, which
// the HTTP endpoint registers into.
package mcptools
