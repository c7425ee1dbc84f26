package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/follow"
	"github.com/mcplogd/mcplogd/gateway"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/metrics"
	"github.com/mcplogd/mcplogd/otlp"
	"github.com/mcplogd/mcplogd/store"
)

// serve runs the server until ctx ends (an interrupt) or it fails.
func (m *Main) serve(ctx context.Context, args []string) error {
	s := &server{m: m}
	if err := s.ParseFlags(args); err != nil {
		return err
	}
	if err := s.Run(ctx); err != nil {
		_ = s.Close()
		return err
	}
	select {
	case err := <-s.errc:
		_ = s.Close()
		return fmt.Errorf("server stopped: %w", err)
	case <-ctx.Done():
	}
	s.logger.Info("shutting down")
	return s.Close()
}

// serveConfig is what serve's flags ask for.
type serveConfig struct {
	data, addr   string
	allowRemote  bool
	logLevel     slog.Level
	maxBody      uint64
	ret          retention
	allowOrigins []string
	upstreams    []gateway.Upstream
	follows      []followSpec
	runs         []runSpec
	games        map[string][]string // games.go
	studio       studioFlags
	limits       serveLimits // limits.go
	memory       memoryLimit // memory.go
	compat       string
}

// server is one run of `mcplogd serve`, in the shape of a program's Main:
// ParseFlags reads the flags, Run opens the data directory and starts
// serving, Close stops everything in the order that keeps every
// acknowledged record.
type server struct {
	m      *Main
	config serveConfig
	logger *slog.Logger

	dir       *datadir.Dir
	token     string
	log       *opened
	followers []follower
	runners   *runners
	gw        *gateway.Gateway // nil without upstreams
	studio    studioLink
	ln        net.Listener
	http      *api.Server
	errc      chan error // set once serving: where Serve's end arrives
	bound     string     // the address saved as the running server's
	// registered is the user's registry of running servers, once this
	// one is in it (nil: not registered).
	registered *datadir.Registry
	// saveStop and saveDone run saveServer's retries on a full disk (nil:
	// none).
	saveStop, saveDone chan struct{}
}

// ParseFlags reads serve's command line into s.config.
func (s *server) ParseFlags(args []string) error {
	c := &s.config
	fs := s.m.flags("serve", "[flags]", "Run the server: open or create the data directory, listen, and print the link.")
	data := s.m.dataFlag(fs)
	fs.StringVar(&c.addr, "addr", "", "listen address host:port; port 0 picks a free one (default: the last one used, else "+datadir.DefaultAddr+")")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "allow listening on a non-loopback address (the token is then the only protection)")
	c.logLevel = slog.LevelWarn
	fs.Func("log-level", "what the server logs to standard error: debug, info (a line per MCP session and request), warn or error (default warn)", func(v string) error {
		return c.logLevel.UnmarshalText([]byte(v))
	})
	sizeVar(fs, &c.maxBody, "max-body", 1<<20, "largest request body; bigger ones get 413")
	c.ret.register(fs)
	c.limits.register(fs)
	c.memory.register(fs)
	fs.Func("allow-origin", "also accept MCP requests from this browser origin, e.g. https://tool.example:8443 (repeatable)", func(v string) error {
		c.allowOrigins = append(c.allowOrigins, v)
		return nil
	})
	fs.Func("upstream", "put mcplogd in front of a game's MCP server: NAME=URL (Streamable HTTP) or NAME=cmd:COMMAND ARGS (stdio); repeatable", func(v string) error {
		u, err := gateway.ParseUpstream(v)
		c.upstreams = append(c.upstreams, u)
		return err
	})
	fs.Func("follow", "follow a game's log file like tail -F: [PARSER:]NAME=PATH, PARSER one of "+follow.ParserNames+" (default: detected); NAME is the records' source; PATH auto[:PROJECT_DIR] finds the engine's usual log (unity, godot, log4j, unreal, luanti; Unity's Player when NAME has \"player\", Minecraft's crash-reports/ when NAME has \"crash\"); a PATH ending in / follows each file of the directory once (mccrash: crash-*.txt); repeatable", func(v string) error {
		f, err := parseFollow(v)
		c.follows = append(c.follows, f)
		return err
	})
	fs.Func("run", "run a game and record its output, as mcplogd run does: [PARSER:]NAME=COMMAND ARGS (stopped with the server); repeatable", func(v string) error {
		r, err := parseRun(v)
		c.runs = append(c.runs, r)
		return err
	})
	gameFlag(fs, c)
	c.studio.register(fs)
	compatFlag(fs, &c.compat)
	if err := s.m.parse(fs, args, 0); err != nil {
		return err
	}
	c.data = *data
	return nil
}

