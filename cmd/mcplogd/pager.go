package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/mcplogd/mcplogd/internal/shellwords"
)

// This file holds what the reading commands (tail, search, crashes, runs,
// show) share about their output, as journalctl and gh do it: --json or
// -o json for programs, and long output through a pager on a terminal.

// output is the output flags of a reading command.
type output struct {
	json    bool // --json or -o json
	noPager bool // --no-pager
}

// outputVars adds --json (with jsonUsage), -o and --no-pager to fs.
func outputVars(fs *flag.FlagSet, jsonUsage string) *output {
	o := &output{}
	fs.BoolVar(&o.json, "json", false, jsonUsage)
	fs.Var(formatValue{&o.json}, "o", "output `format`: short (the default, for people) or json (as --json)")
	fs.BoolVar(&o.noPager, "no-pager", false, "do not send the output through a pager on a terminal ($MCPLOGD_PAGER, else $PAGER, else less -R)")
	return o
}

// formatValue is -o: "json" sets --json, "short" clears it.
type formatValue struct{ json *bool }

func (v formatValue) String() string {
	if v.json != nil && *v.json {
		return "json"
	}
	return ""
}

func (v formatValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "json":
		*v.json = true
	case "short", "text":
		*v.json = false
	default:
		return errors.New("want short or json")
	}
	return nil
}

// pagerCommand is the pager to run, from $MCPLOGD_PAGER, else $PAGER, else
// less -R, split into words as a shell would split it (git hands $PAGER to
// sh: quotes keep a path with spaces or an argument one word) but run
// without a shell; nil when it is "cat", cannot be found or cannot be read
// (an unclosed quote, said on standard error).
func (m *Main) pagerCommand() []string {
	spec := m.Getenv("MCPLOGD_PAGER")
	if strings.TrimSpace(spec) == "" {
		spec = m.Getenv("PAGER")
	}
	if strings.TrimSpace(spec) == "" {
		spec = "less -R"
	}
	args, err := shellwords.Split(spec)
	if err != nil {
		fmt.Fprintf(m.Stderr, "mcplogd: pager %q: %v; printing without it\n", spec, err)
		return nil
	}
	if len(args) == 0 || args[0] == "cat" {
		return nil
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		return nil
	}
	return args
}

// page returns where a reading command writes its output, the paint for it
// (decided by the terminal, not by the pager's pipe) and a function that
// waits for the pager. When standard output is a terminal and noPager is
// false, the output goes through the pager, with LESS=FRX (quit when it
// fits one screen, keep colours, leave the screen as it is) unless LESS is
// set; piped output never does.
func (m *Main) page(noPager bool) (w io.Writer, p paint, wait func()) {
	p = m.paintFor(m.Stdout)
	f, ok := m.Stdout.(*os.File)
	if noPager || !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return m.Stdout, p, func() {}
	}
	args := m.pagerCommand()
	if args == nil {
		return m.Stdout, p, func() {}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = f, m.Stderr
	cmd.Env = os.Environ()
	if m.Getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if m.Getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	in, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintf(m.Stderr, "mcplogd: pager %s: %v; printing without it\n", args[0], err)
		return m.Stdout, p, func() {}
	}
	return pagerInput{in}, p, func() {
		_ = in.Close()
		_ = cmd.Wait()
	}
}

// paged runs print on the output page gives (through the pager or not),
// buffered, and flushes it before the pager is waited for.
func (m *Main) paged(noPager bool, print func(w io.Writer, p paint) error) error {
	pw, p, wait := m.page(noPager)
	defer wait()
	w := bufio.NewWriter(pw)
	defer w.Flush()
	return print(w, p)
}

// pagerInput is the pager's standard input. Once a person quits the pager
// the rest of the output has nowhere to go, which is not an error.
type pagerInput struct{ w io.Writer }

func (p pagerInput) Write(b []byte) (int, error) {
	_, _ = p.w.Write(b)
	return len(b), nil
}
