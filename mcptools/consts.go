package mcptools

import "time"

// DefaultMaxTextChars is MCPOptions.MaxTextChars when zero.
const DefaultMaxTextChars = 500

// URIs of the MCP resources.
const (
	consoleURI       = "mcplogd://console"
	recordTemplate   = "mcplogd://records/{id}"
	recordURIPrefix  = "mcplogd://records/"
	namesTemplate    = "mcplogd://names/{name}"
	namesURIPrefix   = "mcplogd://names/"
	maxCompletions   = 100                    // the spec's limit on completion values
	updateInterval   = 250 * time.Millisecond // at most 4 console updates a second
	recentNameRecord = 10
)
