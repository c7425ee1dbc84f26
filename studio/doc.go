// Package studio connects one machine's log to a studio's VictoriaLogs
// (a single node, or the front of a cluster of storage nodes): the
// forwarder sends every record there (forward*.go, vlclient*.go), and
// studio-scope queries read every machine's records back (query*.go).
//
//	f, err := studio.Forward(log, studio.ForwardOptions{URL: "http://vl:9428",
//		Project: "mygame", Machine: "ci-3", StatePath: "data/studio-forward.json"})
//	defer f.Close()
//
// # The schema
//
// Each record is one JSON line of /insert/jsonline with the stream fields
// project, machine and source, and the fields _msg (the text), _time (the
// record's time), id (the local record ID), seq (the machine's forwarding
// sequence: +1 for every row sent), revision (the local store's
// generation), kind, level, name, stack, signature (crash signature),
// tool, status, run, template and template_text (the ID of the record's
// template, oplog.RecordTemplateID, and the template itself; rows forwarded
// by versions before them lack both, and rows are immutable) and data.*
// (the record's data, flattened). An
// operation sent while pending gets a second row, with the same id and a
// new seq, once it completes: readers take the newest row per (machine,
// revision, id). Lines have exactly one row.
//
// # Nothing lost, nothing twice
//
// The forwarder never sits on the append path: it wakes on the log's
// Changed channel and reads the store after its own position, and it
// stays out of local bursts (it starts sending once appends pause for
// Quiet, or once the oldest record not sent has waited MaxDelay). Before each
// insert it saves the batch (its first seq, the completions and the run of
// record IDs it carries) in the state file, and after VictoriaLogs'
// 2xx it saves the new position. A batch whose answer was lost (a kill -9,
// a timeout) counts as sent; reconciliation settles it. Settle after an
// acknowledgement (VictoriaLogs buffers rows for a second and writes them
// to disk every five; a storage node killed before that loses them), the
// forwarder asks VictoriaLogs how many rows of this project, machine and
// revision it holds per range of seqs past the last reconciled point, lists
// the seqs of a range that falls short, and sends exactly the missing rows
// again, each with its own seq; batches found whole leave the journal.
// While a storage node is down the queries fail (no partial answers), so
// reconciliation waits for it to come back; inserts go on meanwhile. A
// state file that is gone (a fresh state) continues after the highest seq
// and record ID VictoriaLogs holds of the machine.
//
// Records older than VictoriaLogs' -retentionPeriod (read from its /flags)
// are not sent and are counted (TooOld); records retention removed before
// they were sent (only the --max-bytes limit may do that, see Hold) are
// counted as Lost and logged.
//
// # Studio scope
//
// Client (query*.go) implements oplog.Studio, the tools' scope "studio",
// with LogsQL over /select/logsql/query: the tree oplog.Resolve parsed,
// the filters ANDed to it as leaves (oplog.SearchQuery.Node), compiled to
// LogsQL (logsql.go; what LogsQL cannot say the same way is an error), the
// project, machine and source as stream filters, lists newest first
// with an offset cursor, and an operation's newest row kept (the rows of a
// page are checked against max(seq) per (machine, revision, id)); crashes
// are one stats query by (signature, machine), summed per signature.
package studio
