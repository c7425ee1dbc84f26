// Package metrics measures mcplogd for Prometheus: collectors of the
// store's commits (Commits, fed by store.Options.OnCommit), of HTTP
// requests and MCP tool calls (the hooks api.Options.ObserveRequest and
// mcptools.Options.Middleware take), and of what the log, the gateway and
// the followers say of themselves at each scrape; Handler answers GET
// /metrics, which package api mounts behind the same token as /api/v1.
//
//	commits := metrics.NewCommits()
//	db, err := store.Open(path, &store.Options{OnCommit: commits.OnCommit})
//	...
//	m := metrics.New(log, &metrics.Options{Commits: commits, FileSize: db.Size})
//	opts := &api.Options{Token: token,
//		Routes:         []api.Route{{Method: "GET", Path: "/metrics", Handler: m.Handler()}},
//		ObserveRequest: m.ObserveRequest}
//	opts.Middleware = []mcp.Middleware{m.TimeToolCalls}
//
// GET /metrics answers in the Prometheus text format, with the same token
// as /api/v1 ("Authorization: Bearer <token>"; a Prometheus scrape config
// sets it with authorization: {credentials_file: ...}). What it reports:
//
//	mcplogd_records_appended_total{kind,level}        counter: records appended since start (Commits)
//	mcplogd_source_records_appended_total{source}     counter: the same by source (Commits)
//	mcplogd_store_commit_duration_seconds             histogram: group commits, fsync included (Commits)
//	mcplogd_store_commit_records                      histogram: records written per group commit (Commits)
//	mcplogd_records_retained{kind,level}              gauge: records kept now
//	mcplogd_records_retained_bytes                    gauge: their encoded size
//	mcplogd_records_trimmed_total                     counter: records removed by retention (this generation)
//	mcplogd_store_file_bytes                          gauge: the bbolt file (Options.FileSize)
//	mcplogd_index_indexed_through                     gauge: the index's watermark, an ID
//	mcplogd_index_lag_records                         gauge: records appended above it
//	mcplogd_index_records_indexed_total               counter: how far the watermark moved; rate() is the indexing rate
//	mcplogd_index_disk_bytes                          gauge: the index on disk
//	mcplogd_http_request_duration_seconds{route,method,code}  histogram: the HTTP API (not /mcp)
//	mcplogd_mcp_tool_call_duration_seconds{tool}      histogram: MCP tools/call, by tool
//	mcplogd_upstream_state{upstream,state}            gauge: 1 for the gateway upstream's state, 0 for the others
//	mcplogd_upstream_pending_calls{upstream}          gauge
//	mcplogd_follower_state{follower,state}            gauge: 1 for the followed file's state, 0 for the others
//	mcplogd_follower_offset_bytes{follower}, _size_bytes, _lag_bytes  gauges: read, file size, size-offset
//	mcplogd_follower_lines_read_total{follower}, mcplogd_follower_records_stored_total{follower}  counters
//	mcplogd_studio_state{state}                       gauge: 1 for the studio forwarding's state (serve --studio)
//	mcplogd_studio_lag_records, _lag_seconds, _forwarded_id, _rows_reconciled, _pending_operations  gauges
//	mcplogd_studio_rows_acknowledged_total, _rows_resent_total, _records_lost_total, _records_too_old_total  counters
//	mcplogd_studio_last_error_timestamp_seconds       gauge: when forwarding last failed
//
// and the Go runtime's go_* and the process's process_* metrics.
package metrics
