// Package datadir manages mcplogd's data directory: the bbolt file, the
// access token and what the last server saved about itself (its address and
// process), so that the link stays the same across launches.
//
// A directory holds:
//
//	log.db        the log (package store)
//	token         the 64-hex-character credential of the API, the MCP link and the page
//	server.json   the last server's address, pid and version; a stopped one keeps its address
//	config.json   optional: {"upstreams": {...}, "follow": {...}} (see Config)
//	index/        the search index (package search), rebuilt from log.db when missing
//	serve.log     the output of a server stdio started in the background
//
// UserDir is the per-user data directory, the default where no --data,
// MCPLOGD_DATA or ./mcplogd-data says otherwise; its servers/ holds the
// Registry of this user's running servers, which each serve joins while
// it runs, so that the CLI finds a server from any working directory.
//
// Only cmd/mcplogd uses it:
//
//	dir, err := datadir.Open(path) // created with a new token when missing
//	token, err := dir.Token()
//	fmt.Println(datadir.Link("http://"+addr, token))
package datadir
