// Package everything runs the official MCP reference server,
// @modelcontextprotocol/server-everything (pinned in interop/package-lock.json),
// as a real upstream in tests: over stdio (Command) or Streamable HTTP
// (StartHTTP, StartHTTPOn). Only test files may import it.
//
// Where the package is not installed, the helpers skip the test with a hint to
// run `make test` (or `cd interop && npm ci`); with MCPLOGD_REQUIRE_EVERYTHING=1,
// which the Makefile's test targets set, they fail it instead.
package everything
