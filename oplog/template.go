package oplog

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Placeholders a message template puts where its message had a value.
const (
	TemplateNumber = "<N>"    // a decimal number: 42, -3.5, 1e9
	TemplateHex    = "<HEX>"  // 0x1f, or a run of 8 or more hex digits with a digit and a letter
	TemplateUUID   = "<UUID>" // 8-4-4-4-12 hex digits
	TemplateIP     = "<IP>"   // an IPv4 address, with its port if it has one
	TemplatePath   = "<PATH>" // a file path or URL: /a/b, C:\a\b, res://a/b.gd:12, ./a/b
	TemplateString = "<S>"    // what a pair of quotes holds ("…" or '…')
)

// Limits of message templates.
const (
	// MaxTemplateInput is how much of a message's first line a template
	// reads, in bytes; the rest is left out of the template.
	MaxTemplateInput = 1024
	// maxQuoted is the longest quoted value, in bytes, that a template
	// blanks; a longer "quote" is more likely prose with a stray mark.
	maxQuoted = 256
)

// Template reduces a message to its template: the first line of text
// (at most MaxTemplateInput bytes, and so is the template), white space
// folded, with numbers, hex
// values, UUIDs, IP addresses, paths and quoted strings replaced by the
// placeholders above. It is a function of the text alone, so the same
// message gives the same template on every machine, run and version of
// the store: "Snapshot 1234 sent to peer 10.0.0.7:7777" and "Snapshot 9
// sent to peer 10.0.0.9:7777" are both "Snapshot <N> sent to peer <IP>".
// Words that hold digits keep their letters ("Enemy_42" is "Enemy_<N>").
func Template(text string) string {
	if len(text) > MaxTemplateInput+1 {
		// not a newline to look for past here: the first line is cut to
		// MaxTemplateInput below, which reads the byte after
		text = text[:MaxTemplateInput+1]
	}
	if i := strings.IndexAny(text, "\r\n"); i >= 0 {
		text = text[:i]
	}
	if len(text) > MaxTemplateInput {
		text = ClipBytes(text, MaxTemplateInput)
	}
	var b strings.Builder
	b.Grow(len(text))
	first := true
	for field := range strings.FieldsSeq(text) {
		if !first {
			b.WriteByte(' ')
		}
		first = false
		templateWord(&b, field)
	}
	return ClipBytes(blankQuotes(b.String()), MaxTemplateInput)
}

// TemplateID is the template's identifier: 12 hex digits of its 64-bit
// FNV-1a hash, the same wherever it is computed.
func TemplateID(template string) string {
	const offset64, prime64 = 14695981039346656037, 1099511628211 // hash/fnv's
	h := uint64(offset64)
	for i := 0; i < len(template); i++ {
		h ^= uint64(template[i])
		h *= prime64
	}
	h >>= 16 // 48 bits: 12 hex digits
	var id [TemplateIDLen]byte
	for i := len(id) - 1; i >= 0; i-- {
		id[i] = "0123456789abcdef"[h&0xf]
		h >>= 4
	}
	return string(id[:])
}

// templateWord writes one white-space-separated word with its values
// replaced: a word that is a path or an address as a whole is one
// placeholder (punctuation around it kept), else each number and hex
// value in it is.
func templateWord(b *strings.Builder, w string) {
	if len(w) < 36 && !hasValueByte(w) {
		// most words: no digit (numbers, hex values and IP addresses have
		// one), no slash (paths have one), too short for a UUID of letters
		b.WriteString(w)
		return
	}
	lead := 0
	for lead < len(w) && strings.IndexByte("([{<\"'", w[lead]) >= 0 {
		lead++
	}
	end := len(w)
	for end > lead && strings.IndexByte(")]}>,;:.!?\"'", w[end-1]) >= 0 {
		end--
	}
	core, trail := w[lead:end], w[end:]
	if core != "" {
		switch {
		case isPath(core):
			b.WriteString(w[:lead] + TemplatePath + trail)
			return
		case isIPv4(core):
			b.WriteString(w[:lead] + TemplateIP + trail)
			return
		}
	}
	if len(w) < 36 && !hasDigit(w) {
		// a slash but no path: no number, no hex value (which holds a
		// digit), too short for a UUID of letters
		b.WriteString(w)
		return
	}
	for i := 0; i < len(w); {
		if n := uuidAt(w, i); n > 0 {
			b.WriteString(TemplateUUID)
			i += n
			continue
		}
		if n := hexAt(w, i); n > 0 {
			b.WriteString(TemplateHex)
			i += n
			continue
		}
		if n := numberAt(w, i); n > 0 {
			b.WriteString(TemplateNumber)
			i += n
			continue
		}
		_, size := utf8.DecodeRuneInString(w[i:])
		b.WriteString(w[i : i+size])
		i += size
	}
}

