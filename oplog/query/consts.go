package query

// MaxBytes bounds a query string: longer ones are refused rather than
// parsed, so that a query's cost has a ceiling.
const MaxBytes = 4096

// MaxFuzzy is the most edits a fuzzy word (word~2) allows.
const MaxFuzzy = 2

// TimeField is the field of time ranges: the record's time.
const TimeField = "time"

// TemplateField is the field of a record's message template: the ID (12
// hex digits) of what remains of its message once numbers, hex values,
// UUIDs, IP addresses, paths and quoted strings are blanked (see
// oplog.Template). It matches exactly, as name does; a record without a
// message has none.
const TemplateField = "template"

// Fields are the fields a query can name, in the order errors list them;
// message and msg are other names of text.
var Fields = []string{"text", "stack", "name", "level", "source", "kind", "tool", "status", "replayOf", "run", TemplateField, TimeField}

// TextFields are the fields of words; a leaf without a field searches both.
var TextFields = []string{"text", "stack"}

// Folds reports whether field's values are matched regardless of case by
// patterns (prefixes, wildcards and regular expressions): the words of text
// and stack, which are lower-cased, and the lower-case values of level,
// kind and status. Name, source, tool, replayOf and run match exactly.
func Folds(field string) bool {
	switch field {
	case "", "text", "stack", "level", "kind", "status":
		return true
	}
	return false
}
