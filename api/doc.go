// Package api serves the operation log over HTTP with Echo: the ingest API
// that game engines and editors write to, the query API that the CLI
// (package client) and the web page read from, the web page itself, and
// the MCP endpoint for agents, where it mounts package mcptools' server.
// It holds no MCP tool, OTLP or Prometheus code: the caller passes the
// /metrics and /v1/logs handlers in Options.Routes (cmd/mcplogd mounts
// package metrics' and package otlp's) and request timing as
// Options.ObserveRequest.
//
// Routes, one file per resource (the file after each):
//
//	GET  /healthz                          {"status":"ok","version":...}; no token (info.go)
//	POST /api/v1/logs                      a batch of lines (and markers) -> {"count","firstId","lastId","ids"}; positionKey, position: a writer's read position stored with it (logs.go)
//	GET  /api/v1/positions                 {"key","value"}: the read position stored under key, null when none (logs.go)
//	GET  /api/v1/records                   newest first: count, offset, before, level, name, kind, source, since, until, run; scope, machine, cursor (records.go, studio.go)
//	GET  /api/v1/records/:id               one record (records.go)
//	GET  /api/v1/records/:id/neighbors     {"prev","next"}: the IDs around it, 0 for none (records.go)
//	GET  /api/v1/tail                      oldest first after sinceId: revision, limit, the filters, waitMs (long poll) (tail.go)
//	GET  /api/v1/stream                    the tail as Server-Sent Events, resumable with Last-Event-ID (stream.go)
//	POST /api/v1/operations                start (or record a finished) operation -> the record, 201 (operations.go)
//	GET  /api/v1/operations/:id            the operation; waitMs waits for it to complete (operations.go)
//	POST /api/v1/operations/:id/complete   {status?, result?, error?, endTime?} -> the record (operations.go)
//	POST /api/v1/operations/:id/replay     {confirm?}: send it again to its upstream -> both records, same, diff (operations.go)
//	GET  /api/v1/names                     every log name with counts and first/last seen; source (names.go)
//	GET  /api/v1/info                      the store's counters and each game's health (info.go)
//	POST /api/v1/clear                     {"confirm": true}: delete every record -> the counters (info.go)
//	POST /api/v1/token/rotate              a new token; the old one stops working at once; only with Options.RotateToken (info.go)
//	GET  /api/v1/search                    full-text search: query, the filters, tool, status, replayOf, limit, cursor; scope, machine (search.go, studio.go)
//	GET  /api/v1/crashes                   crash groups: since, until, source, run, class (crash,error,compile; repeatable), level (error or fatal), limit, buckets, story; scope, machine (crashes.go, studio.go)
//	GET  /api/v1/runs                      {"runs"}: the runs of each source, oldest first: source, run (runs.go)
//	GET  /api/v1/stats                     a digest (oplog.Digest): levels, names, top and new templates, crash groups, errors over time; the filters, run (default each source's current), maxRecords (stats.go)
//	GET  /api/v1/compare                   two runs compared (oplog.Comparison): source, run or runs, against or previous, maxRecords (compare.go)
//	GET  /api/v1/studio                    {"studio", "project"}: whether the server has a studio, its project (studio.go)
//	ANY  /mcp/:token                       MCP over Streamable HTTP (GET, POST, DELETE; mcptools.New's server) (mcp.go)
//	ANY  /mcp/:token/mcp                   the same, for clients that want a path ending in /mcp (mcp.go)
//	ANY  /mcp                              the same, with the token as "Authorization: Bearer" (mcp.go)
//	GET  /                                 a small page saying how to open the web page; no token in it, none needed (ui.go)
//	GET  /favicon.ico                      the web page's icon; no token (ui.go)
//	GET  /ui/:token                        sets the web page's cookie and redirects to /ui/ (ui.go)
//	GET  /ui/                              the web page, with the cookie (ui.go)
//	GET  /ui/assets/*                      the page's scripts, styles and icon (favicon.svg), with the cookie (ui.go)
//	GET  /metrics                          Prometheus text format; Options.Routes (package metrics)
//	POST /v1/logs                          OTLP/HTTP logs (protobuf or JSON, gzip); Options.Routes (package otlp)
//
// The web page (package ui) is a single page that reads /api/v1 with the
// cookie that GET /ui/TOKEN sets: the console as it streams in, records,
// names, search and crashes.
//
// Every route under /api/v1, and the caller's Routes, need the store's
// token as "Authorization: Bearer <token>" (or the page's cookie from the
// page's own origin); GET /healthz does not. Requests and
// answers are JSON. An error is always one shape, whatever produced it:
//
//	{"code":"invalid","message":"record 3: level: unknown level \"loud\"; ...","index":3}
//
// where code is one of the oplog error codes (oplog.HTTPStatus maps each to
// its HTTP status) and index appears only when one record of a batch was
// refused. Nothing of a refused batch is written, and a batch is answered
// 200 only after it is durable.
//
// Rotating the token (SetToken) ends what the old one opened: event
// streams, waiting long polls, MCP sessions (revoke.go). Options.Limits
// caps MCP sessions, event streams and waiting requests; past a cap, 503
// with Retry-After (limits.go, mcp_sessions.go).
//
// Runs: every record belongs to a run of its source (see oplog's
// marker.go). GET /api/v1/tail, /records, /search, /crashes and /stream
// take run (current, previous or a run number, of source or of every
// source; a bad selector is 400, a run no source has 404) and since=
// last_compile (from the newest compile.start marker; 404 when there is
// none); runs (repeated SOURCE:RUN) is the exact form package client sends.
// The tail and the stream show markers beside the lines unless
// markers=false.
//
// Lines arrive in a small wire format (see DecodeLine): a JSON array of
// objects, NDJSON, or one object:
//
//	curl -H "Authorization: Bearer $TOKEN" --data-binary @- http://127.0.0.1:7170/api/v1/logs <<'EOF'
//	{"level":"info","name":"Player","text":"spawned at (3, 4)"}
//	{"level":"Exception","log_name":"Physics","message":"NullReferenceException","stack_trace":"at Rigidbody.Step ()"}
//	EOF
//
// A program wires it up like this (cmd/mcplogd does):
//
//	srv, err := api.New(log, &api.Options{Token: token,
//		Options: mcptools.Options{Version: version, Logger: logger}})
//	if err != nil { ... }
//	go srv.Serve(ln)
//	...
//	srv.Shutdown(ctx)
//
// The MCP endpoint takes the token in its path (the link mcplogd serve
// prints); a wrong one gets 404 like any unknown path. Against DNS
// rebinding, a Host that is not a loopback name or the address the request
// arrived on, or an Origin that is present and not the server's own (or in
// Options.AllowOrigins), gets 403. mcptools.New builds the same MCP server
// for stdio.
//
// client.Client speaks the same API from Go; the JSON answers are its
// types (client.TailAnswer, ...).
package api
