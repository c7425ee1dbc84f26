package studio

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
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

// searchLogsQL is q's LogsQL filter but its source (streamFilter's): its
// tree (oplog.SearchQuery.Node: the query string and the filters as
// leaves) compiled by logsQL, and its time range; "" for every record.
// The tree comes back too, for the fragments' words. Runs are a local
// notion: EINVALID; so is a tree LogsQL cannot say.
func searchLogsQL(q oplog.SearchQuery) (string, ql.Node, error) {
	if q.Runs != nil {
		return "", nil, oplog.Errorf(oplog.EINVALID, "run: runs are one machine's; studio scope takes since and until instead")
	}
	q.Source = ""
	tree, err := q.Node()
	if err != nil {
		return "", nil, err
	}
	e, err := logsQL(tree)
	if err != nil {
		return "", nil, err
	}
	return and(e, timeLogsQL(q.Since, q.Until)), tree, nil
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