// Run wires the server and starts it: the log and its indexes, the log
// files followed, the listener, the gateway, the HTTP API; then it saves the
// address and prints the link. On an error Close releases what was opened.
func (s *server) Run(ctx context.Context) (err error) {
	c := &s.config
	s.logger = slog.New(slog.NewTextHandler(s.m.Stderr, &slog.HandlerOptions{Level: c.logLevel}))
	c.memory.apply(s.m.Getenv)
	if s.dir, s.token, err = openDir(c.data); err != nil {
		return err
	}
	started := s.dir.Starting()     // until server.json says where it listens
	defer started()                 // a start that failed
	commits := metrics.NewCommits() // the store's commits feed GET /metrics
	sopts := c.ret.storeOptions(s.logger)
	sopts.OnCommit = commits.OnCommit
	if err := s.studio.prepare(&c.studio, s.dir, sopts, s.logger); err != nil {
		return err
	}
	if s.log, err = openLog(s.dir, openOptions{Store: sopts, Logger: s.logger, Search: true, Crashes: true}); err != nil {
		return err
	}
	if err := c.withConfig(s.dir); err != nil {
		return err
	}
	if err := s.log.log.SetGames(c.games); err != nil {
		return fmt.Errorf("--game: %w", err)
	}
	c.ownRuns(s.log.log)
	if err := s.studio.start(s.log.log); err != nil {
		return err
	}
	if err := c.limits.expire(s.log.log, c, s); err != nil {
		return err
	}
	if s.followers, err = startFollowers(s.log.log, c.follows, s.logger); err != nil {
		return err
	}
	saved, _ := s.dir.Server()
	if s.ln, err = s.m.listen(c.addr, saved.Addr, c.allowRemote); err != nil {
		return err
	}
	opts := &api.Options{
		Token: s.token, MaxBodyBytes: int64(c.maxBody), RotateToken: s.dir.NewToken, AllowOrigins: c.allowOrigins, Limits: c.limits.api(),
		Options: mcptools.Options{Logger: s.logger, Version: Version(), FileSize: s.log.db.Size, FileFree: s.log.db.FreeBytes, Retention: c.ret.report(),
			Followers: followerStatus(s.followers), Studio: s.studio.status(), Compat: c.compat},
	}
	if s.studio.on { // the tools' scope "studio" reads the studio it forwards to
		if opts.StudioScope, err = newStudioClient(studioSettings{URL: s.studio.opts.URL, Project: s.studio.opts.Project}); err != nil {
			return err
		}
	}
	mo := &metrics.Options{Commits: commits, FileSize: s.log.db.Size, Followers: opts.Followers, Studio: opts.Studio, Logger: s.logger}
	if len(c.upstreams) > 0 {
		gopts := &gateway.Options{Reserved: mcptools.ToolNames(), Version: Version(), Logger: s.logger,
			Runs: s.startProcess}
		if s.gw, err = gateway.New(s.log.log, c.upstreams, gopts); err != nil {
			return err
		}
		opts.Gateway, mo.Upstreams = s.gw, s.gw.Status
	}
	s.mount(opts, metrics.New(s.log.log, mo))
	if s.http, err = api.New(s.log.log, opts); err != nil {
		return err
	}
	bound := s.ln.Addr().String()
	if err := s.saveServer(bound); err != nil { // diskfull.go: a full disk too
		return err
	}
	started()
	s.bound = bound
	s.register()
	s.printLinks("http://" + bound)
	if s.m.ready != nil {
		s.m.ready("http://" + bound)
	}
	s.errc = make(chan error, 1)
	go func() { s.errc <- s.http.Serve(s.ln) }()
	s.runners = startRuns(s.log.log, c.runs, s.m.Stdout, s.logger)
	return nil
}

