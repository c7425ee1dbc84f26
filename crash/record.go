package crash

import "github.com/mcplogd/mcplogd/oplog"

// RecordSignature returns the crash signature of r as the crash index
// groups it (an error or fatal line with a stack, or an operation that
// failed with a stack), and false when r is not a crash. The studio
// forwarder sends it with each crash, so that VictoriaLogs groups crashes
// of several machines the way find_crashes groups one machine's.
func RecordSignature(r *oplog.Record) (string, bool) {
	if r.Level < oplog.LevelError {
		return "", false
	}
	stack, message := stackOf(r), r.Text
	if r.Kind == oplog.KindOp {
		message = r.Error
	}
	if stack == "" {
		return "", false
	}
	t := Parse(stack)
	if r.Kind == oplog.KindOp && r.Stack == "" && t.NumFrames() == 0 {
		return "", false // an error message, not a stack
	}
	return t.WithHead(message).Signature(), true
}
