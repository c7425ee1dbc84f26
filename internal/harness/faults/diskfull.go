package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ScenarioDiskFull: the data directory on a 32 MB tmpfs, filled up to the
// last 2 MB by another file; 8 writers ingest until appends fail, the
// server is killed, restarted on the full disk (it must start and answer
// reads), and, once the other file is gone, takes appends again. Needs
// root (mount); skipped otherwise.
func ScenarioDiskFull(e *Env) (Result, error) {
	r := Result{Scenario: "disk full"}
	mnt := filepath.Join(e.Dir, "diskfull")
	if err := os.MkdirAll(mnt, 0o700); err != nil {
		return r, err
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", mnt).CombinedOutput(); err != nil {
		r.Skipped = fmt.Sprintf("cannot mount a tmpfs: %v %s", err, strings.TrimSpace(string(out)))
		return r, nil
	}
	defer exec.Command("umount", "-l", mnt).Run()
	filler := filepath.Join(mnt, "filler")
	for round := range e.Rounds {
		data := filepath.Join(mnt, fmt.Sprint("data-", round)) // a new one each round: the last one's records would fill the disk
		acked, lost, dup, err := e.diskFullRound(data, filler, round)
		r.Acked, r.Lost, r.Dup, r.Rounds = r.Acked+acked, r.Lost+lost, r.Dup+dup, round+1
		if err != nil {
			return r, fmt.Errorf("round %d: %w", round, err)
		}
		e.logf("disk full round %d: %d acknowledged, %d lost, %d duplicated", round, acked, lost, dup)
		if err := os.RemoveAll(data); err != nil {
			return r, err
		}
	}
	r.Note = "restarted on the full disk each time: started, answered reads; took appends again once there was room"
	return r, nil
}

// diskFullRound fills the disk under a server ingesting into data, kills
// it once appends fail, restarts it on the full disk, checks the data file,
// then frees the room and appends again.
func (e *Env) diskFullRound(data, filler string, round int) (acked, lost, dup int, err error) {
	a := newAcks()
	s, err := e.Start(data)
	if err != nil {
		return 0, 0, 0, err
	}
	if err := fill(filler, 2<<20); err != nil {
		s.Kill()
		return 0, 0, 0, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); e.Ingest(ctx, s, fmt.Sprintf("fault-full r%d", round), a) }()
	KillWhen(s, time.Minute, func() bool { return a.failed.Load() >= 50 })
	cancel()
	wg.Wait()
	if err := e.readOnlyStart(data); err != nil {
		return a.Len(), 0, 0, fmt.Errorf("restart on a full disk: %w", err)
	}
	recs, err := Records(data)
	if err != nil {
		return a.Len(), 0, 0, err
	}
	lost, dup = a.Verify(recs, "fault-full", 0)
	if err := os.Remove(filler); err != nil {
		return a.Len(), lost, dup, err
	}
	s, err = e.Start(data)
	if err != nil {
		return a.Len(), lost, dup, err
	}
	defer s.Stop()
	if _, err := s.Post(context.Background(), "/api/v1/logs", []byte(`{"level":"info","text":"room again"}`), nil); err != nil {
		return a.Len(), lost, dup, fmt.Errorf("append once there is room: %w", err)
	}
	return a.Len(), lost, dup, nil
}

// readOnlyStart starts a server on the full disk, reads its counters and
// kills it.
func (e *Env) readOnlyStart(data string) error {
	s, err := e.Start(data)
	if err != nil {
		return err
	}
	defer s.Kill()
	_, err = s.C.Stats(context.Background())
	return err
}

// fill writes path until the file system has only leave bytes free.
func fill(path string, leave int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	free, err := freeSpace(filepath.Dir(path))
	if err != nil {
		return err
	}
	free -= leave
	b := make([]byte, 1<<20)
	for free > 0 {
		n, err := f.Write(b[:min(int64(len(b)), free)])
		free -= int64(n)
		if errors.Is(err, syscall.ENOSPC) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}
