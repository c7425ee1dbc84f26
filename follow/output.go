package follow

import (
	"os"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Output records a program that another part of mcplogd started and waits
// for (the gateway's cmd: upstreams, whose standard output carries MCP) as
// RunCommand records its own: StartOutput stores the run's start, Write
// parses what the program prints on the output handed to it (its standard
// error) with the same parsers, and End stores the rest and the exit
// marker, with the same names, levels and data. It is safe for concurrent
// use.
type Output struct {
	mu    sync.Mutex
	c     *capture
	start time.Time
	stop  chan struct{} // closed by End: the ticker stops
	done  chan struct{} // closed when the ticker has stopped
}

// StartOutput stores the start of a run of opts.Name (a run marker naming
// opts.Args and pid, as RunCommand's) and returns the Output that records
// the rest. Of opts only Name, Args, Parser, Quiet and Logger are read.
// Errors: an invalid name, no command, an unknown parser; a run marker
// that could not be stored is not an error (it is tried again with the
// next records, as RunCommand does).
func StartOutput(a Appender, opts CommandOptions, pid int) (*Output, error) {
	if err := checkName(opts.Name); err != nil {
		return nil, err
	}
	if len(opts.Args) == 0 || opts.Args[0] == "" {
		return nil, oplog.Errorf(oplog.EINVALID, "output of %s: no command given", opts.Name)
	}
	p, err := NewParser(opts.Parser, func() time.Time { return time.Now() })
	if err != nil {
		return nil, err
	}
	o := &Output{c: newCapture(a, opts, p), start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	o.c.launched(pid, o.start)
	go o.tick()
	return o, nil
}

// tick stores what Write parsed every 50 ms, and the held entry once the
// program was quiet for Quiet, until End.
func (o *Output) tick() {
	defer close(o.done)
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-t.C:
			o.mu.Lock()
			o.c.tick()
			o.mu.Unlock()
		}
	}
}

// Write parses p, a piece of what the program printed; it never fails.
// Records are stored within 50 ms, not by Write.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.c.feed(p)
	return len(p), nil
}

// End stores the rest of what Write was given and the exit marker
// (oplog.MarkerExit) of how the program ended: ps is its state after its
// Wait (nil: unknown), stopped the signal mcplogd sent to stop it ("":
// it ended by itself). Call it once, after the last Write. It returns the
// exit marker as stored (its ID and Run 0 when it could not be stored, or
// the Appender does not set them) and the error storing records, if any.
func (o *Output) End(ps *os.ProcessState, stopped string) (oplog.Record, error) {
	close(o.stop)
	<-o.done
	o.mu.Lock()
	defer o.mu.Unlock()
	exit := exitOf(ps, nil)
	exit.Stopped, exit.Duration = stopped, time.Since(o.start)
	rec := o.c.exited(exit)
	return rec, o.c.err
}