// isPath reports whether w is a file path or a URL: it has a scheme
// ("res://", "https://"), starts like an absolute or relative path, or
// holds two separators or more.
func isPath(w string) bool {
	if strings.Contains(w, "://") {
		return true
	}
	if strings.HasPrefix(w, "/") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") || strings.HasPrefix(w, "~/") {
		return len(w) > 1
	}
	if len(w) > 2 && w[1] == ':' && (w[2] == '\\' || w[2] == '/') && isLetter(w[0]) {
		return true // C:\Users\…
	}
	return strings.Count(w, "/")+strings.Count(w, "\\") >= 2
}

// isIPv4 reports whether w is an IPv4 address, with an optional :port.
func isIPv4(w string) bool {
	if i := strings.LastIndexByte(w, ':'); i > 0 {
		if !allDigits(w[i+1:]) {
			return false
		}
		w = w[:i]
	}
	for part := range 4 { // without strings.Split: every word comes here
		p := w
		if j := strings.IndexByte(w, '.'); part < 3 && j >= 0 {
			p, w = w[:j], w[j+1:]
		} else if part < 3 || j >= 0 {
			return false
		}
		if len(p) == 0 || len(p) > 3 || !allDigits(p) {
			return false
		}
	}
	return true
}

// uuidAt is the length of the UUID at w[i:], 0 when there is none.
func uuidAt(w string, i int) int {
	const n = 36
	if i+n > len(w) || (i > 0 && isWordByte(w[i-1])) || (i+n < len(w) && isWordByte(w[i+n])) {
		return 0
	}
	for j := 0; j < n; j++ {
		c := w[i+j]
		if j == 8 || j == 13 || j == 18 || j == 23 {
			if c != '-' {
				return 0
			}
		} else if !isHexDigit(c) {
			return 0
		}
	}
	return n
}

// hexAt is the length of the hex value at w[i:]: 0x and hex digits, or a
// run of 8 or more hex digits, with a digit and a letter, that is a word
// of its own. 0 when there is none.
func hexAt(w string, i int) int {
	if i > 0 && isLetterOrDigit(w[i-1]) {
		return 0
	}
	if strings.HasPrefix(w[i:], "0x") || strings.HasPrefix(w[i:], "0X") {
		j := i + 2
		for j < len(w) && isHexDigit(w[j]) {
			j++
		}
		if j > i+2 {
			return j - i
		}
		return 0
	}
	j, digit, letter := i, false, false
	for j < len(w) && isHexDigit(w[j]) {
		digit = digit || w[j] <= '9'
		letter = letter || w[j] > '9'
		j++
	}
	if j-i < 8 || !digit || !letter || (j < len(w) && isLetterOrDigit(w[j])) {
		return 0
	}
	return j - i
}

// numberAt is the length of the decimal number at w[i:] (a sign when
// nothing word-like precedes it, digits, a fraction, an exponent), 0
// when there is none.
func numberAt(w string, i int) int {
	j := i
	if j < len(w) && (w[j] == '-' || w[j] == '+') && (j == 0 || !isLetterOrDigit(w[j-1])) {
		j++
	}
	start := j
	for j < len(w) && isDigit(w[j]) {
		j++
	}
	if j == start {
		return 0
	}
	if j+1 < len(w) && w[j] == '.' && isDigit(w[j+1]) {
		j++
		for j < len(w) && isDigit(w[j]) {
			j++
		}
	}
	if j+1 < len(w) && (w[j] == 'e' || w[j] == 'E') {
		k := j + 1
		if k < len(w) && (w[k] == '-' || w[k] == '+') {
			k++
		}
		if k < len(w) && isDigit(w[k]) && (k+1 == len(w) || !isLetter(w[k+1])) {
			for k < len(w) && isDigit(w[k]) {
				k++
			}
			j = k
		}
	}
	return j - i
}

