package mcptools

import "strings"

// withDamage puts the markers on lines of their own after the first line
// of block (its header), where a reader sees them before the entries.
func withDamage(block string, marks []string) string {
	if len(marks) == 0 {
		return block
	}
	head, rest, ok := strings.Cut(block, "\n")
	out := head + "\n" + strings.Join(marks, "\n")
	if ok {
		out += "\n" + rest
	}
	return out
}
