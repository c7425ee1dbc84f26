package main

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestMain_PagerCommand: $PAGER is split into words as a shell would
// split it, quotes and all, as `mcplogd run` and the gateway's cmd: split
// theirs; an unclosed quote prints without a pager and says why.
func TestMain_PagerCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, pager string
		want        []string
	}{
		{"Quotes", `less -R "x y"`, []string{"less", "-R", "x y"}},
		{"PathWithSpaces", `'` + exe + `' -R 'x y' a\ b`, []string{exe, "-R", "x y", "a b"}},
		{"Cat", "cat", nil},
		{"ErrUnclosedQuote", `less -R "x y`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want != nil {
				if _, err := exec.LookPath(c.want[0]); err != nil {
					t.Skipf("%s is not installed: %v", c.want[0], err)
				}
			}
			var stderr bytes.Buffer
			m := &Main{Stderr: &stderr, Getenv: func(k string) string {
				return map[string]string{"PAGER": c.pager}[k]
			}}
			if got := m.pagerCommand(); !slices.Equal(got, c.want) {
				t.Errorf("PAGER=%s: the pager runs as %q; want %q", c.pager, got, c.want)
			}
			if quoted := strings.Contains(stderr.String(), "quote is never closed"); quoted != (c.name == "ErrUnclosedQuote") {
				t.Errorf("PAGER=%s: standard error %q", c.pager, stderr.String())
			}
		})
	}
}