// blankQuotes replaces what a pair of quotes holds by TemplateString,
// when the opening quote starts a value (not the apostrophe of "don't")
// and the pair closes within maxQuoted bytes.
func blankQuotes(s string) string {
	if !strings.ContainsAny(s, "\"'") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == '"' || c == '\'') && (i == 0 || !isLetterOrDigit(s[i-1])) {
			if j := strings.IndexByte(s[i+1:], c); j >= 0 && j <= maxQuoted {
				end := i + 1 + j
				if end+1 == len(s) || !isLetterOrDigit(s[end+1]) {
					b.WriteByte(c)
					b.WriteString(TemplateString)
					b.WriteByte(c)
					i = end
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isDigit(c byte) bool         { return '0' <= c && c <= '9' }
func isLetter(c byte) bool        { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isLetterOrDigit(c byte) bool { return isDigit(c) || isLetter(c) }
func isWordByte(c byte) bool      { return isLetterOrDigit(c) || c == '_' || c >= utf8.RuneSelf }
func isHexDigit(c byte) bool      { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

// hasValueByte reports whether s holds a digit, a slash or a backslash:
// a byte without which a word holds no value that a template replaces
// but a UUID of letters.
func hasValueByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; isDigit(c) || c == '/' || c == '\\' {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// TemplateIDLen is the length of a TemplateID: 12 lower-case hex digits.
const TemplateIDLen = 12

// OpTemplate is an operation's template, its call shape: the tool and the
// names of its arguments' top-level fields, sorted, each object among
// them with its own fields' names, values blanked:
// spawn_enemy {"count": 500} and {"count": 250} are both
// "spawn_enemy {count}", {"kind": "boss", "pos": {"x": 1, "y": 2}} is
// "spawn_enemy {kind, pos: {x, y}}". Arguments that are no object keep
// Template's blanking ("teleport [<N>,<N>]"); none give the tool alone.
// Names are cut to maxShapeName bytes, and a shape names no more fields
// past maxShapeBytes: "…" stands for the rest.
func OpTemplate(tool string, args json.RawMessage) string {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return tool
	}
	if args[0] != '{' {
		var b bytes.Buffer
		if json.Compact(&b, args) != nil {
			return tool
		}
		return ClipBytes(tool+" "+Template(b.String()), MaxTemplateInput)
	}
	var b strings.Builder
	b.WriteString(tool)
	b.WriteByte(' ')
	if !writeShape(&b, args, 1) {
		return tool
	}
	return ClipBytes(b.String(), MaxTemplateInput)
}

// Limits of call shapes (OpTemplate): a shape is read at a glance.
const (
	maxShapeName   = 32  // bytes of an argument's name
	maxShapeFields = 16  // fields of an object named, the rest "…"
	maxShapeBytes  = 160 // no name starts past this many bytes: "…"
)

// writeShape writes the JSON object obj as a shape: "{a, b: {c}}", with
// depth more levels of objects in it named; false when obj is no object.
func writeShape(b *strings.Builder, obj json.RawMessage, depth int) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(obj, &fields) != nil || fields == nil {
		return false
	}
	b.WriteByte('{')
	for i, n := range slices.Sorted(maps.Keys(fields)) {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == maxShapeFields || b.Len() >= maxShapeBytes {
			b.WriteString("…")
			break
		}
		b.WriteString(oneLineName(ClipBytes(n, maxShapeName)))
		if v := bytes.TrimSpace(fields[n]); depth > 0 && len(v) > 0 && v[0] == '{' {
			b.WriteString(": ")
			writeShape(b, v, depth-1)
		}
	}
	b.WriteByte('}')
	return true
}

// oneLineName is an argument's name with its line breaks and tabs as
// spaces: a shape is one line.
func oneLineName(n string) string {
	if !strings.ContainsAny(n, "\r\n\t") {
		return n
	}
	return strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(n)
}

// RecordTemplate is r's template: an operation's call shape (OpTemplate),
// any other record's message template (Template of its text).
func RecordTemplate(r *Record) string {
	if r.Kind == KindOp {
		return OpTemplate(r.Tool, r.Arguments)
	}
	return Template(r.Text)
}

// RecordTemplateID is the ID of r's template, TemplateID(RecordTemplate(r)):
// what the index, the query language's template field and the digests give
// r. It is "" when the template is empty: such a record has no template.
func RecordTemplateID(r *Record) string {
	if r.Kind != KindOp {
		return TextTemplateID(r.Text)
	}
	if t := RecordTemplate(r); t != "" {
		return TemplateID(t)
	}
	return ""
}

// TextTemplateID is the ID of text's template, TemplateID(Template(text)):
// what the index, the query language's template field and the studio's
// rows give a line or marker with text as its message (an operation's
// is its call shape's: RecordTemplateID). It is "" when the template
// is empty (a message of white space or none): such a record has no
// template.
func TextTemplateID(text string) string {
	t := Template(text)
	if t == "" {
		return ""
	}
	return TemplateID(t)
}

// IsTemplateID reports whether s is spelled as a TemplateID is: 12
// lower-case hex digits.
func IsTemplateID(s string) bool {
	if len(s) != TemplateIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return true
}
