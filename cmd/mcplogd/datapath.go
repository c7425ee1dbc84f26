package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// This file chooses the data directory a command uses when --data does
// not name one, and finds the servers running for this user: one store
// per user by default, reached from any working directory.

// dataUsage is --data's help.
const dataUsage = "data directory (env MCPLOGD_DATA; default ./" + datadir.Default + " when it exists here, else the per-user directory)"

// defaultData is --data's default: $MCPLOGD_DATA, else ./mcplogd-data when
// it exists in the working directory, else the per-user directory
// (datadir.UserDir), else (no home in the environment) ./mcplogd-data.
func (m *Main) defaultData() string {
	if d := m.Getenv("MCPLOGD_DATA"); d != "" {
		return d
	}
	if isDir(datadir.Default) {
		return datadir.Default
	}
	if d, err := datadir.UserDir(m.Getenv); err == nil {
		return d
	}
	return datadir.Default
}

// implicitData reports whether nothing chose the data directory: no
// MCPLOGD_DATA, no ./mcplogd-data here, and a per-user directory.
func (m *Main) implicitData() bool {
	if m.Getenv("MCPLOGD_DATA") != "" || isDir(datadir.Default) {
		return false
	}
	_, err := datadir.UserDir(m.Getenv)
	return err == nil
}

// readsServer names the commands that read a store through its server
// and may therefore follow a running server from any directory.
var readsServer = map[string]bool{"tail": true, "search": true, "crashes": true, "runs": true, "stats": true, "compare": true, "show": true, "link": true, "token": true, "replay": true}

// chooseData runs after a command's flags are parsed. For a command that
// reads through a server, when nothing chose the data directory (no
// --data, no MCPLOGD_DATA, no ./mcplogd-data here) and the per-user
// directory's server does not run, it points --data at the running server
// started last, and says so on standard error; with several running it
// says which it used, and that mcplogd status lists them.
func (m *Main) chooseData(fs *flag.FlagSet) {
	f := fs.Lookup("data")
	if f == nil || !readsServer[fs.Name()] || !m.implicitData() {
		return
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "data" })
	if given {
		return
	}
	live := m.runningServers(context.Background())
	if len(live) == 0 {
		return
	}
	def := f.Value.String()
	others := fmt.Sprintf("; %d servers run (mcplogd status lists them; --data picks one)", len(live))
	for _, e := range live {
		if e.Dir == def {
			if len(live) > 1 {
				fmt.Fprintf(m.Stderr, "mcplogd: using the server of %s (the per-user store, pid %d)%s\n", e.Dir, e.PID, others)
			}
			return
		}
	}
	use := live[0]
	if len(live) == 1 {
		others = " (--data picks another)"
	}
	_ = fs.Set("data", use.Dir)
	fmt.Fprintf(m.Stderr, "mcplogd: no server runs for the per-user store %s; using the server of %s (pid %d, %s)%s\n", def, use.Dir, use.PID, use.Addr, others)
}

// registry is this user's registry of running servers; ok is false when
// the environment names no home (the in-process tests' Main).
func (m *Main) registry() (datadir.Registry, bool) {
	r, err := datadir.UserRegistry(m.Getenv)
	return r, err == nil
}

// runningServers returns the registered servers that answer, the newest
// started first, and forgets the entries of those that are gone: a data
// directory whose server stopped (or was replaced, or was killed and
// nothing listens at its address). A server that does not answer in time
// keeps its entry but is not returned.
func (m *Main) runningServers(ctx context.Context) []datadir.Entry {
	reg, ok := m.registry()
	if !ok {
		return nil
	}
	entries, err := reg.Entries()
	if err != nil {
		return nil
	}
	var live []datadir.Entry
	for _, e := range entries {
		switch serverState(ctx, e) {
		case serverAnswers:
			live = append(live, e)
		case serverGone:
			_ = reg.Remove(e.Dir, e.PID)
		}
	}
	return live
}

// How a registered server fares when asked.
const (
	serverAnswers = iota
	serverGone
	serverSilent // listening, not answering in time: kept, not used
)

// serverState asks the server of a registry entry.
func serverState(ctx context.Context, e datadir.Entry) int {
	dir := &datadir.Dir{Path: e.Dir}
	s, err := dir.Server()
	if err != nil || s.PID != e.PID || s.Addr == "" {
		return serverGone // stopped cleanly (pid 0), replaced, or its directory went away
	}
	if _, err := os.Stat(dir.DBPath()); err != nil {
		return serverGone
	}
	token, err := dir.Token()
	if err != nil {
		return serverGone
	}
	if runningServer(ctx, dir, token) != nil {
		return serverAnswers
	}
	conn, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err == nil {
		conn.Close()
		return serverSilent
	}
	var nerr net.Error
	if errors.As(err, &nerr) && nerr.Timeout() {
		return serverSilent
	}
	return serverGone // refused: nothing listens there (a kill -9)
}
