package otlp

import (
	"fmt"
	"net/http"

	"github.com/mcplogd/mcplogd/oplog"
)

// budget bounds the bytes of records that one request may expand into
// (oplog.MaxExpansion times the body limit), so that the memory a request takes
// follows its size: OTLP copies the resource's and the scope's attributes
// into the data of each of their log records, and a small body of many
// empty log records under a large resource attribute would otherwise
// become gigabytes of records. Every log record is charged oplog.RecordCost, the
// attributes its scope shares (before its data is built, so a refused
// record costs no copy) and then its own bytes; the first charge over the
// budget fails the request with 413, naming what was too big.
type budget struct {
	limit, used int64
	body        int64 // the body limit, for the message
}

func newBudget(bodyLimit int64) *budget {
	return &budget{limit: oplog.MaxExpansion * bodyLimit, body: bodyLimit}
}

// count charges n log records of the request before it is decoded, at
// oplog.RecordCost each.
func (b *budget) count(n int) error {
	if int64(n)*oplog.RecordCost <= b.limit {
		return nil
	}
	return &statusError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
		"request too large once expanded: its %d log records, counted %d bytes each, are over %d bytes of records (%d × the body limit of %d bytes); send fewer log records per request",
		n, oplog.RecordCost, b.limit, oplog.MaxExpansion, b.body)}
}

// group is what every log record of one scope carries: the JSON of its
// resource's and its scope's attributes, and where they are in the request.
type group struct {
	shared  int // bytes of JSON of the resource's and the scope's attributes
	records int // log records in the scope
	ri, si  int // resourceLogs and scopeLogs index
}

// start charges a log record of g before it is built.
func (b *budget) start(g *group) error {
	return b.charge(g, oplog.RecordCost+int64(g.shared))
}

// own charges what record r of g holds apart from the shared attributes:
// its labels, text, stack and the rest of its data.
func (b *budget) own(g *group, r *oplog.Record) error {
	n := len(r.Source) + len(r.Name) + len(r.Text) + len(r.Stack) + max(len(r.Data)-g.shared, 0)
	return b.charge(g, int64(n))
}

func (b *budget) charge(g *group, n int64) error {
	if b.used += n; b.used <= b.limit {
		return nil
	}
	why := "send fewer log records per request"
	if g.shared >= 1024 {
		why = fmt.Sprintf("resourceLogs[%d].scopeLogs[%d] copies %d bytes of resource and scope attributes into each of its %d log records; send fewer log records per request, or smaller resource attributes",
			g.ri, g.si, g.shared, g.records)
	}
	return &statusError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
		"request too large once expanded: its log records take over %d bytes as records (%d × the body limit of %d bytes, counting %d bytes more for each record); %s",
		b.limit, oplog.MaxExpansion, b.body, oplog.RecordCost, why)}
}
