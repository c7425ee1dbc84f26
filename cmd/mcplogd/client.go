package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mcplogd/mcplogd/internal/bench"
	"github.com/mcplogd/mcplogd/internal/datadir"
)

// This file holds the small commands about the data directory and its
// records: link, token and bench (show is in show.go).

func (m *Main) link(ctx context.Context, args []string) error {
	fs := m.flags("link", "[--web] [--data DIR]", "Print the MCP link of a data directory (the same across launches); --web prints the web page's link.")
	web := fs.Bool("web", false, "print the web page's link (BASE/ui/TOKEN) instead")
	data := m.dataFlag(fs)
	create := createFlag(fs)
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	dir, token, err := clientDir(*data, *create)
	if err != nil {
		return err
	}
	dir.WaitStarted(ctx, func() {
		fmt.Fprintf(m.Stderr, "mcplogd: a server is starting in %s; waiting for its address\n", dir.Path)
	})
	s, err := dir.Server()
	if err != nil {
		return err
	}
	if s.Addr == "" {
		s.Addr = datadir.DefaultAddr
	}
	if *web {
		fmt.Fprintf(m.Stdout, "%s/ui/%s\n", s.BaseURL(), token)
		return nil
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

func (m *Main) bench(ctx context.Context, args []string) error {
	return bench.Command(ctx, args, m.Stdout, m.Stderr, func(fs *flag.FlagSet, args []string) error {
		fs.Usage = func() { printUsage(fs.Output(), fs, "[flags]", bench.Summary) }
		return m.parse(fs, args, -1)
	})
}
