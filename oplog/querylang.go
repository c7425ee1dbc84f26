package oplog

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// The values of level, kind and status in the query language are the
// domain's: a query takes the spellings oplog parses (level:Warning,
// level:exception, kind:operation, status:ok), in any case, and "any" or
// "all" (kind) or "" for every record, as their filters do; another value
// is an error that lists the valid ones, where a term that matches nothing
// would silently find nothing. A prefix, wildcard or regular expression on
// them ignores case (ql.Folds) and must match one of their values.

// fixedField is a field of the language with a fixed set of values.
type fixedField struct {
	// parse spells a value as it is stored ("" for any), or fails with
	// the error listing the values.
	parse  func(v string) (string, error)
	values []string // as stored
}

var fixedFields = map[string]fixedField{
	"level": {
		parse:  func(v string) (string, error) { l, err := ParseLevel(v); return l.String(), err },
		values: valueNames(func(i int) string { return Level(i).String() }),
	},
	"kind": {
		parse:  func(v string) (string, error) { k, err := ParseKind(v); return k.String(), err },
		values: valueNames(func(i int) string { return Kind(i).String() }),
	},
	"status": {
		parse:  func(v string) (string, error) { s, err := ParseStatus(v); return s.String(), err },
		values: valueNames(func(i int) string { return Status(i).String() }),
	},
}

// valueNames returns name(1), name(2)... up to the first empty one.
func valueNames(name func(i int) string) []string {
	var vs []string
	for i := 1; i < 256 && name(i) != ""; i++ {
		vs = append(vs, name(i))
	}
	return vs
}

// ParseQuery parses query string s (package query; surrounding spaces
// ignored, "" matches everything; words and phrases of only stop words left
// out, and a query of nothing else an error naming them) and checks the
// values of level, kind and status: each word or phrase is spelled as stored (level:Warning is
// level:warn), a value meaning any becomes ql.All, and a value these
// fields do not have is an error pointing at it. Every error is EINVALID,
// its message the language's (with the character and a caret where it
// points); the *ql.Error is in its chain.
func ParseQuery(s string) (ql.Node, error) {
	n, err := ql.Parse(s)
	if err == nil {
		n, err = ql.Map(n, func(leaf ql.Node) (ql.Node, error) { return checkValue(strings.TrimSpace(s), leaf) })
	}
	var qe *ql.Error
	if errors.As(err, &qe) {
		return nil, &Error{Code: EINVALID, Message: qe.Error(), Err: qe}
	}
	return n, err
}

// checkValue checks and spells a leaf's value on a field with a fixed set
// of values; other leaves as they are.
func checkValue(s string, leaf ql.Node) (ql.Node, error) {
	field, _ := ql.Field(leaf)
	if field == ql.TemplateField {
		return checkTemplate(s, leaf)
	}
	f, ok := fixedFields[field]
	if !ok {
		return leaf, nil
	}
	var pattern string // a regular expression matching whole values
	var at ql.Pos
	switch n := leaf.(type) {
	case *ql.Term:
		if n.Fuzzy != 0 {
			return leaf, nil // as written
		}
		return f.spell(s, n.Pos, n.Text, func(v string) ql.Node { return &ql.Term{Field: field, Text: v, Pos: n.Pos} })
	case *ql.Phrase: // one value, spaces and all
		return f.spell(s, n.Pos, n.Text, func(v string) ql.Node { return &ql.Phrase{Field: field, Text: v, Pos: n.Pos} })
	case *ql.Prefix:
		pattern, at = regexp.QuoteMeta(strings.ToLower(n.Prefix))+".*", n.Pos
	case *ql.Wildcard:
		pattern, at = ql.WildcardRegexp(strings.ToLower(n.Pattern)), n.Pos
	case *ql.Regexp:
		pattern, at = "(?i)"+n.Pattern, n.Pos
	case *ql.NumberRange:
		return nil, f.bad(s, field, n.Pos)
	case *ql.TimeRange:
		return nil, f.bad(s, field, n.Pos)
	default:
		return leaf, nil
	}
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return nil, ql.BadValue(s, at.At, err.Error())
	}
	for _, v := range f.values {
		if re.MatchString(v) {
			return leaf, nil
		}
	}
	return nil, f.bad(s, field, at)
}

// spell returns the leaf mk builds for v spelled as stored, ql.All for
// any, or a bad value error.
func (f fixedField) spell(s string, at ql.Pos, v string, mk func(v string) ql.Node) (ql.Node, error) {
	canon, err := f.parse(v)
	switch {
	case err != nil:
		return nil, ql.BadValue(s, at.At, ErrorMessage(err))
	case canon == "":
		return &ql.All{}, nil
	}
	return mk(canon), nil
}

// bad is the error of a value that matches none of field's: oplog's
// parse error for the value as written, or the list of values.
func (f fixedField) bad(s, field string, at ql.Pos) error {
	if _, err := f.parse(at.Raw); err != nil {
		return ql.BadValue(s, at.At, ErrorMessage(err))
	}
	return ql.BadValue(s, at.At, fmt.Sprintf("%s is one of %s", field, strings.Join(f.values, ", ")))
}

// checkTemplate checks a leaf on the template field: a word or phrase is
// a TemplateID (any case; spelled lower-case), a prefix a start of one, a
// lone * any template; other wildcards, regular expressions and ranges
// are refused (the index holds a template's first digits: a pattern that
// does not start with them would read every record).
func checkTemplate(s string, leaf ql.Node) (ql.Node, error) {
	bad := func(at ql.Pos) error {
		return ql.BadValue(s, at.At, fmt.Sprintf("%s takes a template ID, %d hex digits (%s:3f2a9c1b7d0e), or the start of one (%s:3f2a*), not %q",
			ql.TemplateField, TemplateIDLen, ql.TemplateField, ql.TemplateField, at.Raw))
	}
	switch n := leaf.(type) {
	case *ql.Term:
		if v := strings.ToLower(n.Text); n.Fuzzy == 0 && IsTemplateID(v) {
			return &ql.Term{Field: n.Field, Text: v, Pos: n.Pos}, nil
		}
		return nil, bad(n.Pos)
	case *ql.Phrase:
		if v := strings.ToLower(n.Text); IsTemplateID(v) {
			return &ql.Term{Field: n.Field, Text: v, Pos: n.Pos}, nil
		}
		return nil, bad(n.Pos)
	case *ql.Prefix:
		v := strings.ToLower(n.Prefix)
		if len(v) <= TemplateIDLen && IsTemplateID(v+strings.Repeat("0", TemplateIDLen-len(v))) {
			return &ql.Prefix{Field: n.Field, Prefix: v, Pos: n.Pos}, nil
		}
		return nil, bad(n.Pos)
	case *ql.Wildcard:
		if strings.Trim(n.Pattern, "*") == "" {
			return &ql.Prefix{Field: n.Field, Prefix: "", Pos: n.Pos}, nil
		}
		return nil, bad(n.Pos)
	case *ql.Regexp:
		return nil, bad(n.Pos)
	case *ql.NumberRange:
		return nil, bad(n.Pos)
	case *ql.TimeRange:
		return nil, bad(n.Pos)
	}
	return leaf, nil
}
