package mcptools

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// budgetArg is the maxBytes argument every read tool takes: the most
// bytes its whole answer may take, counted as the tools/call result is
// serialized (the text block and structuredContent together). Embed it in
// a tool's arguments.
type budgetArg struct {
	MaxBytes int `json:"maxBytes,omitempty" jsonschema:"answer size cap in bytes (default 32768)"`
}

// tailBudgetArg is budgetArg for console_tail, whose default is
// DefaultTailBudget.
type tailBudgetArg struct {
	MaxBytes int `json:"maxBytes,omitempty" jsonschema:"answer size cap in bytes (default 16384)"`
}

// bytes is the budget asked for, or DefaultTailBudget, within [MinBudget,
// MaxBudget].
func (b tailBudgetArg) bytes() int { return budgetArg(b).bytes(DefaultTailBudget) }

// bytes is the budget asked for, or def, within [MinBudget, MaxBudget].
func (b budgetArg) bytes(def int) int {
	if b.MaxBytes <= 0 {
		return def
	}
	return min(max(b.MaxBytes, MinBudget), MaxBudget)
}

// formatArg is the format argument of the tools whose text block holds
// every entry (console_tail, get_logs, search_logs). By default each
// record is sent once: its line in the text block (what an agent's client
// shows the model), while structuredContent carries the answer's cursors
// and counts without the entries, which the output schema leaves optional.
// format "json" adds the entries to structuredContent, for programs.
type formatArg struct {
	Format string `json:"format,omitempty" jsonschema:"json: structured entries too"`
}

// lean reports whether the answer leaves its entries out of
// structuredContent; a format other than "", "text" and "json" is an
// argument error.
func (a formatArg) lean() (bool, error) {
	switch a.Format {
	case "", "text":
		return true, nil
	case "json":
		return false, nil
	}
	return false, argError("format", "text (the default: entries as lines of the text block) or json (in structuredContent too)")
}

// texter is an answer that writes its own text block: what a person or a
// model reads best (one line per record), not the JSON again, which
// structuredContent carries. An answer without it is sent as JSON text.
type texter interface {
	text() string
}

// result is the tools/call result of out, as addTool sends it.
// structuredContent is out itself, not its JSON: the SDK marshals the
// result with encoding/json, which compacts a json.RawMessage again byte by
// byte, while a value is encoded once.
func result(out any) (*mcp.CallToolResult, error) {
	if a, ok := out.(alternate); ok && a.alternate() != nil {
		out = a.alternate()
	}
	if t, ok := out.(texter); ok {
		return &mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{&mcp.TextContent{Text: t.text()}}}, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
}

// resultSize is the serialized size of out's tools/call result, with room
// for what protocol 2026-07-28 adds to every result (modernSlack).
func resultSize(out any) int {
	res, err := result(out)
	if err != nil {
		return 0
	}
	b, _ := json.Marshal(res)
	return len(b) + modernSlack
}

// modernSlack is what the go-sdk adds to each result under protocol
// 2026-07-28: "resultType":"complete" and the server's identity in _meta
// (about 130 bytes with a version of up to 60 characters).
const modernSlack = 192

// fitter decides how many entries of a list fit a budget. It starts from
// the size of the answer without entries and adds, for each entry, its
// JSON and its text line as they will be serialized (escapes included).
type fitter struct {
	limit, used, n int
	lean           bool // the entries are in the text block alone (see formatArg)
}

// newFitter starts with empty, the answer without entries (with its
// header text: the more, lastId and the like it will carry, at their
// longest).
func newFitter(budget int, empty any) *fitter {
	return &fitter{limit: budget, used: resultSize(empty) + fitSlack}
}

// fitSlack covers what an answer's fixed part may grow by once entries are
// kept (a cursor, larger numbers).
const fitSlack = 256

// fits reports whether entry (with its text line) still fits, and counts
// it if so. The first entry always fits: an answer makes progress whatever
// the budget (MinBudget holds the largest entry a list can have).
func (f *fitter) fits(entry any, line string) bool {
	return f.fitsText(entry, jsonStringLen(line)+len(`\n`))
}

// fitsText is fits for an entry whose lines take text bytes inside the
// text block's quotes (escapes and line ends included).
func (f *fitter) fitsText(entry any, text int) bool {
	n := text
	if !f.lean {
		b, err := json.Marshal(entry)
		if err != nil {
			return false
		}
		n += len(b) + 1 // a comma between entries
	}
	if f.n > 0 && f.used+n > f.limit {
		return false
	}
	f.used += n
	f.n++
	return true
}

// jsonStringLen is the length of s as json.Marshal writes it inside the
// quotes: HTML characters and control bytes escaped, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func jsonStringLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += int(asciiJSONLen[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// asciiJSONLen is the length of each ASCII byte as json.Marshal writes it
// inside a string's quotes.
var asciiJSONLen = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '\\' || c == '"' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			t[c] = 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			t[c] = 6
		default:
			t[c] = 1
		}
	}
	return t
}()

// lines joins a text block: a header line, then one line per entry.
func lines(header string, entries []string) string {
	var b strings.Builder
	n := len(header)
	for _, e := range entries {
		n += 1 + len(e)
	}
	b.Grow(n)
	b.WriteString(header)
	for _, e := range entries {
		b.WriteByte('\n')
		b.WriteString(e)
	}
	return b.String()
}
