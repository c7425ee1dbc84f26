package follow

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mcplogd/mcplogd/oplog"
)

// capture turns a running program's output into records and stores them.
type capture struct {
	a        Appender
	opts     CommandOptions
	logger   *slog.Logger
	parser   Parser
	lines    lineCutter
	times    readTimes
	read     int64 // bytes read
	pending  []oplog.Record
	lastData time.Time
	flushed  bool
	err      error // the first error storing records
	// lastErr is the text of the last error line without a stack, and how
	// many records came after it: the reason a program that exits failing
	// right after it gives ("Error: couldn't load level.dat").
	lastErr   string
	afterErr  int
	lastErrAt time.Time
	// lastFail is the last line without a level of an error that says it
	// failed (Go's log.Fatalf: "main.go:21: failed to load level …"), and
	// how many records came after it.
	lastFail   string
	afterFail  int
	lastFailAt time.Time
	// tsanID is ThreadSanitizer's (or Go's race detector's) first report,
	// stored; tsanExit counts the records after its last words (tsanEnd),
	// which it prints as it makes the program exit with its status (66)
	// however long the program went on after the report; -1 before them.
	tsanID   uint64
	tsanExit int
	// threadID is the last Python thread's uncaught exception stored
	// ("Exception in thread loader:" and its traceback), and how many
	// records came after it: what a program that exits failing right
	// after reports (its main thread gave up when the thread died).
	threadID    uint64
	afterThread int
	threadAt    time.Time
	// lastLine is the text of the last record when it is a line without
	// a stack: what a program that exits failing right after printed as
	// it gave up, whatever its words (Python's sys.exit("no save slot"),
	// Perl's die, a C program's fprintf(stderr, …) and exit(2)).
	lastLine   string
	lastLineAt time.Time
	prevLine   string // the line before it, when both are lines without a stack
	// runHeld: the launch's run marker waits (at most runHoldWait) for
	// the first line with a time of its own, which it takes when earlier:
	// adb logcat prints the device's log from its start first, and the
	// launches in it are runs before this one.
	runHeld bool
	heldAt  time.Time
}

// runHoldWait bounds how long a run marker waits for the first line.
const runHoldWait = 2 * time.Second

// drainWait bounds how long output is read after the program exited:
// what it printed is read at once, but a process it started may hold the
// terminal open for good.
const drainWait = 2 * time.Second

func newCapture(a Appender, opts CommandOptions, p Parser) *capture {
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	if opts.StopWait <= 0 {
		opts.StopWait = 10 * time.Second
	}
	m := &marking{p: p, sinceRun: -1, launched: true}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &capture{a: a, opts: opts, logger: logger.With("run", opts.Name), parser: m, flushed: true, tsanExit: -1}
}

// launched stores the run's start.
func (c *capture) launched(pid int, t time.Time) {
	data, _ := json.Marshal(map[string]any{"reason": "launch", "command": commandText(c.opts.Args), "pid": pid})
	c.pending = append(c.pending, prepare(oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo,
		Time: t.UTC(), Text: "run started: " + commandText(c.opts.Args), Data: data}, c.opts.Name))
	if c.opts.Parser == "logcat" || commandName(c.opts.Args) == "adb" && slices.Contains(c.opts.Args, "logcat") {
		c.runHeld, c.heldAt = true, time.Now()
		return
	}
	c.store()
}

// loop reads the program's output until it has exited and its output is
// read, forwarding signals, and returns how it ended. held, when not nil,
// is mcplogd's copy of the program's side of its terminal, closed once the
// program is reaped: the reads end after the rest of its output.
func (c *capture) loop(ctx context.Context, cmd *exec.Cmd, out io.ReadCloser, held io.Closer) Exit {
	defer out.Close()
	release := func() {
		if held != nil {
			held.Close()
			held = nil
		}
	}
	defer release()
	chunks := make(chan []byte, 16)
	go readChunks(out, chunks)
	waitc := make(chan Exit, 1)
	go func() { waitc <- waitExit(cmd) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var exit Exit
	var exited bool
	var stopped string // the signal passed on, if any
	var drain, kill <-chan time.Time
	stop := ctx.Done()
	for {
		select {
		case b, ok := <-chunks:
			if !ok {
				if exited {
					exit.Stopped = stopped
					return exit
				}
				chunks = nil
				continue
			}
			c.feed(b)
		case exit = <-waitc:
			release()
			exit.Stopped = stopped
			if chunks == nil {
				return exit
			}
			exited, drain = true, time.After(drainWait)
		case <-drain:
			c.logger.Warn("run: the program exited but something it started still holds its output; not read further")
			return exit
		case s := <-c.opts.Signals:
			if !exited {
				stopped = signalName(s)
			}
			forward(cmd.Process, s)
		case <-stop:
			stop = nil
			if !exited {
				stopped = "SIGTERM"
			}
			terminate(cmd.Process)
			kill = time.After(c.opts.StopWait)
		case <-kill:
			_ = cmd.Process.Kill()
		case <-tick.C:
			c.tick()
		}
	}
}

// readChunks sends what r reads, chunk by chunk, and closes chunks at its
// end (a pseudo-terminal's EIO is its end too).
func readChunks(r io.Reader, chunks chan<- []byte) {
	defer close(chunks)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunks <- append([]byte(nil), buf[:n]...)
		}
		if err != nil {
			return
		}
	}
}

