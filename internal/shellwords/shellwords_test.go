package shellwords_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcplogd/mcplogd/internal/shellwords"
)

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		`love game/ --fullscreen`:           {"love", "game/", "--fullscreen"},
		`C:\tools\less.exe -R`:              {`C:\tools\less.exe`, "-R"},
		`"C:\Program Files\x.exe" a\ b`:     {`C:\Program Files\x.exe`, "a b"},
		`godot3-server --path 'My Game' -s`: {"godot3-server", "--path", "My Game", "-s"},
		`a "b \"c\" d" e\ f`:                {"a", `b "c" d`, "e f"},
		`less -R "x y"`:                     {"less", "-R", "x y"},
		"a\tb\nc":                           {"a", "b", "c"},
		`'' ""`:                             {"", ""},
		`x'y'"z"`:                           {"xyz"},
		`'a\b'`:                             {`a\b`},
		"  ":                                nil,
		"":                                  nil,
	} {
		got, err := shellwords.Split(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// An unclosed quote is an error that names the quote (callers print it).
func TestSplit_ErrUnclosedQuote(t *testing.T) {
	for in, want := range map[string]string{
		`love 'game`: "a ' quote is never closed",
		`love "game`: `a " quote is never closed`,
	} {
		words, err := shellwords.Split(in)
		if !errors.Is(err, shellwords.ErrUnclosedQuote) || err.Error() != want || words != nil {
			t.Errorf("Split(%q) = %q, %v; want %q", in, words, err, want)
		}
	}
}
