package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/crash"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// stdio serves the MCP tools over standard input and output, for clients
// that launch a command. bbolt allows one process per data file, so when a
// server already holds the data directory the tools go to it over HTTP (and
// its upstreams' tools are offered too); otherwise this process opens the
// store itself.
func (m *Main) stdio(ctx context.Context, args []string) error {
	fs := m.flags("stdio", "[--data DIR]", "Serve the MCP tools over standard input and output (claude mcp add mcplogd -- mcplogd stdio --data DIR).")
	data := m.dataFlag(fs)
	ret := retentionFlags(fs)
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	dir, err := datadir.Open(*data)
	if err != nil {
		return err
	}
	backend, closeBackend, err := openBackend(ctx, dir, ret.storeOptions(logger))
	if err != nil {
		return err
	}
	defer closeBackend()
	opts := &mcptools.Options{Version: Version(), Logger: logger}
	if _, ok := backend.(*oplog.Log); ok {
		opts.Retention = ret.report() // the store is ours, trimmed as the flags say
	}
	if r, ok := backend.(*client.Remote); ok {
		// The server's upstream tools (its gateway) are offered here too.
		if gw, err := client.NewRemoteGateway(ctx, r.Client, Version()); err != nil {
			logger.Warn("the server's upstream tools are not offered over stdio", "err", err)
		} else {
			defer gw.Close()
			opts.Gateway = gw
		}
	}
	srv := mcptools.New(backend, opts)
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(m.Stdin), Writer: nopWriteCloser{m.Stdout}})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // the client went away or we were interrupted: a normal end
	}
	return err
}

// openBackend returns the running server of dir as an api.Backend when one
// answers with dir's token, else the store opened directly with opts (nil:
// no retention and no search index, for short commands).
func openBackend(ctx context.Context, dir *datadir.Dir, opts *store.Options) (mcptools.Backend, func(), error) {
	token, err := dir.Token()
	if err != nil {
		return nil, nil, err
	}
	if s, _ := dir.Server(); s.Addr != "" {
		c := client.NewClient(s.BaseURL(), token)
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := c.Stats(pctx)
		cancel()
		if err == nil {
			r := client.NewRemote(c)
			return r, func() { r.Close() }, nil
		}
	}
	db, err := store.Open(dir.DBPath(), opts)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return nil, nil, fmt.Errorf("%w; its server did not answer", explainOpen(dir, err))
		}
		return nil, nil, err
	}
	l := oplog.New(db, nil)
	l.SetCrashes(crash.New(l, &crash.Options{Lazy: opts == nil}))
	if opts != nil { // a long-lived caller (stdio): searches need the index
		if err := openIndex(dir, l, db, opts.Logger); err != nil {
			l.Close()
			return nil, nil, err
		}
	}
	return l, func() { l.Close() }, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
