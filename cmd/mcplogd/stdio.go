package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// stdio serves the MCP tools over standard input and output, for clients
// that launch a command. bbolt allows one process per data file, so when a
// server already holds the data directory the tools go to it over HTTP (and
// its upstreams' tools are offered too); otherwise this process opens the
// store itself.
func (m *Main) stdio(ctx context.Context, args []string) error {
	fs := m.flags("stdio", "[--data DIR]", "Serve the MCP tools over standard input and output (claude mcp add mcplogd -- mcplogd stdio --data DIR).")
	data := m.dataFlag(fs)
	var ret retention
	ret.register(fs)
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	// The SDK writes < > & as \u003c \u003e \u0026; its messages go out
	// through the unescaper (each ends in a newline: nothing is held).
	m = m.withStdout(&oplog.UnescapeWriter{W: m.Stdout})

	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	dir, err := datadir.Open(*data)
	if err != nil {
		return err
	}
	// A long-lived process: searches need the index, and crashes the
	// crash index's background reader.
	b, err := connect(ctx, dir, openOptions{Store: ret.storeOptions(logger), Logger: logger, Search: true, Crashes: true})
	if err != nil {
		return err
	}
	defer b.Close()
	opts := &mcptools.Options{Version: Version(), Logger: logger}
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
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(m.Stdin), Writer: nopWriteCloser{m.Stdout}})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // the client went away or we were interrupted: a normal end
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
