// Package api serves the operation log over HTTP with Echo: the ingest API
// that game engines and editors write to, the query API that the CLI and
// later the web page read from, and the MCP endpoint for agents (mcp.go,
// tools.go, mcphttp.go).
//
// Routes:
//
//	GET  /healthz                          {"status":"ok","version":...}; no token
//	POST /api/v1/logs                      a batch of lines -> {"count","firstId","lastId","ids"}
//	POST /api/v1/operations                start (or record a finished) operation -> the record, 201
//	POST /api/v1/operations/:id/complete   {status?, result?, error?, endTime?} -> the record
//	GET  /api/v1/records/:id               one record
//	GET  /api/v1/records                   newest first: count, offset, before, level, name, kind, source, since, until
//	GET  /api/v1/tail                      oldest first after sinceId: revision, limit, the filters, waitMs (long poll)
//	GET  /api/v1/info                      the store's counters
//	POST /api/v1/token/rotate              a new token; the old one stops working at once
//	GET  /metrics                          Prometheus text format (metrics.go); the same token
//	GET|POST|DELETE /mcp/:token            MCP over Streamable HTTP (NewMCPServer's tools)
//	POST /v1/logs                          OTLP/HTTP logs (protobuf or JSON, gzip) -> ExportLogsServiceResponse
//
// Every route under /api/v1 needs the store's token as
// "Authorization: Bearer <token>"; GET /healthz does not. Requests and
// answers are JSON. An error is always one shape, whatever produced it:
//
//	{"code":"invalid","message":"record 3: level: unknown level \"loud\"; ...","index":3}
//
// where code is one of the oplog error codes (errors.go maps each to its
// HTTP status) and index appears only when one record of a batch was
// refused. Nothing of a refused batch is written, and a batch is answered
// 200 only after it is durable.
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
//	srv, err := api.New(log, &api.Options{Token: token, Version: version})
//	if err != nil { ... }
//	go srv.Serve(ln)
//	...
//	srv.Shutdown(ctx)
//
// The MCP endpoint takes the token in its path (the link mcplogd serve
// prints); a wrong one gets 404 like any unknown path. Against DNS
// rebinding, a Host that is not a loopback name or the address the request
// arrived on, or an Origin that is present and not the server's own (or in
// Options.AllowOrigins), gets 403. NewMCPServer builds the same MCP server
// for stdio.
//
// Client speaks the same API from Go.
package api
