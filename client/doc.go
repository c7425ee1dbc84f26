// Package client speaks mcplogd's HTTP API from Go, with net/http only: a
// program that only writes or reads the log links neither Echo, nor
// Prometheus, gRPC, bleve or bbolt.
//
//	c := client.NewClient("http://127.0.0.1:7170", token)
//	recs := []oplog.Record{{Level: oplog.LevelInfo, Text: "spawned"}}
//	if err := c.Append(ctx, recs); err != nil { ... }
//
// One file per resource, mirroring package api's: logs.go (Append),
// records.go (Get, List, Neighbors), tail.go, info.go (Health, Stats,
// Clear, RotateToken), names.go, operations.go (AwaitComplete, Complete,
// Replay), search.go and crashes.go. Each file also holds the JSON answer
// types of its routes, which the server (package api) writes with.
//
// Remote is an mcptools.Backend over a Client, and RemoteGateway an
// mcptools.Gateway over a running server's MCP endpoint: `mcplogd stdio`
// uses them when a server already holds the data directory.
//
// Errors are *oplog.Error values whose Code follows the HTTP status
// (oplog.CodeForHTTPStatus) and whose Message is the server's.
package client
