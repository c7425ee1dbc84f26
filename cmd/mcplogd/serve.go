package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/gateway"
	"github.com/mcplogd/mcplogd/internal/crash"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/metrics"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/otlp"
	"github.com/mcplogd/mcplogd/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (m *Main) serve(ctx context.Context, args []string) error {
	fs := m.flags("serve", "[flags]", "Run the server: open or create the data directory, listen, and print the link.")
	data := m.dataFlag(fs)
	addr := fs.String("addr", "", "listen address host:port; port 0 picks a free one (default: the last one used, else "+datadir.DefaultAddr+")")
	allowRemote := fs.Bool("allow-remote", false, "allow listening on a non-loopback address (the token is then the only protection)")
	maxBody := sizeFlag(fs, "max-body", 1<<20, "largest request body; bigger ones get 413")
	ret := retentionFlags(fs)
	var allowOrigins []string
	fs.Func("allow-origin", "also accept MCP requests from this browser origin, e.g. https://tool.example:8443 (repeatable)", func(s string) error {
		allowOrigins = append(allowOrigins, s)
		return nil
	})
	var upstreams []gateway.Upstream
	fs.Func("upstream", "put mcplogd in front of a game's MCP server: NAME=URL (Streamable HTTP) or NAME=cmd:COMMAND ARGS (stdio); repeatable", func(s string) error {
		u, err := gateway.ParseUpstream(s)
		upstreams = append(upstreams, u)
		return err
	})
	var follows []followSpec
	fs.Func("follow", "follow a game's log file like tail -F: [PARSER:]NAME=PATH, PARSER one of unity, log4j, godot, generic (default: detected); NAME is the records' source; repeatable", func(s string) error {
		f, err := parseFollow(s)
		follows = append(follows, f)
		return err
	})
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	dir, err := datadir.Open(*data)
	if err != nil {
		return err
	}
	token, err := dir.Token()
	if err != nil {
		return err
	}
	commits := metrics.NewCommits() // the store's commits feed GET /metrics
	sopts := ret.storeOptions(logger)
	sopts.OnCommit = commits.OnCommit
	db, err := store.Open(dir.DBPath(), sopts)
	if err != nil {
		return explainOpen(dir, err)
	}
	log := oplog.New(db, nil)
	defer log.Close()
	log.SetCrashes(crash.New(log, &crash.Options{Logger: logger}))
	if err := openIndex(dir, log, db, logger); err != nil {
		return err
	}

	upstreams, err = withConfigUpstreams(dir, upstreams)
	if err != nil {
		return err
	}
	follows, err = withConfigFollows(dir, follows)
	if err != nil {
		return err
	}
	followers, err := startFollowers(log, follows, logger)
	if err != nil {
		return err
	}
	defer closeFollowers(followers, logger)

	saved, _ := dir.Server()
	ln, err := m.listen(*addr, saved.Addr, *allowRemote)
	if err != nil {
		return err
	}
	var gw *gateway.Gateway
	if len(upstreams) > 0 {
		if gw, err = gateway.New(log, upstreams, &gateway.Options{Reserved: mcptools.ToolNames(), Version: Version(), Logger: logger}); err != nil {
			ln.Close()
			return err
		}
		defer gw.Close()
	}
	opts := &api.Options{
		Token: token, MaxBodyBytes: int64(*maxBody), RotateToken: dir.NewToken, AllowOrigins: allowOrigins,
		Options: mcptools.Options{Logger: logger, Version: Version(), FileSize: db.Size, Retention: ret.report(),
			Followers: followerStatus(followers)},
	}
	mo := &metrics.Options{Commits: commits, FileSize: db.Size, Followers: opts.Followers, Logger: logger}
	if gw != nil {
		opts.Gateway, mo.Upstreams = gw, gw.Status
	}
	mtr := metrics.New(log, mo)
	receiver := otlp.New(log, &otlp.Options{MaxBodyBytes: opts.MaxBodyBytes, Logger: logger})
	opts.Routes = []api.Route{
		{Method: http.MethodGet, Path: "/metrics", Handler: mtr.Handler()},
		{Method: http.MethodPost, Path: otlp.Path, Handler: receiver, WriteError: receiver.WriteError},
	}
	opts.ObserveRequest = mtr.ObserveRequest
	opts.Middleware = []mcp.Middleware{mtr.TimeToolCalls}
	srv, err := api.New(log, opts)
	if err != nil {
		ln.Close()
		return err
	}
	bound := ln.Addr().String()
	if err := dir.SaveServer(datadir.Server{Addr: bound, PID: os.Getpid(), Started: time.Now().UTC(), Version: Version()}); err != nil {
		ln.Close()
		return err
	}
	base := "http://" + bound
	link := datadir.Link(base, token)
	st := log.Stats()
	fmt.Fprintf(m.Stdout, "mcplogd %s serving %s (%d records, newest ID %d)\n", Version(), dir.Path, st.Records, st.LastID)
	fmt.Fprintf(m.Stdout, "  link:   %s\n", link)
	fmt.Fprintf(m.Stdout, "  web:    %s/ui/%s\n", base, token)
	fmt.Fprintf(m.Stdout, "  ingest: curl -H 'Authorization: Bearer %s' --data-binary @lines.ndjson %s/api/v1/logs\n", token, base)
	fmt.Fprintf(m.Stdout, "  add it to Claude Code:\n    claude mcp add --transport http mcplogd %s\n", link)
	fmt.Fprintf(m.Stdout, "  or try it with the MCP Inspector (its CLI wants a path ending in /mcp):\n    npx @modelcontextprotocol/inspector --cli %s/mcp --method tools/list\n", link)
	for _, u := range upstreams {
		fmt.Fprintf(m.Stdout, "  upstream: %s\n", u)
	}
	for _, f := range follows {
		fmt.Fprintf(m.Stdout, "  follow:   %s\n", f)
	}
	if m.ready != nil {
		m.ready(base)
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server stopped: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	if gw != nil {
		_ = gw.Close() // calls still running are recorded as cancelled
	}
	closeFollowers(followers, logger) // what they hold is stored before the log closes
	// Shutdown lets running requests finish, and every ingest request waits
	// for its commit, so each acknowledged record is on disk before Close.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("shutdown", "err", err)
	}
	if err := dir.SaveServer(datadir.Server{Addr: bound, Version: Version()}); err != nil {
		logger.Warn("save server state", "err", err)
	}
	return log.Close()
}

