package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/mcptools/remote"
	"github.com/mcplogd/mcplogd/oplog"
)

// stdio serves the MCP tools over standard input and output, for clients
// that launch a command. bbolt allows one process per data file, so the
// tools go to the data directory's server over HTTP (and its upstreams'
// tools are offered too); when none runs, stdio starts one in the
// background (recorder.go), which records on after the session ends. With
// --in-process and no server, this process opens the store itself.
func (m *Main) stdio(ctx context.Context, args []string) error {
	fs := m.flags("stdio", "[--data DIR] [--in-process] [--compat unity-bridge]",
		"Serve the MCP tools over standard input and output (claude mcp add mcplogd -- mcplogd stdio). They go through the data directory's running server; "+
			"when none runs, stdio starts one in the background (mcplogd serve, with config.json's follows and runs; its log is DATA/serve.log), "+
			"which goes on recording after the session ends. A missing data directory is made.")
	data := m.dataFlag(fs)
	fs.Bool("create", false, "accepted for older command lines: stdio makes a missing data directory anyway")
	inProcess := fs.Bool("in-process", false, "with no server running, open the store in this process instead of starting one in the background: recording stops with the session")
	var compat string
	compatFlag(fs, &compat)
	var ret retention
	ret.register(fs)
	var mem memoryLimit
	mem.register(fs)
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	mem.apply(m.Getenv)
	// The SDK writes < > & as \u003c \u003e \u0026; its messages go out
	// through the unescaper (each ends in a newline: nothing is held).
	m = m.withStdout(&oplog.UnescapeWriter{W: m.Stdout})

	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	dir, token, err := openDir(*data)
	if err != nil {
		return m.refuseSession(err)
	}
	cfg, err := dir.Config()
	if err != nil {
		return m.refuseSession(err)
	}
	if compat, err = withCompat(compat, cfg); err != nil {
		return m.refuseSession(err)
	}
	var b backend
	if *inProcess {
		// A long-lived process: searches need the index, and crashes the
		// crash index's background reader.
		b, err = connect(ctx, dir, openOptions{Store: ret.storeOptions(logger), Logger: logger, Search: true, Crashes: true})
	} else {
		var r *remote.Backend
		r, err = m.recorder(ctx, dir, token, fs)
		if err == nil { // a recorder killed while the session is open is started again
			m.linkRecorder(r, dir, token, fs, logger)
		}
		b = backend{Backend: r, remote: r}
	}
	if err != nil {
		return m.refuseSession(err)
	}
	defer b.Close()
	opts := &mcptools.Options{Version: Version(), Logger: logger, Compat: compat}
	if opts.StudioScope, err = configuredStudio(dir); err != nil {
		return m.refuseSession(err)
	}
	if b.local != nil {
		opts.Retention = ret.report() // the store is ours, trimmed as the flags say
	}
	if b.remote != nil {
		// The server's upstream tools (its gateway) are offered here too.
		if gw, err := remote.NewGateway(ctx, b.remote.Client, Version()); err != nil {
			logger.Warn("the server's upstream tools are not offered over stdio", "err", err)
		} else {
			defer gw.Close()
			opts.Gateway = gw
		}
	}
	srv := mcptools.New(b.Backend, opts)
	// stdioLines answers bad lines itself and ends the session only once
	// every request read is answered.
	lines := newStdioLines(m.Stdout)
	pr, pw := io.Pipe()
	defer pr.Close() // a feed still writing stops
	go lines.feed(ctx, m.Stdin, pw)
	err = srv.Run(ctx, lines.transport(pr))
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // the client went away or we were interrupted: a normal end
	}
	return err
}
