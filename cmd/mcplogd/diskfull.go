package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// diskFull reports whether err says the disk, or the user's quota, is full:
// serve then starts all the same, read-only in effect (appends answer
// errors until there is room), so the log can still be read.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// serverFile is the data directory's server.json, which datadir writes
// and the CLI reads to find the running server.
const serverFile = "server.json"

// saveRetry is how often a server that could not write server.json on a
// full disk tries again.
const saveRetry = time.Second

// saveServer writes server.json for the server listening at bound. The CLI
// finds the server by this file alone, so on a full disk, where the new
// file that replaces it whole cannot be made, a server.json left by the
// last run (naming its port, which this run may not have) is rewritten in
// place: its bytes fit the blocks the file already has. Where that fails
// too (no server.json yet, a file system that copies on write) the stale
// file is removed, so that no command asks whatever listens on the old
// port, and the whole write is tried again every saveRetry until there is
// room or the server stops (stopSaving).
func (s *server) saveServer(bound string) error {
	rec := datadir.Server{Addr: bound, PID: os.Getpid(), Started: time.Now().UTC(), Version: Version()}
	err := s.dir.SaveServer(rec)
	if !diskFull(err) {
		return err
	}
	path := filepath.Join(s.dir.Path, serverFile)
	if ierr := rewriteInPlace(path, rec); ierr == nil {
		s.logger.Warn("disk full: server.json rewritten in place; reads work, appends fail until there is room", "err", err)
		return nil
	}
	if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		s.logger.Warn("disk full: the old server.json cannot be removed either", "err", rerr)
	}
	s.logger.Warn("disk full: server.json not written, so other commands do not find this server until there is room; reads work, appends fail until then", "err", err)
	s.saveStop, s.saveDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.saveDone)
		t := time.NewTicker(saveRetry)
		defer t.Stop()
		for {
			select {
			case <-s.saveStop:
				return
			case <-t.C:
			}
			if err := s.dir.SaveServer(rec); err == nil {
				s.logger.Warn("server.json written: there is room again")
				return
			}
		}
	}()
	return nil
}

// stopSaving stops saveServer's retries and waits for the one running, so
// that the server's own last write (Close) comes after them.
func (s *server) stopSaving() {
	if s.saveStop != nil {
		close(s.saveStop)
		<-s.saveDone
		s.saveStop = nil
	}
}

// rewriteInPlace overwrites the existing file at path with rec's JSON
// without making a new file: no new blocks are needed on a full disk when
// it fits those the file has. A reader may see it half written for a
// moment (it then finds no server, as without the file).
func rewriteInPlace(path string, rec datadir.Server) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, 0)
	if err == nil {
		err = f.Truncate(int64(len(b)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("rewrite %s in place: %w", path, err)
	}
	return nil
}
