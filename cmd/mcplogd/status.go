package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// statusReport is what `mcplogd status` prints (--json: as is).
type statusReport struct {
	Data     string         `json:"data"`     // the data directory commands use here, absolute
	DataFrom string         `json:"dataFrom"` // what chose it
	Exists   bool           `json:"exists"`   // it holds a log.db
	Servers  []statusServer `json:"servers"`  // the running servers, newest first
}

// statusServer is a running server in the report: its registry entry and
// its games' health as it answers GET /api/v1/info (none when it did not
// answer in time).
type statusServer struct {
	datadir.Entry
	Games []oplog.GameHealth `json:"games,omitempty"`
}

func (m *Main) status(ctx context.Context, args []string) error {
	fs := m.flags("status", "[--json] [--data DIR]",
		"List the mcplogd servers running for this user (data directory, address, pid, since when; from any directory), each with one line per game (its latest run and how it ended, its newest record, its upstream and pending calls), and say which data directory the commands use here and why.")
	data := m.dataFlag(fs)
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	abs, err := filepath.Abs(*data)
	if err != nil {
		return err
	}
	r := statusReport{Data: abs, DataFrom: m.dataFrom(fs)}
	for _, e := range m.runningServers(ctx) {
		r.Servers = append(r.Servers, statusServer{Entry: e})
	}
	_, err = os.Stat(filepath.Join(abs, "log.db"))
	r.Exists = err == nil
	if r.Exists && !r.has(abs) {
		// A server the registry does not know (it could not write there,
		// or an mcplogd before the registry) is still this directory's.
		dir := &datadir.Dir{Path: abs}
		if serverOf(ctx, dir) != nil {
			s, _ := dir.Server()
			r.Servers = append(r.Servers, statusServer{Entry: datadir.Entry{Dir: abs, Addr: s.Addr, PID: s.PID, Started: s.Started}})
		}
	}
	for i := range r.Servers {
		r.Servers[i].Games = serverGames(ctx, r.Servers[i].Entry)
	}
	if *asJSON {
		if r.Servers == nil {
			r.Servers = []statusServer{}
		}
		return json.NewEncoder(m.Stdout).Encode(r)
	}
	m.printStatus(r)
	return nil
}

// serverGames asks the server of e for its games' health: nil when it
// does not answer within two seconds.
func serverGames(ctx context.Context, e datadir.Entry) []oplog.GameHealth {
	token, err := (&datadir.Dir{Path: e.Dir}).Token()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	a, err := client.NewClient(datadir.Server{Addr: e.Addr}.BaseURL(), token).Info(ctx)
	if err != nil {
		return nil
	}
	return a.Games
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
	now := time.Now()
	for _, e := range r.Servers {
		since := "?"
		if !e.Started.IsZero() {
			since = e.Started.Local().Format(time.DateTime) + " (" + time.Since(e.Started).Round(time.Second).String() + " ago)"
		}
		fmt.Fprintf(w, "  %s  http://%s  pid %d  since %s\n", e.Dir, e.Addr, e.PID, since)
		for i := range e.Games {
			fmt.Fprintf(w, "    %s\n", mcptools.GameText(&e.Games[i], now))
		}
	}
}
