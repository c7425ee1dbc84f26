// Package remote serves mcplogd's MCP tools from a process that does not
// own the data directory: `mcplogd stdio` (and the CLI) started while a
// server already holds it. Backend is an mcptools.Backend over the
// server's REST API (package client), and Gateway an mcptools.Gateway over
// the server's own MCP endpoint, so the upstream game servers' tools are
// offered too and their calls recorded where the server records them.
//
//	c := client.NewClient(baseURL, token)
//	b := remote.NewBackend(c)
//	defer b.Close()
//	gw, err := remote.NewGateway(ctx, c, version)
//	if err != nil { ... } // the server's upstream tools are then not offered
//	defer gw.Close()
//	srv := mcptools.New(b, &mcptools.Options{Gateway: gw})
//
// It is a package of its own, and not part of client, because speaking
// MCP means linking the MCP SDK (and mcptools): a Go program that only
// writes to or reads from a running mcplogd imports client and links
// net/http and encoding/json, nothing of the server's.
//
// Errors are client's: *oplog.Error values whose Code follows the HTTP
// status; a Gateway call that cannot reach the server fails as the MCP
// SDK's client session does.
package remote
