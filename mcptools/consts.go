package mcptools

import "time"

// DefaultMaxTextChars is Options.MaxTextChars when zero.
const DefaultMaxTextChars = 500

// Answer budgets, in bytes of the whole tools/call result as serialized
// (the text block and structuredContent together); a read tool's maxBytes
// argument picks one within [MinBudget, MaxBudget]. An agent's client cuts
// or refuses much larger answers (Claude Code at ~100 KB), and every byte
// is context the agent pays for.
const (
	DefaultBudget        = 32 << 10  // lists
	DefaultTailBudget    = 16 << 10  // console_tail: its lines sent once, as many as DefaultBudget held when they were sent twice
	DefaultDetailsBudget = 64 << 10  // get_log_details: one record
	MinBudget            = 8 << 10   // holds the largest list entry (MaxTextChars characters, escaped, twice)
	MaxBudget            = 256 << 10 // the most a caller may ask for
)

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
