package studio

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// The studio schema's fields, as package studio's forwarder writes them:
// stream fields project, machine and source; _msg, _time, id, seq,
// revision, kind, level, name, stack, signature, tool, status, run, data.*.

// streamFilter selects the project's rows, of machine and source when
// they are set: a stream filter, which VictoriaLogs answers from its
// stream index before reading any row.
func streamFilter(project, machine, source string) string {
	var b strings.Builder
	b.WriteString("{project=" + strconv.Quote(project))
	if machine != "" {
		b.WriteString(",machine=" + strconv.Quote(machine))
	}
	if source != "" {
		b.WriteString(",source=" + strconv.Quote(source))
	}
	b.WriteString("}")
	return b.String()
}

// filterLogsQL translates f (but Source, which streamFilter takes) and an
// operation's tool and status to LogsQL filters, joined with AND; "" when
// f has none. Runs are a local notion: EINVALID.
func filterLogsQL(f *oplog.Filter, tool string, status oplog.Status) (string, error) {
	if f.Runs != nil {
		return "", oplog.Errorf(oplog.EINVALID, "run: runs are one machine's; studio scope takes since and until instead")
	}
	var parts []string
	if f.MinLevel > oplog.LevelDebug {
		var ls []string
		for l := f.MinLevel; l <= oplog.LevelFatal; l++ {
			ls = append(ls, strconv.Quote(l.String()))
		}
		parts = append(parts, "level:in("+strings.Join(ls, ",")+")")
	}
	switch {
	case f.Kind == oplog.KindLine && f.WithMarkers:
		parts = append(parts, `kind:in("line","marker")`)
	case f.Kind != 0:
		parts = append(parts, "kind:="+strconv.Quote(f.Kind.String()))
	}
	for _, kv := range [][2]string{{"name", f.Name}, {"tool", tool}, {"status", status.String()}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+":="+strconv.Quote(kv[1]))
		}
	}
	if t := timeLogsQL(f.Since, f.Until); t != "" {
		parts = append(parts, t)
	}
	return strings.Join(parts, " AND "), nil
}

// timeLogsQL is the _time filter [since, until); "" for no bound.
func timeLogsQL(since, until time.Time) string {
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	switch {
	case since.IsZero() && until.IsZero():
		return ""
	case until.IsZero():
		return "_time:>=" + ts(since)
	case since.IsZero():
		return "_time:<" + ts(until)
	}
	return "_time:[" + ts(since) + ", " + ts(until) + ")"
}

// and joins non-empty filters with AND, each in parentheses.
func and(fs ...string) string {
	var parts []string
	for _, f := range fs {
		if f = strings.TrimSpace(f); f != "" && f != "*" {
			parts = append(parts, "("+f+")")
		}
	}
	return strings.Join(parts, " AND ")
}

// newestFirst sorts rows as every studio list is: newest first, then by
// machine and ID, so that pages follow each other without gaps.
const newestFirst = "sort by (_time desc, machine desc, revision desc, id desc, seq desc)"
