package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpOf runs "mcplogd NAME --help" in-process and returns its standard
// output; it fails the test unless the usage went to standard output alone
// and the command ended as a successful --help does (exit status 0).
func helpOf(t *testing.T, name string) string {
	t.Helper()
	var out, errOut syncBuffer
	err := newMain(&out, &errOut, t.TempDir()).Run(context.Background(), []string{name, "--help"})
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("%s --help: %v (an error: exit status 1 or 2)", name, err)
	}
	if errOut.String() != "" {
		t.Fatalf("%s --help wrote to standard error:\n%s", name, errOut.String())
	}
	if !strings.Contains(out.String(), "Usage: mcplogd "+name) {
		t.Fatalf("%s --help: no usage on standard output:\n%s", name, out.String())
	}
	return out.String()
}

// TestHelp_Stdout: every command's --help, and "help COMMAND", print the
// usage on standard output and succeed, so that "mcplogd tail --help | less"
// shows it; a flag error still goes to standard error.
func TestHelp_Stdout(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) { helpOf(t, c.name) })
	}
	var out, errOut syncBuffer
	if err := newMain(&out, &errOut, t.TempDir()).Run(context.Background(), []string{"help", "search"}); err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("help search: %v", err)
	}
	if !strings.Contains(out.String(), "Usage: mcplogd search") {
		t.Fatalf("help search: %q", out.String())
	}
	out, errOut = syncBuffer{}, syncBuffer{}
	err := newMain(&out, &errOut, t.TempDir()).Run(context.Background(), []string{"tail", "--frobnicate"})
	if !errors.Is(err, errUsage) || out.String() != "" || !strings.Contains(errOut.String(), "-frobnicate") {
		t.Fatalf("tail --frobnicate: %v, stdout %q, stderr %q; want a usage error on standard error", err, out.String(), errOut.String())
	}
}

// flagNames lists the flags a command's --help names.
func flagNames(help string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  --?(\w[\w-]*)`).FindAllStringSubmatch(help, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestCLIDoc_Table: docs/cli.md's table has a row for every command, and
// each row (serve's with the list of its flags below the table) names
// every flag of its command (-f for one letter, --name for longer ones),
// so the table cannot fall behind the code.
func TestCLIDoc_Table(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	rows := map[string]string{}
	for line := range strings.SplitSeq(doc, "\n") {
		if m := regexp.MustCompile("^\\| `mcplogd (\\w+)").FindStringSubmatch(line); m != nil {
			rows[m[1]] = line
		}
	}
	if _, list, ok := strings.Cut(doc, "`serve`'s flags:"); ok {
		list, _, _ = strings.Cut(list, "\n## ")
		rows["serve"] += list
	}
	for _, c := range commands {
		row, ok := rows[c.name]
		if !ok {
			t.Errorf("docs/cli.md's table has no row for %q", c.name)
			continue
		}
		for _, f := range flagNames(helpOf(t, c.name)) {
			want := "--" + f
			if len(f) == 1 {
				want = "-" + f
			}
			if f == "data" { // every command's; the sentence under the table says so
				continue
			}
			if !regexp.MustCompile(regexp.QuoteMeta(want) + `\b`).MatchString(row) {
				t.Errorf("docs/cli.md's row for %s does not name %s", c.name, want)
			}
		}
	}
	if names := flagNames(helpOf(t, "tail")); !slices.Contains(names, "kind") {
		t.Fatalf("the flag reader missed tail --kind: %q", names)
	}
}
