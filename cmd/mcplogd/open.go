package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/mcptools/remote"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// This file is the one way every command reaches a data directory's log:
// openLog opens it in this process (serve, stdio, and the CLI without a
// server), runningServer finds the server that holds it, and connect picks
// one of the two. bbolt lets one process hold the file, so a command run
// beside a server must go through it.

// openOptions says how openLog opens a log. The zero value suits a short
// command: default store options, no retention, a crash index that reads on
// demand, no search index.
type openOptions struct {
	// Store is passed to store.Open; nil means its defaults.
	Store *store.Options
	// Logger receives the crash and search indexes' logs; nil discards them.
	Logger *slog.Logger
	// Search opens the search index (rebuilding it in the background when
	// it is missing or damaged); commands that never search leave it out.
	Search bool
	// Crashes runs the crash index's background reader, for long-lived
	// processes; without it each crash query reads what it needs.
	Crashes bool
}

// opened is a data directory's log held by this process, with its store
// and indexes.
type opened struct {
	dir *datadir.Dir
	db  *store.DB
	log *oplog.Log
	idx *search.Index // nil without openOptions.Search
}

// openLog opens dir's store, the log over it and its indexes. A store held
// by another process gives explainOpen's error, which wraps store.ErrLocked;
// a log.db this process may not write a *datadir.UnwritableError.
func openLog(dir *datadir.Dir, opts openOptions) (*opened, error) {
	if err := refuseLostLog(dir); err != nil { // salvage.go
		return nil, err
	}
	if err := dir.CheckLog(); err != nil { // not "damaged", not named twice
		return nil, err
	}
	db, err := store.Open(dir.DBPath(), opts.Store)
	if err != nil {
		return nil, explainOpen(dir, err)
	}
	o := &opened{dir: dir, db: db, log: oplog.New(db, nil)}
	o.log.SetCrashes(crash.New(o.log, &crash.Options{Logger: opts.Logger, Lazy: !opts.Crashes}))
	if opts.Search {
		o.idx, err = search.Open(indexDir(dir), db, &search.Options{Changed: o.log.Changed, Completed: o.log.CompletedSince, Logger: opts.Logger})
		if err != nil {
			o.log.Close()
			return nil, err
		}
		o.log.SetIndex(o.idx) // the log closes it
	}
	return o, nil
}

// Close closes the log, its indexes and the store.
func (o *opened) Close() error { return o.log.Close() }

// indexDir is where a data directory keeps its search index.
func indexDir(dir *datadir.Dir) string { return filepath.Join(dir.Path, "index") }

// lockedError is a store.ErrLocked explained: it names what holds the file.
type lockedError struct{ msg string }

func (e *lockedError) Error() string { return e.msg }
func (e *lockedError) Unwrap() error { return store.ErrLocked }

// lockedPhrase is in every message of explainOpen: the background
// recorder's starter reads it in the log of a recorder that lost the
// store to a concurrent one.
const lockedPhrase = "is using the data directory"

// explainOpen turns a locked-file error into one that names the running server.
func explainOpen(dir *datadir.Dir, err error) error {
	if !errors.Is(err, store.ErrLocked) {
		return err
	}
	s, _ := dir.Server()
	if s.PID != 0 {
		return &lockedError{fmt.Sprintf("another mcplogd (pid %d, %s) %s %s; stop it or pass a different --data", s.PID, s.BaseURL(), lockedPhrase, dir.Path)}
	}
	return &lockedError{fmt.Sprintf("another process %s %s; stop it or pass a different --data", lockedPhrase, dir.Path)}
}

// runningServer returns a Remote for dir's server when one answers with
// token within two seconds, else nil.
func runningServer(ctx context.Context, dir *datadir.Dir, token string) *remote.Backend {
	s, _ := dir.Server()
	if s.Addr == "" {
		return nil
	}
	c := client.NewClient(s.BaseURL(), token)
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := c.Stats(pctx); err != nil {
		return nil
	}
	return remote.NewBackend(c)
}