// register adds this server to the user's registry of running servers,
// so that the CLI finds it from any directory; a user without a home in
// the environment, or a registry it cannot write, only loses that.
func (s *server) register() {
	reg, ok := s.m.registry()
	if !ok {
		return
	}
	e := datadir.Entry{Dir: s.dir.Path, Addr: s.bound, PID: os.Getpid(), Started: time.Now().UTC()}
	if err := reg.Add(e); err != nil {
		s.logger.Warn("the CLI of other directories will not find this server", "err", err)
		return
	}
	s.registered = &reg
}

// mount adds GET /metrics and OTLP's POST /v1/logs to the API, and the
// metrics' request and tool-call timing.
func (s *server) mount(opts *api.Options, mtr *metrics.Metrics) {
	receiver := otlp.New(s.log.log, &otlp.Options{MaxBodyBytes: opts.MaxBodyBytes, Logger: s.logger})
	opts.Routes = []api.Route{
		{Method: http.MethodGet, Path: "/metrics", Handler: mtr.Handler()},
		{Method: http.MethodPost, Path: otlp.Path, Handler: receiver, WriteError: receiver.WriteError},
	}
	opts.ObserveRequest = mtr.ObserveRequest
	opts.Middleware = []mcp.Middleware{mtr.TimeToolCalls}
}

// printLinks prints where the server is and how to reach it.
func (s *server) printLinks(base string) {
	w, token := s.m.Stdout, s.token
	link := datadir.Link(base, token)
	st := s.log.log.Stats()
	fmt.Fprintf(w, "mcplogd %s serving %s (%d records, newest ID %d)\n", Version(), s.dir.Path, st.Records, st.LastID)
	fmt.Fprintf(w, "  link:   %s\n", link)
	fmt.Fprintf(w, "  web:    %s/ui/%s\n", base, token)
	fmt.Fprintf(w, "  ingest: curl -H 'Authorization: Bearer %s' --data-binary @lines.ndjson %s/api/v1/logs\n", token, base)
	fmt.Fprintf(w, "  add it to Claude Code:\n    claude mcp add --transport http mcplogd %s\n", link)
	fmt.Fprintf(w, "  or try it with the MCP Inspector (its CLI wants a path ending in /mcp):\n    npx @modelcontextprotocol/inspector --cli %s/mcp --method tools/list\n", link)
	for _, u := range s.config.upstreams {
		fmt.Fprintf(w, "  upstream: %s\n", u)
	}
	for _, f := range s.config.follows {
		fmt.Fprintf(w, "  follow:   %s\n", f)
		if note := f.waiting(); note != "" {
			fmt.Fprintf(w, "            %s\n", note)
		}
	}
	for _, r := range s.config.runs {
		fmt.Fprintf(w, "  run:      %s\n", r)
	}
	if d := s.studio.describe(); d != "" {
		fmt.Fprintf(w, "  studio:   %s\n", d)
	}
}

// Close stops the server in the order that keeps every acknowledged
// record: the gateway first (calls still running are recorded as
// cancelled), then the followers (what they hold is stored), then the HTTP
// server (running requests finish, and every ingest request waits for its
// commit), and the log last. It returns the log's Close error.
func (s *server) Close() error {
	if s.gw != nil {
		_ = s.gw.Close()
	}
	s.runners.Close()
	closeFollowers(s.followers, s.logger)
	if s.errc != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.http.Shutdown(sctx); err != nil {
			s.logger.Warn("shutdown", "err", err)
		}
	} else if s.ln != nil {
		s.ln.Close()
	}
	s.stopSaving()
	if s.bound != "" {
		if err := s.dir.SaveServer(datadir.Server{Addr: s.bound, Version: Version()}); err != nil {
			s.logger.Warn("save server state", "err", err)
		}
	}
	if s.registered != nil {
		_ = s.registered.Remove(s.dir.Path, os.Getpid())
	}
	s.studio.close()
	if s.log == nil {
		return nil
	}
	return s.log.Close()
}