// feed copies a chunk of output to Output and parses its lines.
func (c *capture) feed(b []byte) {
	if c.opts.Output != nil {
		_, _ = c.opts.Output.Write(b)
	}
	c.read += int64(len(b))
	c.lastData, c.flushed = time.Now(), false
	c.lines.split(b, c.read, func(line []byte, end int64) {
		c.times.read(end, c.lastData)
		c.add(c.parser.Line(cleanLine(line), end))
	})
}

func (c *capture) add(es []Entry) {
	for _, e := range es {
		own := e.Record.Time
		read := c.times.stamp(&e) // when it was printed, though a parser held it
		r := &e.Record
		if c.runHeld && !own.IsZero() {
			for i := range c.pending { // the marker, and a header with no time ("--------- beginning of main")
				if own.Before(c.pending[i].Time) {
					c.pending[i].Time = own.UTC() // the run began no later than its first line
				}
			}
			c.runHeld = false
		}
		c.note(r, read)
		switch {
		case tsanEnd(r.Text) || tsanEnd(r.Stack):
			c.tsanExit = 0
		case c.tsanExit >= 0:
			c.tsanExit++
		}
		c.pending = append(c.pending, prepare(e.Record, c.opts.Name))
	}
}

// note follows the records a failing exit may name as its reason or
// cause (exited): r, read at read.
func (c *capture) note(r *oplog.Record, read time.Time) {
	line := r.Kind == oplog.KindLine && r.Stack == ""
	if line && launcherNoise(r.Text) {
		return // the exit restated, or Wine's own: not why the program ended
	}
	if line && r.Level >= oplog.LevelError {
		c.lastErr, c.afterErr, c.lastErrAt = r.Text, 0, read
	} else {
		c.afterErr++
	}
	if line && r.Level < oplog.LevelError && saysFailed(r.Text) {
		c.lastFail, c.afterFail, c.lastFailAt = r.Text, 0, read
	} else {
		c.afterFail++
	}
	if oplog.ThreadDied(r.Text) && r.Level >= oplog.LevelError && r.Stack != "" {
		c.afterThread, c.threadAt = 0, read
	} else {
		c.afterThread++
	}
	prev := c.lastLine
	c.lastLine, c.prevLine = "", ""
	if line {
		c.lastLine, c.lastLineAt, c.prevLine = r.Text, read, prev
	}
}

// sameTemplate reports whether a and b are the same line but for their
// variable parts: a line a program prints over and over.
func sameTemplate(a, b string) bool {
	return a != "" && oplog.TextTemplateID(a) == oplog.TextTemplateID(b)
}

// launcherNoise reports a line printed around a program's end that says
// nothing of why it ended: a launcher restating the status (go run's "exit
// status 1", cargo's "process didn't exit successfully: `…` (exit status:
// 2)", make's "make: *** [run] Error 1"), npm's spinner ("⠙", a line with
// no letter or digit), Wine's debug channels but its errors
// ("0110:fixme:ntdll:…").
func launcherNoise(text string) bool {
	t := strings.TrimSpace(text)
	switch {
	case !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }):
	case isDigits(strings.TrimPrefix(t, "exit status ")) && strings.HasPrefix(t, "exit status "):
	case strings.Contains(t, "process didn't exit successfully: `"):
	case strings.HasPrefix(t, "make: *** "), strings.HasPrefix(t, "make[") && strings.Contains(t, "]: *** "):
	case wineDebugLine(t) && !strings.Contains(t[:min(len(t), 10)], "err:"):
	default:
		return false
	}
	return true
}

