package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// statusReport is what `mcplogd status` prints (--json: as is).
type statusReport struct {
	Data     string          `json:"data"`     // the data directory commands use here, absolute
	DataFrom string          `json:"dataFrom"` // what chose it
	Exists   bool            `json:"exists"`   // it holds a log.db
	Servers  []datadir.Entry `json:"servers"`  // the running servers, newest first
}

func (m *Main) status(ctx context.Context, args []string) error {
	fs := m.flags("status", "[--json] [--data DIR]",
		"List the mcplogd servers running for this user (data directory, address, pid, since when; from any directory) and say which data directory the commands use here and why.")
	data := m.dataFlag(fs)
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	abs, err := filepath.Abs(*data)
	if err != nil {
		return err
	}
	r := statusReport{Data: abs, DataFrom: m.dataFrom(fs), Servers: m.runningServers(ctx)}
	_, err = os.Stat(filepath.Join(abs, "log.db"))
	r.Exists = err == nil
	if r.Exists && !r.has(abs) {
		// A server the registry does not know (it could not write there,
		// or an mcplogd before the registry) is still this directory's.
		dir := &datadir.Dir{Path: abs}
		if serverOf(ctx, dir) != nil {
			s, _ := dir.Server()
			r.Servers = append(r.Servers, datadir.Entry{Dir: abs, Addr: s.Addr, PID: s.PID, Started: s.Started})
		}
	}
	if *asJSON {
		if r.Servers == nil {
			r.Servers = []datadir.Entry{}
		}
		return json.NewEncoder(m.Stdout).Encode(r)
	}
	m.printStatus(r)
	return nil
}

// has reports whether a server of dir is in the report.
func (r statusReport) has(dir string) bool {
	for _, e := range r.Servers {
		if e.Dir == dir {
			return true
		}
	}
	return false
}

// dataFrom says what chose the data directory of fs's --data.
func (m *Main) dataFrom(fs *flag.FlagSet) string {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "data" })
	switch {
	case given:
		return "--data"
	case m.Getenv("MCPLOGD_DATA") != "":
		return "MCPLOGD_DATA"
	case isDir(datadir.Default):
		return "./" + datadir.Default + " here"
	}
	return "the per-user default"
}

func (m *Main) printStatus(r statusReport) {
	w := m.Stdout
	state := "no server runs for it"
	switch {
	case !r.Exists:
		state = "it does not exist yet: " + datadir.HowToMake(r.Data)
	case r.has(r.Data):
		state = "its server runs"
	}
	fmt.Fprintf(w, "data directory here: %s (%s); %s\n", r.Data, r.DataFrom, state)
	if len(r.Servers) == 0 {
		fmt.Fprintln(w, "no mcplogd server runs for this user (mcplogd serve starts one; mcplogd service install starts one at every login)")
		return
	}
	fmt.Fprintf(w, "running servers (%d, the newest first):\n", len(r.Servers))
	for _, e := range r.Servers {
		since := "?"
		if !e.Started.IsZero() {
			since = e.Started.Local().Format(time.DateTime) + " (" + time.Since(e.Started).Round(time.Second).String() + " ago)"
		}
		fmt.Fprintf(w, "  %s  http://%s  pid %d  since %s\n", e.Dir, e.Addr, e.PID, since)
	}
}