// withConfig adds the upstreams and followers of DATA/config.json that the
// flags do not name, and its compat and pendingMaxAge where no flag gave them.
func (c *serveConfig) withConfig(dir *datadir.Dir) error {
	cfg, err := dir.Config()
	if err != nil {
		return err
	}
	upstreamName := func(u gateway.Upstream) string { return u.Name }
	parseUpstream := func(name, url string) (gateway.Upstream, error) { return gateway.ParseUpstream(name + "=" + url) }
	if c.upstreams, err = mergeConfig(c.upstreams, cfg.Upstreams, upstreamName, parseUpstream); err != nil {
		return err
	}
	followName := func(f followSpec) string { return f.Name }
	c.follows, err = mergeConfig(c.follows, cfg.Follow, followName, followKey)
	if err != nil {
		return err
	}
	runName := func(r runSpec) string { return r.Name }
	if c.runs, err = mergeConfig(c.runs, cfg.Run, runName, runKey); err != nil {
		return err
	}
	c.games = withGames(c.games, cfg.Games)
	if c.compat, err = withCompat(c.compat, cfg); err != nil {
		return err
	}
	return c.limits.withConfig(cfg)
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
	if addrInUse(err) {
		if explicit {
			return nil, m.addrTaken(addr)
		}
		fmt.Fprintf(m.Stderr, "mcplogd: %s is taken; using a free port (the link changes)\n", addr)
		ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	return ln, nil
}

// addrInUse reports whether err is a listen's "address already in use";
// on Windows WSAEADDRINUSE (10048), which syscall.EADDRINUSE is not.
func addrInUse(err error) bool {
	var errno syscall.Errno
	return errors.Is(err, syscall.EADDRINUSE) || runtime.GOOS == "windows" && errors.As(err, &errno) && errno == 10048
}

// addrTaken words the error of an --addr that something else listens on:
// the mcplogd that holds it (its pid and data directory, from this user's
// registry of running servers, as mcplogd status lists them), an mcplogd
// the registry does not know (another user's), or another program; and
// what to do instead.
func (m *Main) addrTaken(addr string) error {
	host, _, _ := net.SplitHostPort(addr)
	instead := fmt.Sprintf("serve on another port: --addr %s, or --addr %s for a free one", net.JoinHostPort(host, "PORT"), net.JoinHostPort(host, "0"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, e := range m.runningServers(ctx) {
		if sameAddr(e.Addr, addr) {
			return fmt.Errorf("--addr %s is in use by another mcplogd (pid %d, data directory %s; mcplogd status lists the running servers); stop it, or %s",
				addr, e.PID, e.Dir, instead)
		}
	}
	if isServer(ctx, addr) {
		return fmt.Errorf("--addr %s is in use by another mcplogd, one this user's registry does not list (another user's, or started without a home); "+
			"stop it, or %s", addr, instead)
	}
	return fmt.Errorf("--addr %s is in use by another program, not an mcplogd; %s", addr, instead)
}

// sameAddr reports whether the listen addresses a and b are likely the
// same socket: the same port on the same host, on two loopback hosts
// (localhost, 127.0.0.1) or on every interface.
func sameAddr(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil || pa != pb {
		return false
	}
	every := func(h string) bool { ip := net.ParseIP(h); return h == "" || ip != nil && ip.IsUnspecified() }
	return ha == hb || isLoopback(ha) && isLoopback(hb) || every(ha) || every(hb)
}

// isServer reports whether an mcplogd answers at addr: its API refuses a
// request without the token in words that name mcplogd.
func isServer(ctx context.Context, addr string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/api/v1/stats", nil)
	if err != nil {
		return false
	}
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode == http.StatusUnauthorized && strings.Contains(string(body), "mcplogd token")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// retention holds the retention flags that serve and stdio share.
type retention struct {
	maxBytes, maxRecords uint64
	maxAge               time.Duration
}

// register adds the retention flags to fs.
func (r *retention) register(fs *flag.FlagSet) {
	sizeVar(fs, &r.maxBytes, "max-bytes", 1<<30, "retention: keep at most this many bytes of records (0: no limit)")
	fs.Uint64Var(&r.maxRecords, "max-records", 0, "retention: keep at most this many records (0: no limit)")
	durationVar(fs, &r.maxAge, "max-age", 0, "retention: drop records older than this, e.g. 72h or 30d (0: keep)")
}

func (r *retention) storeOptions(logger *slog.Logger) *store.Options {
	return &store.Options{MaxRecords: r.maxRecords, MaxBytes: r.maxBytes, MaxAge: r.maxAge, Logger: logger}
}

// report is the retention as store_info and the API report it.
func (r *retention) report() *mcptools.Retention {
	return &mcptools.Retention{MaxRecords: r.maxRecords, MaxBytes: r.maxBytes, MaxAge: r.maxAge}
}
