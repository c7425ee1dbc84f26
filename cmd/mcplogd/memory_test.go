package main

import (
	"flag"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// --memory-limit sets the runtime's soft limit: the default, a size, 0 for
// none; GOMEMLIMIT stands when the flag is not given; a bad size is refused
// by name.
func TestMemoryLimit(t *testing.T) {
	was := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(was) })
	apply := func(args ...string) int64 {
		t.Helper()
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		var l memoryLimit
		l.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		l.apply(os.Getenv)
		return debug.SetMemoryLimit(-1)
	}
	t.Setenv("GOMEMLIMIT", "")
	if got := apply(); got != datadir.DefaultMemoryLimit {
		t.Errorf("default: %d, want %d", got, datadir.DefaultMemoryLimit)
	}
	if got := apply("--memory-limit", "300MiB"); got != 300<<20 {
		t.Errorf("300MiB: %d", got)
	}
	if got := apply("--memory-limit", "0"); got != math.MaxInt64 {
		t.Errorf("0: %d, want no limit", got)
	}
	t.Setenv("GOMEMLIMIT", "1GiB") // the runtime read it at start; here it is set by hand
	debug.SetMemoryLimit(1 << 30)
	if got := apply(); got != 1<<30 {
		t.Errorf("GOMEMLIMIT without the flag: %d, want it left at 1GiB", got)
	}
	if got := apply("--memory-limit", "256MiB"); got != 256<<20 {
		t.Errorf("the flag beside GOMEMLIMIT: %d, want 256MiB", got)
	}

	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var l memoryLimit
	l.register(fs)
	if err := fs.Parse([]string{"--memory-limit", "lots"}); err == nil || !strings.Contains(err.Error(), "memory-limit") {
		t.Errorf("a bad size: %v", err)
	}
}

// serve and stdio take the flag.
func TestMemoryLimit_Flags(t *testing.T) {
	s := &server{m: &Main{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}}
	if err := s.ParseFlags([]string{"--memory-limit", "64MiB"}); err != nil {
		t.Fatal(err)
	}
	if c := s.config.memory; !c.set || c.bytes != 64<<20 {
		t.Errorf("serve --memory-limit 64MiB: %+v", c)
	}
	if help := helpOf(t, "stdio"); !strings.Contains(help, "-memory-limit") {
		t.Errorf("stdio's help has no --memory-limit:\n%s", help)
	}
}