// saysFailed reports a line whose words say something failed: the last a
// program prints as it gives up, with no level word ("couldn't initialize
// display", "shader compile failed: …").
func saysFailed(text string) bool {
	l := strings.ToLower(text)
	for _, w := range []string{"fail", "error", "cannot", "can't", "couldn't", "could not", "unable", "not found", "no such",
		"invalid", "missing", "denied", "refused", "timed out"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// Bounds of "right before the exit" for the error a failing exit names.
const (
	exitReasonRecords = 2               // records between the error and the exit
	exitReasonTime    = 2 * time.Second // time between them
)

// tick stores what is pending, and the held entry once output was quiet
// for Quiet (reportPause while it is a report that pauses); a cut line
// (lineCutter) whose newline has not come by then is stored too, so that
// output that never ends its line is recorded.
func (c *capture) tick() {
	if since := time.Since(c.lastData); !c.flushed && since >= c.opts.Quiet {
		c.add(settle(c.parser))
		if quietFor(c.parser, c.opts.Quiet, since) {
			if c.lines.cut() {
				c.times.read(c.read, c.lastData)
				c.add(c.parser.Line(cleanLine(c.lines.take()), c.read))
			}
			c.add(c.parser.Flush())
			c.flushed = true
		}
	}
	c.store()
}

// exited stores the rest of the output and the exit marker, and returns
// the marker as stored (ID 0 when it could not be).
func (c *capture) exited(e Exit) oplog.Record {
	if c.lines.held() {
		c.times.read(c.read, c.lastData)
		c.add(c.parser.Line(cleanLine(c.lines.take()), c.read))
	}
	c.add(c.parser.Flush())
	c.runHeld = false
	c.store() // the records the marker may name have their IDs
	data := map[string]any{"durationMs": e.Duration.Milliseconds()}
	if e.Signal != "" {
		data["signal"], data["signalNumber"] = e.Signal, e.SignalNumber
		if e.CoreDumped {
			data["coreDumped"] = true
		}
	} else {
		data["exitCode"] = e.Code
	}
	if e.Stopped != "" {
		data["stoppedBy"] = e.Stopped
	}
	switch {
	case e.Level() >= oplog.LevelError && e.Signal == "" && c.tsanID != 0 && c.tsanExit >= 0 && c.tsanExit <= exitReasonRecords:
		// ThreadSanitizer's status: its report is the crash.
		data["cause"] = c.tsanID
	case e.Level() >= oplog.LevelError && e.Signal == "" && c.threadID != 0 && c.afterThread <= exitReasonRecords &&
		time.Since(c.threadAt) <= exitReasonTime:
		// A thread's uncaught exception, then the program gave up.
		data["cause"] = c.threadID
	case e.Level() >= oplog.LevelError && (e.Signal == "" || e.Signal == "SIGABRT") && c.lastErr != "" &&
		c.afterErr <= exitReasonRecords && time.Since(c.lastErrAt) <= exitReasonTime:
		// The error the program printed as it gave up: the crash's title.
		data["reason"] = oplog.ClipText(c.lastErr)
	case e.Level() >= oplog.LevelError && (e.Signal == "" || e.Signal == "SIGABRT") && c.lastFail != "" &&
		c.afterFail <= exitReasonRecords && time.Since(c.lastFailAt) <= exitReasonTime:
		// A line right before the end that says what failed, with no
		// level word ("could not open window", then "bye").
		data["reason"] = oplog.ClipText(c.lastFail)
	case e.Level() >= oplog.LevelError && (e.Signal == "" || e.Signal == "SIGABRT") && c.lastLine != "" &&
		time.Since(c.lastLineAt) <= exitReasonTime && !sameTemplate(c.prevLine, c.lastLine):
		// Its last line, whatever it says: the message of sys.exit("…"),
		// die "…\n" or exit(2) after a line on standard error; not one of
		// the lines it printed on and on ("frame 812 fps=60"), which says
		// nothing of the end. The title keeps how it ended beside it.
		data["reason"] = oplog.ClipText(c.lastLine)
	}
	b, _ := json.Marshal(data)
	c.pending = append(c.pending, prepare(oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: e.Level(),
		Time: time.Now().UTC(), Text: commandName(c.opts.Args) + " " + e.String(), Data: b}, c.opts.Name))
	pending, last := c.pending, len(c.pending)-1 // store appends in place: the IDs land here
	c.store()
	return pending[last]
}

// store appends what is pending, as the follower does (appendCutting);
// on an error it keeps it for the next try.
func (c *capture) store() {
	if c.runHeld && time.Since(c.heldAt) < runHoldWait {
		return
	}
	c.runHeld = false
	for len(c.pending) > 0 {
		batch := c.pending[:min(len(c.pending), batchSize)]
		err := appendCutting(batch, func(recs []oplog.Record) error { return c.a.Append(context.Background(), recs) },
			func(i int) { cutDown(&batch[i]) }, c.logger, "run")
		if err != nil {
			if c.err == nil {
				c.logger.Error("run: records not stored yet; trying again", "records", len(c.pending), "err", err)
				c.err = err
			}
			return
		}
		c.err = nil
		for i := range batch {
			if c.tsanID == 0 && tsanRecord(&batch[i]) {
				c.tsanID = batch[i].ID
			}
			if oplog.ThreadDied(batch[i].Text) && batch[i].Level >= oplog.LevelError && batch[i].Stack != "" {
				c.threadID = batch[i].ID
			}
		}
		c.pending = c.pending[len(batch):]
	}
	c.pending = nil
}

// commandName is the program's file name.
func commandName(args []string) string {
	name := args[0]
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' || name[i] == '\\' {
			return name[i+1:]
		}
	}
	return name
}
