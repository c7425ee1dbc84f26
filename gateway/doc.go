// Package gateway puts mcplogd in front of game servers' own MCP servers
// ("upstreams"): their tools are offered to the agent under mcplogd's
// endpoint, every call is forwarded and recorded as an operation (answered
// later when it outlives its timeout), their console is mirrored into the
// log, and recorded calls can be replayed. It talks to upstreams with the
// go-sdk MCP client, over Streamable HTTP or stdio.
//
// # Upstreams
//
// New starts one loop per Upstream (upstream.go) that connects, lists the
// tools, asks for log messages and keeps the session alive with pings; an
// upstream that is down is retried with a backoff between
// Options.MinBackoff and MaxBackoff, and Status reports its state
// (oplog.UpstreamConnecting, Up, Down, Stopped). Tools offers every
// upstream's tools under their own names, or NAME__tool where two
// upstreams (or mcplogd itself, Options.Reserved) offer the same name;
// Changed says when that list changes.
//
// A cmd: upstream is a process the gateway starts itself (process.go), so
// that it reads its standard error and its end: with Options.Runs set,
// what the game prints there is recorded through the follow parsers under
// the upstream's name, each start is a run marker and each end an exit
// marker with the status or signal, as mcplogd run records a game; a
// process that dies is started again at once, as the next run.
//
// # Calls
//
// Call (calls.go) records the call as a pending operation and forwards it
// at the same time, so that neither waits for the other; the outcome is
// committed when the upstream answers, and the agent's answer carries
// _meta.log_id. A timeout argument (milliseconds) that the tool does not
// declare is taken off: past it the agent gets {status: "pending", log_id}
// and get_result gives the outcome later. A traceback in an upstream's
// error is also stored as one fatal line (results.go), so that
// find_crashes sees it. Operations an earlier run left pending are
// recorded as cancelled at New. A call whose upstream's process died
// under it is answered with the crash that ended the run, once the log has
// completed it crashed (oplog's crashed.go), instead of the broken pipe.
// Replay sends a recorded call again and compares the outcomes.
//
// # The console mirror
//
// A mirror (mirror.go) polls an upstream's console tool and stores its lines
// with Source = the upstream's name: console_tail (mirror_console.go; lines
// after sinceId, lastId, revision, reset) when offered, else get_logs
// (mirror_logs.go; newest first, paged through offset when declared). The
// lines' field names differ between engines (mirror_entry.go reads text,
// message or msg, level, type or severity, and so on). Its position lives in
// the records' data (upstreamId, upstreamRun, upstreamRevision), so a
// restarted mcplogd goes on where it stopped, and a restarted game starts a
// new run. MCP notifications/message are stored as console lines too.
//
// # Example
//
//	up, err := gateway.ParseUpstream("game=http://127.0.0.1:8765/mcp")
//	if err != nil {
//		return err
//	}
//	gw, err := gateway.New(l, []gateway.Upstream{up}, nil)
//	if err != nil {
//		return err
//	}
//	defer gw.Close()
//	res, err := gw.Call(ctx, "console_tail", json.RawMessage(`{"limit": 10}`))
package gateway
