package oplog

import (
	"bytes"
	"io"
)

// UnescapeWriter undoes json.Marshal's HTML escaping in a stream of JSON
// (or of Server-Sent Events carrying JSON) on its way to W: each \u003c,
// \u003e and \u0026 escape becomes <, > and & again. It is for JSON that
// mcplogd does not marshal itself (the MCP SDK's answers); MarshalJSON
// never escapes. Only real escapes change: the \ must start an escape,
// not be an escaped backslash ("\\u003c" is kept). The output stays valid
// JSON. A sequence cut between two writes is held until the next one;
// Flush writes what is held.
type UnescapeWriter struct {
	W    io.Writer
	held []byte // the tail of the last write: a \ and fewer than 6 bytes
	out  []byte
}

// htmlEscapes are the escapes json.Marshal writes for HTML's sake.
var htmlEscapes = [...]struct {
	esc string
	c   byte
}{{`\u003c`, '<'}, {`\u003e`, '>'}, {`\u0026`, '&'}}

// Write unescapes p and writes it to W; it reports len(p) on success. A p
// with no escape to undo, and none begun at its end, goes to W as it is.
func (u *UnescapeWriter) Write(p []byte) (int, error) {
	if len(u.held) == 0 && !bytes.Contains(p, []byte(`\u00`)) {
		if i := bytes.LastIndexByte(p, '\\'); i < 0 || len(p)-i >= 6 {
			if _, err := u.W.Write(p); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	in := p
	if len(u.held) > 0 {
		in = append(u.held, p...)
		u.held = nil
	}
	out := u.out[:0]
	for len(in) > 0 {
		i := bytes.IndexByte(in, '\\')
		if i < 0 {
			out = append(out, in...)
			break
		}
		out = append(out, in[:i]...)
		in = in[i:]
		if len(in) < 6 {
			u.held = append(u.held[:0], in...)
			break
		}
		n := 2 // an escape pair: \ and the byte it escapes
		for _, e := range htmlEscapes {
			if string(in[:6]) == e.esc {
				out, n = append(out, e.c), 6
				break
			}
		}
		if n == 2 {
			out = append(out, in[:2]...)
		}
		in = in[n:]
	}
	u.out = out
	if _, err := u.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what Write held back (the start of an escape at the end of
// the last write) as it is.
func (u *UnescapeWriter) Flush() error {
	if len(u.held) == 0 {
		return nil
	}
	held := u.held
	u.held = nil
	_, err := u.W.Write(held)
	return err
}
