package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	err := m.Run(ctx, os.Args[1:])
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	case errors.As(err, new(exitStatus)):
		var code exitStatus
		errors.As(err, &code)
		os.Exit(int(code)) // run: the status of the program it ran
	default:
		fmt.Fprintln(os.Stderr, "mcplogd:", err)
		os.Exit(1)
	}
}

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

// Version returns the build's version: the linker's, else the module's, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// errUsage is returned after a usage message was printed.
var errUsage = errors.New("usage")

// Main runs one mcplogd command. Its fields are the process's surroundings,
// so that tests can run commands in-process.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string

	// ready, when set, is called by serve once it listens (tests use it).
	ready func(url string)
}

type command struct {
	name, args, summary string
	run                 func(m *Main, ctx context.Context, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"serve", "[flags]", "run the server (the default command)", (*Main).serve},
		{"stdio", "[--data DIR]", "serve the MCP tools over standard input/output", (*Main).stdio},
		{"status", "[--json]", "list the servers running for this user, and the data directory used here", (*Main).status},
		{"service", "install|uninstall|status", "a per-user service that runs serve at login (systemd, launchd, a scheduled task)", (*Main).service},
		{"link", "[--web] [--data DIR]", "print the MCP link of a data directory (--web: the web page's)", (*Main).link},
		{"token", "[--new] [--data DIR]", "print the access token, or rotate it with --new", (*Main).token},
		{"tail", "[-f] [-n N] [--level L] [--kind K] [--json] ...", "print the newest console lines (stacks and operations marked); -f follows", (*Main).tail},
		{"crashes", "[--since T] [--source S] [--class C] [--json] ...", "list crashes grouped by stack signature: those that ended runs first", (*Main).crashes},
		{"runs", "[--source S] [--limit N] [--all] [--json]", "list each source's runs, oldest first, with how each ended", (*Main).runs},
		{"stats", "[--run R] [--since T] [--source S] [--json]", "what happened in a run: counts, top and new templates, new crash groups", (*Main).stats},
		{"compare", "[--source S] [--run R] [--against R] [--json]", "did my fix work? a run against the one before: new, gone and changed", (*Main).compare},
		{"search", "QUERY [--level L] [--name N] [--source S] [--limit N] [--json]", "search records, newest first", (*Main).search},
		{"reindex", "[--data DIR]", "rebuild the search index from the log (server stopped)", (*Main).reindex},
		{"salvage", "--out NEWDIR [--data DIR]", "copy the readable records of a damaged log.db into a new data directory", (*Main).salvage},
		{"show", "ID [--json]", "print one record in full: header, text, stack frames, data", (*Main).show},
		{"replay", "ID [ID…|FROM..TO] [--yes]", "replay recorded operations against their upstreams; a table of same/differs", (*Main).replay},
		{"run", "[--name N] [--parser P] -- COMMAND ARGS...", "run a game and record its output: a run per launch, its exit status or signal", (*Main).runCommand},
		{"import", "FILE|- [--parser P] [--source S]", "import a game's log, a logger's JSON lines or NDJSON records, once", (*Main).importFile},
		{"bench", "[--quick] [--records N]", "measure ingest, reads, search and memory on this machine", (*Main).bench},
		{"version", "", "print the version", (*Main).printVersion},
	}
}

// Run runs the command named by args[0] ("serve" when args is empty or
// starts with a flag).
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) == 0 || len(args[0]) > 0 && args[0][0] == '-' && args[0] != "-h" && args[0] != "--help" && args[0] != "-help" {
		return m.serve(ctx, args)
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		if len(args) > 1 && args[0] == "help" && slices.ContainsFunc(commands, func(c command) bool { return c.name == args[1] }) {
			return m.Run(ctx, []string{args[1], "--help"}) // "mcplogd help tail"
		}
		m.usage(m.Stdout)
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(m, ctx, args[1:])
		}
	}
	fmt.Fprintf(m.Stderr, "mcplogd: unknown command %q (see mcplogd --help)\n", args[0])
	return errUsage
}

func (m *Main) usage(w io.Writer) {
	fmt.Fprintf(w, "mcplogd %s: a flight recorder for game engines' MCP debug servers.\n\nUsage: mcplogd <command> [flags]\n\n", Version())
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %-50s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "\nEvery command takes --data DIR (default $MCPLOGD_DATA, else ./mcplogd-data when it exists here, else %s) and --help (or: mcplogd help COMMAND).\n", m.defaultData())
}

func (m *Main) printVersion(_ context.Context, args []string) error {
	fs := m.flags("version", "", "Print the version.")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "mcplogd %s (%s %s/%s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// flags returns a flag set whose --help prints the command's usage line,
// summary and flags (parse sends it to standard output, and a flag error,
// one line, to standard error).
func (m *Main) flags(name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() { printUsage(fs.Output(), fs, args, summary) }
	return fs
}

// parse parses args, flags and positional arguments in any order ("show
// 42 --data DIR"; everything after "--" is positional), and checks that
// exactly nargs positional arguments remain (-1: any number); fs.Args()
// returns them.
func (m *Main) parse(fs *flag.FlagSet, args []string, nargs int) error {
	var rest []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, rest = args[:i], args[i+1:]
	}
	var pos []string
	for {
		// "-32600", "-> respawn failed": text, where a flag would be.
		var text []string
		args, text = untilText(fs, args)
		// The flag package prints --help's usage, and an error with the
		// usage, to the set's output: the usage asked for goes to standard
		// output (so that "| less" shows it), an error is one line on
		// standard error.
		var msg bytes.Buffer
		fs.SetOutput(&msg)
		err := fs.Parse(args)
		fs.SetOutput(m.Stderr)
		if errors.Is(err, flag.ErrHelp) {
			_, _ = m.Stdout.Write(msg.Bytes())
			return flag.ErrHelp
		} else if err != nil {
			flagError(m.Stderr, fs, err)
			return errUsage
		}
		args = append(fs.Args(), text...)
		if len(args) == 0 {
			break
		}
		pos, args = append(pos, args[0]), args[1:]
	}
	// Parsing "--" alone sets no flag and leaves pos as fs.Args().
	_ = fs.Parse(append([]string{"--"}, append(pos, rest...)...))
	if nargs >= 0 && fs.NArg() != nargs {
		argsError(m.Stderr, fs, fmt.Sprintf("want %d argument(s), got %d", nargs, fs.NArg()))
		return errUsage
	}
	m.chooseData(fs) // datapath.go
	return nil
}

// untilText splits args before the first that begins with - but is
// text, not a flag (notFlag), nor a flag's value ("--limit -5").
func untilText(fs *flag.FlagSet, args []string) (flags, text []string) {
	for i, a := range args {
		if !notFlag(a) {
			continue
		}
		if i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") {
			if f := fs.Lookup(strings.TrimLeft(args[i-1], "-")); f != nil && !isBool(f) {
				continue // its value
			}
		}
		return args[:i], args[i:]
	}
	return args, nil
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// notFlag reports an argument that begins with - but is no flag's name,
// which begins with a letter: a negative number or text pasted as a
// query ("-32600", "-> respawn failed").
func notFlag(arg string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	if len(name) == len(arg) || name == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(name)
	return !unicode.IsLetter(r)
}

// dataFlag adds --data to fs, defaulting to $MCPLOGD_DATA, else
// ./mcplogd-data when it exists, else the per-user directory (datapath.go).
func (m *Main) dataFlag(fs *flag.FlagSet) *string {
	return fs.String("data", m.defaultData(), dataUsage)
}
