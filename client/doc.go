// Package client speaks mcplogd's HTTP API from Go, with net/http only: a
// program that only writes or reads the log links neither Echo, nor
// Prometheus, gRPC, bleve or bbolt.
//
//	c := client.NewClient("http://127.0.0.1:7170", token)
//	recs := []oplog.Record{{Level: oplog.LevelInfo, Text: "spawned"}}
//	if err := c.Append(ctx, recs); err != nil { ... }
//
// One file per resource, mirroring package api's: logs.go (Append),
// records.go (Get, List, Neighbors), tail.go, info.go (Health, Stats, Info,
// Clear, RotateToken), names.go, operations.go (AwaitComplete, Complete,
// Replay), search.go and crashes.go. Each file also holds the JSON answer
// types of its routes, which the server (package api) writes with.
//
// The package links net/http, encoding/json and package oplog only, not
// the MCP SDK: the tools' Backend and Gateway over a running server, which
// `mcplogd stdio` uses when a server already holds the data directory, are
// package mcptools/remote's (a test in internal/harness/layout keeps it so).
//
// Errors are *oplog.Error values whose Code follows the HTTP status
// (oplog.CodeForHTTPStatus) and whose Message is the server's.
package client
