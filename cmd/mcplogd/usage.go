package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// This file holds how a command's flags are shown to people: --help lists
// them as they are typed (--data, -f), and a mistake is one line that
// points to --help rather than the whole usage.

// dashed is a flag's name as people type it: -f for one letter, --data for
// longer names (the flag package takes either spelling).
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printUsage writes a command's --help: its usage line, summary and
// flags, each flag as typed with its value's kind, its text and a default
// that is not the zero value.
func printUsage(w io.Writer, fs *flag.FlagSet, args, summary string) {
	fmt.Fprintf(w, "Usage: mcplogd %s %s\n\n%s\n\nFlags:\n", fs.Name(), args, summary)
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  " + dashed(f.Name)
		if kind != "" {
			line += " " + kind
		}
		if !isZeroDefault(f) {
			def := f.DefValue
			if reflect.TypeOf(f.Value).String() == "*flag.stringValue" {
				def = fmt.Sprintf("%q", def)
			}
			usage += " (default " + def + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// isZeroDefault reports whether f's default is its type's zero value,
// which --help does not print.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return true
	}
	return false
}

// flagRef matches a flag named in the flag package's errors ("-foo").
var flagRef = regexp.MustCompile(`(^|\s)-([\w][\w-]*)`)

// flagError is the one line that a flag mistake prints: the flag package's
// error with the flag as typed, and where to read more.
func flagError(w io.Writer, fs *flag.FlagSet, err error) {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag " + dashed(name)
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = dashed(name) + " needs a value"
	} else {
		msg = strings.Replace(msg, " for flag -", " for -", 1)
		msg = flagRef.ReplaceAllStringFunc(msg, func(s string) string {
			m := flagRef.FindStringSubmatch(s)
			return m[1] + dashed(m[2])
		})
	}
	fmt.Fprintf(w, "mcplogd %s: %s (see mcplogd %s --help)\n", fs.Name(), msg, fs.Name())
}

// argsError is the one line that wrong positional arguments print.
func argsError(w io.Writer, fs *flag.FlagSet, msg string) {
	fmt.Fprintf(w, "mcplogd %s: %s (see mcplogd %s --help)\n", fs.Name(), msg, fs.Name())
}

// argFlags are the MCP tools' arguments that a CLI flag of another name
// sets.
var argFlags = map[string]string{"confirm": "yes"}

// mcpWords turns the advice of errors worded for MCP clients into the
// CLI's.
var mcpWords = strings.NewReplacer(
	"pass confirm: true", "pass --yes",
	"pass nextCursor as it came", "pass --cursor the cursor a previous page printed",
)

// cliMessage is err's message as the CLI words it: the argument it starts
// with ("cursor: ...") written as the flag of fs that sets it ("--cursor:
// ..."), and MCP's advice as the CLI's. The domain words its errors for
// MCP and HTTP; the CLI translates them here, at its edge.
func cliMessage(fs *flag.FlagSet, err error) string {
	msg := oplog.ErrorMessage(err)
	if arg, rest, ok := strings.Cut(msg, ": "); ok && !strings.ContainsAny(arg, " -") {
		name := arg
		if f, ok := argFlags[arg]; ok {
			name = f
		}
		if fs.Lookup(name) != nil {
			msg = dashed(name) + ": " + rest
		}
	}
	return mcpWords.Replace(msg)
}
