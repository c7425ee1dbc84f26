package crash

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// isCompile reports a compiler's or script parser's diagnostic, which
// find_crashes keeps apart (oplog.ClassCompile): Unity's C# compiler
// ("Assets/Player.cs(12,5): error CS1002: ; expected", its records named
// "compiler"), rustc and cargo ("error[E0308]: mismatched types"), Godot's
// script parser ("Parse Error: ...", "SCRIPT ERROR: Parse Error"),
// javac ("Foo.java:12: error: ...").
func isCompile(r *oplog.Record) bool {
	text := r.Text
	if r.Kind == oplog.KindOp {
		text = r.Error
	}
	return IsCompile(r.Name, text)
}

// IsCompile reports whether a record of this name and text is a compiler's
// diagnostic, as the index classes its groups (for the studio's).
func IsCompile(name, text string) bool {
	if name == "compiler" {
		return true
	}
	line, _, _ := strings.Cut(text, "\n")
	switch {
	case codeAfter(line, "error CS"), codeAfter(line, "warning CS"), codeAfter(line, "error[E"):
		return true
	case strings.HasPrefix(line, "Parse Error: "), strings.Contains(line, "SCRIPT ERROR: Parse Error"),
		strings.Contains(line, "Compile Error: "):
		return true
	case strings.Contains(line, ".java:") && strings.Contains(line, ": error: "):
		return true
	}
	return false
}

// codeAfter reports whether s has prefix followed by a digit: "error CS1002".
func codeAfter(s, prefix string) bool {
	i := strings.Index(s, prefix)
	return i >= 0 && i+len(prefix) < len(s) && isDigit(s[i+len(prefix)])
}
