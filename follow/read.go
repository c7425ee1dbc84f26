package follow

import (
	"bytes"
	"io"
	"time"
)

// readSome reads from the current file up to passBytes and feeds its complete
// lines to the parser. It reports the bytes read and whether it reached the
// end of the file; an errReplaced when the file no longer holds what was
// read last.
func (f *Follower) readSome() (n int64, eof bool, err error) {
	c := f.cur
	if f.buf == nil {
		f.buf = make([]byte, chunkSize)
	}
	for n < passBytes {
		if len(f.pending) >= batchSize {
			if err := f.store(); err != nil {
				return n, false, err
			}
		}
		// The tail is read again with what follows it, in the same call:
		// bytes that are no longer there say that the file was rewritten
		// (or truncated) in place, however it began and however fast it grew.
		back := c.tailN
		k, rerr := c.f.ReadAt(f.buf, c.read-int64(back))
		if k < back || !bytes.Equal(f.buf[:back], c.tail[:back]) {
			if rerr != nil && rerr != io.EOF {
				return n, false, rerr
			}
			if k < back {
				return n, false, errReplaced("truncated")
			}
			return n, false, errReplaced("rewritten")
		}
		if k -= back; k > 0 {
			chunk := f.buf[back : back+k]
			f.readAt = time.Now()
			f.feed(chunk, c.read+int64(k))
			c.read += int64(k)
			c.keepTail(chunk)
			n += int64(k)
		}
		if rerr == io.EOF || k == 0 {
			c.size = max(c.size, c.read)
			return n, true, nil
		}
		if rerr != nil {
			return n, false, rerr
		}
	}
	c.size = max(c.size, c.read)
	return n, false, nil
}

// feed splits chunk, which ends at offset end, into lines.
func (f *Follower) feed(chunk []byte, end int64) {
	f.cur.lines.split(chunk, end, f.line)
}

// line hands one line, ending at offset end, to the parser.
func (f *Follower) line(b []byte, end int64) {
	f.lines.Add(1)
	f.times.read(end, f.readAt)
	f.addEntries(f.parser.Line(cleanLine(b), end))
}

func (f *Follower) addEntries(es []Entry) {
	c := f.cur
	for _, e := range es {
		f.times.stamp(&e)
		f.pending = append(f.pending, pendingEntry{rec: e.Record, end: e.End, path: c.pathJSON, id: c.id})
	}
}
