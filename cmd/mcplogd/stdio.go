package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// stdio serves the MCP tools over standard input and output, for clients
// that launch a command. bbolt allows one process per data file, so when a
// server already holds the data directory the tools go to it over HTTP (and
// its upstreams' tools are offered too); otherwise this process opens the
// store itself.
func (m *Main) stdio(ctx context.Context, args []string) error {
	fs := m.flags("stdio", "[--data DIR] [--create] [--compat unity-bridge]", "Serve the MCP tools over standard input and output (claude mcp add mcplogd -- mcplogd stdio --data DIR).")
	data := m.dataFlag(fs)
	create := createFlag(fs)
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
	dir, _, err := clientDir(*data, *create)
	if err != nil {
		return err
	}
	cfg, err := dir.Config()
	if err != nil {
		return err
	}
	if compat, err = withCompat(compat, cfg); err != nil {
		return err
	}
	// A long-lived process: searches need the index, and crashes the
	// crash index's background reader.
	b, err := connect(ctx, dir, openOptions{Store: ret.storeOptions(logger), Logger: logger, Search: true, Crashes: true})
	if err != nil {
		return err
	}
	defer b.Close()
	opts := &mcptools.Options{Version: Version(), Logger: logger, Compat: compat}
	if opts.StudioScope, err = configuredStudio(dir); err != nil {
		return err
	}
	if b.local != nil {
		opts.Retention = ret.report() // the store is ours, trimmed as the flags say
	}
	if b.remote != nil {
		// The server's upstream tools (its gateway) are offered here too.
		if gw, err := client.NewRemoteGateway(ctx, b.remote.Client, Version()); err != nil {
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
