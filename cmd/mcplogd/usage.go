package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
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
