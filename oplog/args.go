package oplog

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// ParseIDText reads a record ID written by a caller: digits, or a JSON
// string of digits ("42", as the Unity seed sends IDs), spaces around
// ignored. Empty, "null" and "\"\"" mean no ID (given false). Zero is
// refused unless zeroOK. An EINVALID error names the argument name.
func ParseIDText(name, raw string, zeroOK bool) (id uint64, given bool, err error) {
	s := strings.TrimSpace(raw)
	if s == "" || s == "null" {
		return 0, false, nil
	}
	if s[0] == '"' {
		if err := json.Unmarshal([]byte(s), &s); err != nil {
			return 0, false, idTextError(name, raw)
		}
		if s = strings.TrimSpace(s); s == "" {
			return 0, false, nil
		}
	}
	id, err = strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 && !zeroOK {
		return 0, false, idTextError(name, raw)
	}
	return id, true, nil
}

func idTextError(name, raw string) error {
	return Errorf(EINVALID, "%s: must be a record ID, a whole number such as 42 or \"42\", got %s", name, raw)
}

// SearchText is a SearchQuery as callers write it: the search_logs tool's
// arguments, GET /api/v1/search's parameters, the CLI's flags. ReplayOf is
// written as ParseIDText reads it.
type SearchText struct {
	FilterText
	Query, Tool, Status, ReplayOf, Cursor string
	Limit                                 int
}

// Parse reads s, with relative times counted back from now. An EINVALID
// error names the field: the filter's first ("level: ..."), then replayOf,
// status and limit.
func (s SearchText) Parse(now time.Time) (SearchQuery, error) {
	f, err := s.FilterText.Parse(now)
	if err != nil {
		return SearchQuery{}, err
	}
	q := SearchQuery{Query: s.Query, Filter: f, Tool: s.Tool, Limit: s.Limit, Cursor: s.Cursor}
	if q.ReplayOf, _, err = ParseIDText("replayOf", s.ReplayOf, true); err != nil {
		return q, err
	}
	if q.Status, err = ParseStatus(s.Status); err != nil {
		return q, Errorf(EINVALID, "status: %s", ErrorMessage(err))
	}
	if q.Limit < 0 {
		return q, Errorf(EINVALID, "limit: must be 0 or more, got %d", q.Limit)
	}
	return q, nil
}
