package main

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/mcplogd/mcplogd/oplog"
)

// This file holds what the commands share to print for people: colour on a
// terminal (none when piped, with NO_COLOR set or TERM=dumb) and JSON
// without HTML escaping.

// paint colours text written for people; the zero paint writes plain text.
type paint struct{ on bool }

// paintFor returns the paint for w: colour when w is a terminal, NO_COLOR
// (https://no-color.org) is unset or empty, and TERM is not "dumb".
func (m *Main) paintFor(w io.Writer) paint {
	f, ok := w.(*os.File)
	if !ok || m.Getenv("NO_COLOR") != "" || m.Getenv("TERM") == "dumb" {
		return paint{}
	}
	return paint{on: isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())}
}

// ANSI SGR codes.
const (
	sgrBold    = "1"
	sgrDim     = "2"
	sgrUnder   = "4"
	sgrRed     = "31"
	sgrGreen   = "32"
	sgrYellow  = "33"
	sgrMagenta = "35"
	sgrCyan    = "36"
	sgrBoldRed = "1;31"
)

// sgr wraps s in the ANSI code when p is on.
func (p paint) sgr(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}

func (p paint) bold(s string) string    { return p.sgr(sgrBold, s) }
func (p paint) dim(s string) string     { return p.sgr(sgrDim, s) }
func (p paint) cyan(s string) string    { return p.sgr(sgrCyan, s) }
func (p paint) magenta(s string) string { return p.sgr(sgrMagenta, s) }

// level colours s as the level l: debug dim, warn yellow, error red, fatal
// bold red.
func (p paint) level(l oplog.Level, s string) string {
	switch l {
	case oplog.LevelDebug:
		return p.sgr(sgrDim, s)
	case oplog.LevelWarn:
		return p.sgr(sgrYellow, s)
	case oplog.LevelError:
		return p.sgr(sgrRed, s)
	case oplog.LevelFatal:
		return p.sgr(sgrBoldRed, s)
	}
	return s
}

// status colours s as an operation's status: success green, pending and
// cancelled yellow, error, timeout and crashed red.
func (p paint) status(st oplog.Status, s string) string {
	switch st {
	case oplog.StatusSuccess:
		return p.sgr(sgrGreen, s)
	case oplog.StatusPending, oplog.StatusCancelled:
		return p.sgr(sgrYellow, s)
	case oplog.StatusError, oplog.StatusTimeout, oplog.StatusCrashed:
		return p.sgr(sgrRed, s)
	}
	return s
}

// highlight turns a search fragment's **marks** into bold on a terminal and
// drops them elsewhere, where a person reads or greps plain text.
func (p paint) highlight(fragment string) string {
	var b strings.Builder
	for {
		i := strings.Index(fragment, "**")
		if i < 0 {
			break
		}
		j := strings.Index(fragment[i+2:], "**")
		if j < 0 {
			break
		}
		b.WriteString(fragment[:i])
		b.WriteString(p.bold(fragment[i+2 : i+2+j]))
		fragment = fragment[i+2+j+2:]
	}
	b.WriteString(fragment)
	return b.String()
}

// marshalJSON is oplog.MarshalJSON, indented by two spaces when indent is
// set, with any HTML escapes that stored JSON holds (written by
// json.Marshal elsewhere) turned back into < > &.
func marshalJSON(v any, indent bool) ([]byte, error) {
	ind := ""
	if indent {
		ind = "  "
	}
	b, err := oplog.MarshalJSON(v, ind)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	u := &oplog.UnescapeWriter{W: &out}
	_, _ = u.Write(b)
	_ = u.Flush()
	return out.Bytes(), nil
}

// withStdout returns a copy of m that writes its standard output to w.
func (m *Main) withStdout(w io.Writer) *Main {
	c := *m
	c.Stdout = w
	return &c
}
