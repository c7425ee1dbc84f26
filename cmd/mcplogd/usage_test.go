package main

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUsage_LongFlags: every command's --help names its flags as they are
// typed, --data and -f, never the flag package's -data.
func TestUsage_LongFlags(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			help := helpOf(t, c.name)
			if c.name != "version" && c.name != "bench" && !strings.Contains(help, "\n  --data string\n") {
				t.Errorf("%s --help does not list --data:\n%s", c.name, help)
			}
			if m := regexp.MustCompile(`(?m)^  -\w\w+`).FindString(help); m != "" {
				t.Errorf("%s --help lists a long flag with one dash, %q:\n%s", c.name, m, help)
			}
		})
	}
	if help := helpOf(t, "tail"); !strings.Contains(help, "\n  -f\n") || !strings.Contains(help, "\n  -n int\n") {
		t.Errorf("tail --help: one-letter flags not listed as -f and -n:\n%s", help)
	}
}

// TestUsage_WrongFlag: a wrong flag or argument prints one line on
// standard error, naming the flag as typed and pointing to --help, and
// nothing on standard output (exit status 2); single-dash spellings of
// long flags keep working.
func TestUsage_WrongFlag(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tail", "--foo"}, "mcplogd tail: unknown flag --foo (see mcplogd tail --help)\n"},
		{[]string{"tail", "-x"}, "mcplogd tail: unknown flag -x (see mcplogd tail --help)\n"},
		{[]string{"search", "--limit"}, "mcplogd search: --limit needs a value (see mcplogd search --help)\n"},
		{[]string{"runs", "--limit", "many"}, "mcplogd runs: invalid value \"many\" for --limit: parse error (see mcplogd runs --help)\n"},
		{[]string{"show"}, "mcplogd show: want 1 argument(s), got 0 (see mcplogd show --help)\n"},
		{[]string{"replay"}, "mcplogd replay: no record ID; give one or more, or FROM..TO (see mcplogd replay --help)\n"},
		{[]string{"frobnicate"}, "mcplogd: unknown command \"frobnicate\" (see mcplogd --help)\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut syncBuffer
			err := newMain(&out, &errOut, data).Run(context.Background(), tc.args)
			if !errors.Is(err, errUsage) || out.String() != "" || errOut.String() != tc.want {
				t.Fatalf("err %v, stdout %q, stderr %q; want errUsage and stderr %q", err, out.String(), errOut.String(), tc.want)
			}
		})
	}
	if _, err := run(t, data, "link", "-data", data, "-create"); err != nil {
		t.Fatalf("link -data DIR -create (single dashes): %v", err)
	}
}
