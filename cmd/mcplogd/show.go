package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

func (m *Main) show(ctx context.Context, args []string) error {
	fs := m.flags("show", "ID [--json|-o json] [--data DIR]", "Print one record in full: a header, the text, the stack one frame per line, "+
		"the data (and an operation's arguments and result) as indented JSON; --json prints the record as JSON.")
	data := m.dataFlag(fs)
	out := outputVars(fs, "print the record as one indented JSON object, for programs")
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
	pw, p, wait := m.page(out.noPager)
	defer wait()
	if out.json {
		b, err := marshalJSON(r, true)
		if err != nil {
			return err
		}
		fmt.Fprintf(pw, "%s\n", b)
		return nil
	}
	w := bufio.NewWriter(pw)
	printShow(w, &r, p)
	return w.Flush()
}

// printShow prints r for a person: a header line (ID, level, kind, time),
// where it came from, the text, then the stack, data, arguments, result
// and error, each under its own heading.
func printShow(w io.Writer, r *oplog.Record, p paint) {
	head := fmt.Sprintf("#%d", r.ID)
	fmt.Fprintf(w, "%s  %s  %s  %s\n", p.bold(head), p.level(r.Level, strings.ToUpper(r.Level.String())), r.Kind,
		r.Time.Local().Format("2006-01-02 15:04:05.000 MST"))
	from := []string{"source " + p.cyan(r.Source)}
	if r.Name != "" {
		from = append(from, "name "+p.cyan(r.Name))
	}
	if r.Run != 0 {
		from = append(from, fmt.Sprintf("run %d", r.Run))
	}
	fmt.Fprintln(w, strings.Join(from, "  "))
	if r.Kind == oplog.KindOp {
		printOpHeader(w, r, p)
	}
	if r.Text != "" {
		fmt.Fprintf(w, "\n%s\n", r.Text)
	}
	if r.Stack != "" {
		frames := stackFrames(r.Stack)
		fmt.Fprintf(w, "\n%s (%s)\n", p.bold("Stack"), mcptools.Plural(len(frames), "frame"))
		for _, f := range frames {
			fmt.Fprintf(w, "  %s\n", emphasiseFileLine(f, p))
		}
	}
	printJSONSection(w, p, "Data", r.Data)
	printJSONSection(w, p, "Arguments", r.Arguments)
	printJSONSection(w, p, "Result", r.Result)
	if r.Error != "" {
		fmt.Fprintf(w, "\n%s\n  %s\n", p.bold("Error"), p.level(oplog.LevelError, r.Error))
	}
}

// printOpHeader prints an operation's tool, status, duration and replay.
func printOpHeader(w io.Writer, r *oplog.Record, p paint) {
	line := "tool " + p.bold(r.Tool) + "  status " + p.status(r.Status, r.Status.String())
	if d, ok := opDuration(r); ok {
		line += "  " + d
	}
	if r.ReplayOf != 0 {
		line += fmt.Sprintf("  replay of #%d", r.ReplayOf)
	}
	fmt.Fprintln(w, line)
}

// opDuration is how long an operation took, or has been running ("running
// 3.2s"); false without a start time.
func opDuration(r *oplog.Record) (string, bool) {
	if r.StartTime.IsZero() {
		return "", false
	}
	if r.IsComplete() && !r.EndTime.IsZero() {
		return roundDuration(r.EndTime.Sub(r.StartTime)), true
	}
	if r.Status == oplog.StatusPending {
		return "running " + roundDuration(time.Since(r.StartTime)), true
	}
	return "", false
}

// roundDuration prints d with about three significant digits: 840µs, 12ms,
// 1.52s.
func roundDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// printJSONSection prints raw under a heading as indented JSON (as it is
// when it is not JSON); nothing when raw is empty or null.
func printJSONSection(w io.Writer, p paint, heading string, raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	out := []byte(raw)
	if json.Valid(raw) {
		if b, err := marshalJSON(raw, true); err == nil {
			out = b
		}
	}
	fmt.Fprintf(w, "\n%s\n", p.bold(heading))
	for line := range strings.SplitSeq(string(out), "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// stackFrames splits a stack into its non-empty lines, trimmed.
func stackFrames(stack string) []string {
	var frames []string
	for line := range strings.SplitSeq(strings.ReplaceAll(stack, "\r\n", "\n"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			frames = append(frames, line)
		}
	}
	return frames
}

// fileLine finds a frame's source position: path/File.cs:42 (Mono, .NET,
// Go, JS, Java's (File.java:42)) or Python's "path", line 42.
var fileLine = regexp.MustCompile(`[^\s()\[\]"']+\.[A-Za-z0-9]+:\d+(:\d+)?|"[^"]+", line \d+`)

// emphasiseFileLine underlines and bolds each file:line of a frame.
func emphasiseFileLine(frame string, p paint) string {
	if !p.on {
		return frame
	}
	return fileLine.ReplaceAllStringFunc(frame, func(s string) string { return p.sgr(sgrBold+";"+sgrUnder, s) })
}
