// Command mcplogd is the flight recorder for game engines' MCP debug
// servers: it stores every console line and tool call durably and serves
// them back. Run "mcplogd help" for the subcommands.
//
// # Commands
//
// "mcplogd serve" (the default command) opens or creates a data directory,
// listens on 127.0.0.1, and serves the HTTP API, the MCP server, the web
// page and /metrics over one log; with --upstream it stands in front of a
// game's MCP server and records every call it forwards, with --follow it
// reads a game's log file like tail -F. "mcplogd stdio" serves the same MCP
// tools over standard input and output for clients that launch a command,
// through the data directory's server, which it starts in the background
// when none runs (recorder.go) so that recording outlives the agent.
// "mcplogd service" installs a per-user service that keeps a server
// running (service.go), "mcplogd status" lists the running ones. The other
// commands (tail, search, crashes, show, import, replay, link, token,
// reindex, bench, version) read or write a data directory from a shell.
//
// # Which data directory
//
// --data, else $MCPLOGD_DATA, else ./mcplogd-data when it exists here,
// else the per-user directory (datadir.UserDir). Each serve registers in
// the per-user registry of running servers (datadir.Registry), so that a
// reading command run anywhere, with nothing choosing its directory, finds
// a running server (datapath.go).
//
// # One process per data directory
//
// bbolt lets one process hold the data file. A command run beside a server
// therefore goes through the server over HTTP, with the data directory's
// token; without a server it opens the store itself and lets go of it when
// it ends. open.go is that one way in: openLog opens the store, the log and
// its crash and search indexes in this process, runningServer finds the
// server that holds them, and connect chooses between the two.
//
// # Shape
//
// main builds a Main from the process's surroundings (standard streams,
// environment) and calls Main.Run, which dispatches on the first argument,
// so that tests run every command in-process. serve is a server with
// ParseFlags (flags into a config), Run (wiring only: open, listen, start,
// print the link) and Close (the shutdown order that keeps each
// acknowledged record: gateway, followers, HTTP, the saved server state,
// the log).
//
//	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
//	err := m.Run(ctx, []string{"tail", "-n", "50", "--level", "error"})
//
// # Output for people and for programs
//
// On a terminal the commands print in colour (term.go: levels, statuses,
// matched words, file:line); piped, with NO_COLOR set or TERM=dumb they
// print plain text, and --json (or -o json) prints JSON for programs. No
// JSON mcplogd writes escapes HTML (< stays <, not \u003c). On a terminal
// the reading commands' output goes through a pager (pager.go:
// $MCPLOGD_PAGER, else $PAGER, else less -R with LESS=FRX), never when
// piped or following. --help goes to standard output, its flags written as
// typed (--data, -f; usage.go); a wrong flag or argument is one line on
// standard error that points to --help. Errors the domain words for MCP
// clients name the CLI's flags instead (cliMessage).
//
// Exit status: 0 on success and after --help, 2 after a usage error, 1
// after any other error, printed as "mcplogd: ..." on standard error.
package main
