package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioLines stands between a stdio client and the SDK's IOTransport, which
// ends the whole session on a line it cannot read and, at the end of
// input, drops the requests still being answered. Here each line is
// checked first: a line that is not JSON gets -32700, one that is not a
// JSON-RPC message -32600, both for that line only, and the session goes
// on. At the end of input the SDK's reader is closed only once every
// request read has been answered (or cancelled by the client), so
// `printf '...' | mcplogd stdio` answers every request it sent.
type stdioLines struct {
	out io.Writer // the client's end: every write is one whole line

	writeMu sync.Mutex // one line at a time on out

	initialized bool // an initialize was read (feed's goroutine only)

	mu      sync.Mutex
	pending map[string]int // requests read and not yet answered, by ID
	settled chan struct{}  // signalled when pending may have become empty
}

func newStdioLines(out io.Writer) *stdioLines {
	return &stdioLines{out: out, pending: map[string]int{}, settled: make(chan struct{}, 1)}
}

// transport returns the IOTransport the SDK serves over: it reads what
// feed lets through and writes through l.
func (l *stdioLines) transport(r io.ReadCloser) *mcp.IOTransport {
	return &mcp.IOTransport{Reader: r, Writer: lineWriter{l}}
}

// feed copies in to w line by line, answering bad lines itself, until the
// end of input; then it waits until every request read is answered (or
// ctx ends) and closes w, which ends the SDK's session normally.
func (l *stdioLines) feed(ctx context.Context, in io.Reader, w *io.PipeWriter) {
	defer w.Close()
	br := bufio.NewReaderSize(in, 64<<10)
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br, mcp.DefaultMaxLineLength)
		if tooLong {
			l.reply(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: line %d is longer than %d bytes", n, mcp.DefaultMaxLineLength))
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 && l.check(n, msg) {
			if _, werr := w.Write(append(msg, '\n')); werr != nil {
				return // the session ended
			}
		}
		if err != nil {
			break // io.EOF, or stdin failed: the same end of input
		}
	}
	for !l.idle() {
		select {
		case <-l.settled:
		case <-ctx.Done():
			return
		}
	}
}

// readLine reads one line without its newline. A line over limit bytes is
// skipped to its end and reported as tooLong. err is set at the end of
// input, with the last line (if it had no newline) in line.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > limit+2 {
				tooLong, line = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check reports whether msg, line n of the input, may go to the SDK,
// answering it here when not, and counts a request as pending.
func (l *stdioLines) check(n int, msg []byte) bool {
	if !json.Valid(msg) {
		var v any
		err := json.Unmarshal(msg, &v)
		l.reply(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: line %d is not JSON: %v", n, err))
		return false
	}
	if msg[0] == '[' {
		l.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d is a JSON-RPC batch; send one message per line", n))
		return false
	}
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(msg, &probe)
		l.reply(probe.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d: %v", n, err))
		return false
	}
	req, ok := m.(*jsonrpc.Request)
	if ok && req.Method == "initialize" {
		l.initialized = true
	}
	switch {
	case !ok:
	case req.IsCall() && !l.initialized && needsSession(req):
		l.reply(rawID(req), jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d: %s before initialize: send initialize first "+
			"(then notifications/initialized), or name the 2026-07-28 protocol in the request's _meta (%s, with clientCapabilities); "+
			"server/discover lists the versions", n, req.Method, metaVersion))
		return false
	case req.IsCall():
		l.count(idKey(req.ID), 1)
	case req.Method == "notifications/cancelled":
		// A cancelled request may never be answered: stop waiting for it.
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				l.count(idKey(id), -1)
			}
		}
	}
	return true
}

// idKey tells IDs apart by type as well as value (1 and "1" differ).
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func (l *stdioLines) count(key string, d int) {
	l.mu.Lock()
	if l.pending[key] += d; l.pending[key] <= 0 {
		delete(l.pending, key)
	}
	l.mu.Unlock()
	if d < 0 {
		select {
		case l.settled <- struct{}{}:
		default:
		}
	}
}

func (l *stdioLines) idle() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending) == 0
}

// reply writes an error answer for a line the SDK never sees; a nil id is
// written as null.
func (l *stdioLines) reply(id json.RawMessage, code int64, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	_, _ = l.write(append(b, '\n'))
}

func (l *stdioLines) write(b []byte) (int, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return l.out.Write(b)
}

// lineWriter is the SDK's writer: it passes each message on and marks a
// response's request as answered once it is written.
type lineWriter struct{ l *stdioLines }

func (w lineWriter) Write(b []byte) (int, error) {
	n, err := w.l.write(b)
	if m, derr := jsonrpc.DecodeMessage(bytes.TrimSpace(b)); derr == nil {
		if resp, ok := m.(*jsonrpc.Response); ok {
			w.l.count(idKey(resp.ID), -1)
		}
	}
	return n, err
}

func (lineWriter) Close() error { return nil }

// metaVersion is the _meta key a 2026-07-28 request names its version with.
const metaVersion = "io.modelcontextprotocol/protocolVersion"

// needsSession reports whether req may only come inside a session: not
// initialize, ping or server/discover, and without a protocol version in
// its _meta (a 2026-07-28 request needs no session). The SDK answers such
// a request with a code 0 error and logs it; here it gets a message
// saying what to send first.
func needsSession(req *jsonrpc.Request) bool {
	switch req.Method {
	case "initialize", "ping", "server/discover":
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	_, versioned := p.Meta[metaVersion]
	return !versioned
}

// rawID is req's ID as JSON, for an answer written here.
func rawID(req *jsonrpc.Request) json.RawMessage {
	b, _ := json.Marshal(req.ID.Raw())
	return b
}
