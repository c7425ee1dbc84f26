package follow

import (
	"bytes"
	"io"
	"os"
)

// errReplaced says that the file no longer holds the bytes read just
// before the read offset: it was "truncated" or "rewritten" in place (a
// game that opens its log with mode "w" at each launch).
type errReplaced string

func (e errReplaced) Error() string { return "the file was " + string(e) }

// checkReplaced notices that the file was truncated or rewritten in place
// (smaller than what was read, beginning with other bytes, or modified
// since a pass found nothing new and no longer than then) and starts
// reading it again from 0. A rewrite that keeps the head and grows past
// the read offset is noticed by readSome, in the bytes before the offset.
func (f *Follower) checkReplaced() error {
	c := f.cur
	fi, err := c.f.Stat()
	if err != nil {
		return err
	}
	c.size, c.mtime = fi.Size(), fi.ModTime()
	var why string
	switch {
	case c.size < c.read:
		why = "truncated"
	case c.quiet && c.size == c.read && c.read > 0 && c.mtime.After(c.quietAt):
		if c.changedAt.Equal(c.mtime) {
			why = "rewritten" // with the same bytes: written again, and no longer
		}
		c.changedAt = c.mtime
	case len(c.head) > 0:
		head := make([]byte, len(c.head), headSize)
		n, err := c.f.ReadAt(head, 0)
		if err != nil && err != io.EOF {
			return err
		}
		if !bytes.Equal(head[:n], c.head) {
			why = "rewritten"
		} else if len(c.head) < headSize && c.size > int64(len(c.head)) {
			// The file was shorter than headSize: widen its identity.
			if err := c.readHead(); err != nil {
				return err
			}
		}
	case c.size > 0:
		if err := c.readHead(); err != nil {
			return err
		}
	}
	if why == "" {
		return nil
	}
	return f.readAgain(why)
}

// readAgain ends what was read of the current file, which was truncated or
// rewritten in place (why), stores it, and reads the file again from 0 as
// a new run.
func (f *Follower) readAgain(why string) error {
	c := f.cur
	f.logger.Info("follow: the file was "+why+"; reading it from the start", "read", c.read, "size", c.size)
	f.endFile()
	if err := f.store(); err != nil {
		return err // the next pass notices again and retries
	}
	c.read, c.stored, c.tailN = 0, 0, 0
	c.lines.reset()
	if err := c.readHead(); err != nil {
		return err
	}
	f.switchTo(c)
	f.startRun(why)
	return nil
}

// startRun says that the file read from now on is the next run (unless it
// begins with its banner, or another writer owns the runs: then the
// parser writes no run marker).
func (f *Follower) startRun(why string) {
	if m, ok := f.parser.(*marking); ok {
		m.startRun(why)
	}
}

// checkRotated notices, at the end of the current file, that the path names
// another file now. It reads what was written to the old one meanwhile,
// stores the rest of it and switches to the new one, reporting whether it did.
func (f *Follower) checkRotated() bool {
	c := f.cur
	fi, err := os.Stat(f.opts.Path)
	if err != nil {
		// Moved away and no new file yet (or removed): keep reading the
		// old one, which a writer may still hold open.
		return false
	}
	dev, ino, err := infoID(f.opts.Path, fi)
	if err != nil || dev == c.dev && ino == c.ino {
		return false
	}
	// Bytes written to the old file between its last read and the rename.
	for {
		n, eof, err := f.readSome()
		if err != nil || f.store() != nil {
			return false // try again at the next pass
		}
		if n == 0 || eof {
			break
		}
	}
	f.logger.Info("follow: the file was rotated; following the new one", "old", c.path, "read", c.read)
	f.endFile()
	if f.store() != nil {
		return false
	}
	f.closeFile()
	// A rotation starts no run by itself: a size-based one (log4j's
	// rolling files, logrotate) comes in the middle of a run, and a
	// launch that renames the last run's log (Unity's -prev) begins the
	// new file with its banner, which starts the run.
	return true
}

// endFile ends the current file's content: its unterminated last line is
// a line, and the parser gives up what it holds.
func (f *Follower) endFile() {
	c := f.cur
	if c.lines.held() {
		f.line(c.lines.take(), c.read)
	}
	f.addEntries(f.parser.Flush())
	f.flushed = true
}