// serverOf returns dir's running server when one answers, else nil; also
// when dir's token cannot be read or made (read-only media, a damaged
// directory), since no server can then be asked.
func serverOf(ctx context.Context, dir *datadir.Dir) *remote.Backend {
	token, err := dir.Token()
	if err != nil {
		return nil
	}
	return runningServer(ctx, dir, token)
}

// stoppedDir opens the existing data directory at path for a command that
// needs its files to itself (reindex, salvage), refusing it while a
// server holds them: the error names the server and says to stop it and
// run command again, then what else would do when instead is not nil
// (", or ..." of the directory).
func stoppedDir(ctx context.Context, path, command string, instead func(*datadir.Dir) string) (*datadir.Dir, error) {
	dir, err := datadir.Existing(path)
	if err != nil {
		return nil, err
	}
	if r := serverOf(ctx, dir); r != nil {
		r.Close()
		s, _ := dir.Server()
		msg := fmt.Sprintf("a server (pid %d, %s) holds %s; stop it and run %s again", s.PID, s.BaseURL(), dir.Path, command)
		if instead != nil {
			msg += instead(dir)
		}
		return nil, errors.New(msg)
	}
	return dir, nil
}

// backend is the log as a command reaches it: through the running server
// (remote) or opened here (local); exactly one of the two is set.
type backend struct {
	mcptools.Backend
	remote *remote.Backend
	local  *opened
}

// Close lets go of the server or the log.
func (b backend) Close() {
	if b.remote != nil {
		b.remote.Close()
	} else if b.local != nil {
		b.local.Close()
	}
}

// connect returns dir's running server when one answers with dir's token,
// else dir's log opened here with opts.
func connect(ctx context.Context, dir *datadir.Dir, opts openOptions) (backend, error) {
	token, err := dir.Token()
	if err != nil {
		return backend{}, err
	}
	if r := runningServer(ctx, dir, token); r != nil {
		return backend{Backend: r, remote: r}, nil
	}
	o, err := openLog(dir, opts)
	if errors.Is(err, store.ErrLocked) && dir.WaitStarted(ctx, nil) {
		if r := runningServer(ctx, dir, token); r != nil { // it was starting, and answers now
			return backend{Backend: r, remote: r}, nil
		}
	}
	if errors.Is(err, store.ErrLocked) {
		return backend{}, fmt.Errorf("%w; its server did not answer", err)
	} else if err != nil {
		return backend{}, err
	}
	return backend{Backend: o.log, local: o}, nil
}

// readLog runs read on the log of the data directory at path, which must
// exist (a read has nothing to read in a new one), and lets go of the log
// after it.
func readLog[T any](ctx context.Context, path string, opts openOptions, read func(backend) (T, error)) (T, error) {
	var zero T
	dir, err := datadir.Existing(path)
	if err != nil {
		return zero, err
	}
	b, err := connect(ctx, dir, opts)
	if err != nil {
		return zero, err
	}
	defer b.Close()
	return read(b)
}

// openDir opens (or creates) the data directory at path and reads its
// token, creating one the first time.
func openDir(path string) (*datadir.Dir, string, error) { return withToken(datadir.Open(path)) }

// existingDir opens the data directory at path, refused with
// datadir.Existing's message when missing, and reads its token.
func existingDir(path string) (*datadir.Dir, string, error) {
	return withToken(datadir.Existing(path))
}

// withToken reads the token of dir, which datadir.Open or Existing gave
// with err, creating its first.
func withToken(dir *datadir.Dir, err error) (*datadir.Dir, string, error) {
	if err != nil {
		return nil, "", err
	}
	token, err := dir.Token()
	if err != nil {
		return nil, "", err
	}
	return dir, token, nil
}

// createFlag adds --create to a client command (stdio, link, token,
// import): serve makes a missing data directory, the others refuse it, as
// tail does, unless told to make it.
func createFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("create", false, "make the data directory when it does not exist (without it a missing one is refused)")
}

// clientDir opens the data directory at path for a client command, and
// its token: a missing directory is refused with datadir.Existing's
// message unless create.
func clientDir(path string, create bool) (*datadir.Dir, string, error) {
	if create {
		return openDir(path)
	}
	return existingDir(path)
}
