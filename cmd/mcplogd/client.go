package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcplogd/mcplogd/internal/bench"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/oplog"
)

// This file holds the small commands about the data directory and its
// records: link, token, show, and bench.

func (m *Main) link(_ context.Context, args []string) error {
	fs := m.flags("link", "[--data DIR]", "Print the MCP link of a data directory (the same across launches).")
	data := m.dataFlag(fs)
	create := createFlag(fs)
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	dir, token, err := clientDir(*data, *create)
	if err != nil {
		return err
	}
	s, err := dir.Server()
	if err != nil {
		return err
	}
	if s.Addr == "" {
		s.Addr = datadir.DefaultAddr
	}
	fmt.Fprintln(m.Stdout, datadir.Link(s.BaseURL(), token))
	return nil
}

func (m *Main) token(ctx context.Context, args []string) error {
	fs := m.flags("token", "[--new] [--data DIR]", "Print the access token; --new replaces it (a running server switches at once and the old link stops working).")
	data := m.dataFlag(fs)
	rotate := fs.Bool("new", false, "make a new token")
	create := createFlag(fs)
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	dir, token, err := clientDir(*data, *create)
	if err != nil {
		return err
	}
	if *rotate {
		b, err := connect(ctx, dir, openOptions{})
		if err != nil {
			return err
		}
		if b.remote != nil {
			token, err = b.remote.RotateToken(ctx)
		} else {
			token, err = dir.NewToken()
		}
		b.Close()
		if err != nil {
			return err
		}
	}
	fmt.Fprintln(m.Stdout, token)
	return nil
}

func (m *Main) show(ctx context.Context, args []string) error {
	fs := m.flags("show", "ID [--data DIR]", "Print one record in full as JSON.")
	data := m.dataFlag(fs)
	if err := m.parse(fs, args, 1); err != nil {
		return err
	}
	id, err := strconv.ParseUint(fs.Arg(0), 10, 64)
	if err != nil || id == 0 {
		return fmt.Errorf("ID: %q is not a record ID (a positive integer)", fs.Arg(0))
	}
	r, err := readLog(ctx, *data, openOptions{}, func(b backend) (oplog.Record, error) { return b.Get(ctx, id) })
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s\n", out)
	return nil
}

func (m *Main) bench(ctx context.Context, args []string) error {
	return bench.Main(ctx, args)
}
