package query

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error is a query the language cannot read, or a value it refuses. Its
// message is the one people see: "query: syntax error at character 7:
// …", the query below it and a caret under the character.
type Error struct {
	Query string // the query string; "" when the error points nowhere
	Pos   int    // byte offset in Query of what is wrong; -1 when it points nowhere
	Kind  string // "syntax error" or "bad value"
	Msg   string // what is wrong
}

// Error returns the message, with the query and a caret when Pos points
// into it.
func (e *Error) Error() string {
	if e.Pos < 0 {
		return "query: " + e.Msg
	}
	col := utf8.RuneCountInString(e.Query[:e.Pos]) + 1
	return fmt.Sprintf("query: %s at character %d: %s\n  %s\n  %s^", e.Kind, col, e.Msg, e.Query, strings.Repeat(" ", col-1))
}

// SyntaxError is an Error of kind "syntax error" at byte pos of s.
func SyntaxError(s string, pos int, msg string) *Error {
	return &Error{Query: s, Pos: pos, Kind: "syntax error", Msg: msg}
}

// BadValue is an Error of kind "bad value" at byte pos of s: a value the
// field does not take.
func BadValue(s string, pos int, msg string) *Error {
	return &Error{Query: s, Pos: pos, Kind: "bad value", Msg: msg}
}

// errorf is an Error that points nowhere.
func errorf(format string, args ...any) *Error {
	return &Error{Pos: -1, Msg: fmt.Sprintf(format, args...)}
}
