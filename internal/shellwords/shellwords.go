package shellwords

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnclosedQuote is what Split returns, wrapped with the quote's
// character ("a ' quote is never closed"), when a quote is opened and
// never closed.
var ErrUnclosedQuote = errors.New("quote is never closed")

// Split splits a command line into words as a shell would: spaces, tabs
// and newlines separate, single quotes keep everything, double quotes keep
// everything but a backslash before " \ $ or `, and a backslash outside
// quotes escapes a space, a tab, a newline, a quote or a backslash. Any
// other backslash is kept, so that a Windows path (C:\tools\less.exe)
// stays whole. No variable, glob or operator is expanded. An empty or blank s
// gives no words (nil) and no error; an unclosed quote gives
// ErrUnclosedQuote.
func Split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
				i++
				w.WriteByte(s[i])
			default:
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s) && strings.IndexByte(" \t\n'\"\\", s[i+1]) >= 0:
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("a %c %w", quote, ErrUnclosedQuote)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
