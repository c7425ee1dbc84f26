package otlp

import (
	"bytes"
	"encoding/json"

	"google.golang.org/protobuf/encoding/protowire"
)

// countLogRecords counts the log records of an ExportLogsServiceRequest
// without decoding it, so that a body of many tiny log records (two bytes
// each in protobuf, three in JSON) is refused before it becomes hundreds of
// thousands of messages. A malformed body counts what was read before the
// fault: the decoder that follows words the error. A JSON body with no
// more objects than atMost is not read: it cannot hold more log records.
func countLogRecords(b []byte, asJSON bool, atMost int) int {
	if asJSON {
		if bytes.Count(b, []byte{'{'}) <= atMost {
			return 0
		}
		return countJSON(b)
	}
	n := 0
	eachField(b, 1, func(rl []byte) { // resource_logs
		eachField(rl, 2, func(sl []byte) { // scope_logs
			eachField(sl, 2, func([]byte) { n++ }) // log_records
		})
	})
	return n
}

// eachField calls f with the bytes of each length-delimited field num of
// the message b.
func eachField(b []byte, num protowire.Number, f func([]byte)) {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return
			}
			f(v)
			b = b[l:]
			continue
		}
		if l = protowire.ConsumeFieldValue(n, typ, b); l < 0 {
			return
		}
		b = b[l:]
	}
}

// countJSON counts the elements of the logRecords (or log_records) arrays
// of OTLP/JSON, streaming its tokens.
func countJSON(b []byte) int {
	type frame struct {
		array, logRecords bool   // an array; of log records
		wantKey           bool   // an object whose next string is a key
		key               string // an object's current key
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var stack []frame
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return n // io.EOF, or a fault the decoder words
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				if top != nil && top.logRecords {
					n++
				}
				stack = append(stack, frame{wantKey: true})
			case '[':
				lr := top != nil && !top.array && (top.key == "logRecords" || top.key == "log_records")
				stack = append(stack, frame{array: true, logRecords: lr})
			default: // the end of a value of the frame below
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && !stack[len(stack)-1].array {
					stack[len(stack)-1].wantKey = true
				}
			}
		case string:
			if top != nil && !top.array && top.wantKey {
				top.key, top.wantKey = t, false
				continue
			}
			if top != nil && !top.array {
				top.wantKey = true
			}
		default:
			if top != nil && !top.array {
				top.wantKey = true
			}
		}
	}
}
