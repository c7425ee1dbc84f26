package metrics

import (
	"net/http"
	"sync"
)

// labelCap admits the first max distinct values of a label; later ones
// become otherLabel.
type labelCap struct {
	max  int
	mu   sync.Mutex
	seen map[string]bool
}

// value returns v if it is admitted, or if admit and there is room;
// otherwise otherLabel when admit, and "" when not.
func (c *labelCap) value(v string, admit bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[v] {
		return v
	}
	if !admit {
		return ""
	}
	if len(c.seen) >= c.max {
		return otherLabel
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[v] = true
	return v
}

// methodLabel keeps the standard methods; a client may send any word.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return otherLabel
}