// withConfigUpstreams adds the upstreams of DATA/config.json that the
// flags do not name.
func withConfigUpstreams(dir *datadir.Dir, flags []gateway.Upstream) ([]gateway.Upstream, error) {
	cfg, err := dir.Config()
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for _, u := range flags {
		named[u.Name] = true
	}
	out := flags
	for _, name := range slices.Sorted(maps.Keys(cfg.Upstreams)) {
		if named[name] {
			continue
		}
		u, err := gateway.ParseUpstream(name + "=" + cfg.Upstreams[name])
		if err != nil {
			return nil, fmt.Errorf("config.json: %w", err)
		}
		out = append(out, u)
	}
	return out, nil
}

// retention holds the retention flags that serve and stdio share.
type retention struct {
	maxBytes, maxRecords *uint64
	maxAge               *time.Duration
}

func retentionFlags(fs *flag.FlagSet) retention {
	return retention{
		maxBytes:   sizeFlag(fs, "max-bytes", 1<<30, "retention: keep at most this many bytes of records (0: no limit)"),
		maxRecords: fs.Uint64("max-records", 0, "retention: keep at most this many records (0: no limit)"),
		maxAge:     durationFlag(fs, "max-age", 0, "retention: drop records older than this, e.g. 72h or 30d (0: keep)"),
	}
}

func (r retention) storeOptions(logger *slog.Logger) *store.Options {
	return &store.Options{MaxRecords: *r.maxRecords, MaxBytes: *r.maxBytes, MaxAge: *r.maxAge, Logger: logger}
}

func (r retention) report() *mcptools.Retention {
	return &mcptools.Retention{MaxRecords: *r.maxRecords, MaxBytes: *r.maxBytes, MaxAge: *r.maxAge}
}

// listen binds addr; with none given it reuses the saved address so that
// the link stays the same, falling back to a free port if that one is taken.
func (m *Main) listen(addr, saved string, allowRemote bool) (net.Listener, error) {
	explicit := addr != ""
	if !explicit {
		addr = saved
		if addr == "" {
			addr = datadir.DefaultAddr
		}
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w", addr, err)
	}
	if !isLoopback(host) && !allowRemote {
		return nil, fmt.Errorf("--addr %q is not a loopback address; add --allow-remote to listen there (the token is then the only protection)", addr)
	}
	if !isLoopback(host) {
		fmt.Fprintf(m.Stderr, "WARNING: listening on %s: anyone who can reach it and has the token can read and write the log\n", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil && !explicit && errors.Is(err, syscall.EADDRINUSE) {
		fmt.Fprintf(m.Stderr, "mcplogd: %s is taken; using a free port (the link changes)\n", addr)
		ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	return ln, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// explainOpen turns a locked-file error into one that names the running server.
func explainOpen(dir *datadir.Dir, err error) error {
	if !errors.Is(err, store.ErrLocked) {
		return err
	}
	s, _ := dir.Server()
	if s.PID != 0 {
		return fmt.Errorf("another mcplogd (pid %d, %s) is using the data directory %s; stop it or pass a different --data", s.PID, s.BaseURL(), dir.Path)
	}
	return fmt.Errorf("another process is using the data directory %s; stop it or pass a different --data", dir.Path)
}

type sizeValue struct{ n *uint64 }

func sizeFlag(fs *flag.FlagSet, name string, def uint64, usage string) *uint64 {
	n := def
	fs.Var(sizeValue{&n}, name, usage+" (bytes; KB, MB, GB, KiB, MiB, GiB accepted)")
	return &n
}

func (v sizeValue) String() string {
	if v.n == nil {
		return "0"
	}
	return strconv.FormatUint(*v.n, 10)
}

func (v sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err == nil {
		*v.n = n
	}
	return err
}

func parseSize(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := uint64(1)
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("not a size: want a number of bytes such as 1048576, 512KiB or 2GB")
	}
	return uint64(f * float64(mult)), nil
}

type durationValue struct{ d *time.Duration }

func durationFlag(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	d := def
	fs.Var(durationValue{&d}, name, usage)
	return &d
}

func (v durationValue) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

// Set accepts Go durations plus a days suffix ("30d").
func (v durationValue) Set(s string) error {
	if days, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("not a duration: want e.g. 72h or 30d")
		}
		*v.d = time.Duration(n * float64(24*time.Hour))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("not a duration: want e.g. 72h or 30d")
	}
	*v.d = d
	return nil
}
