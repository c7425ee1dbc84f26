package query

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParse checks how the language reads AND, OR, NOT, parentheses and
// clauses.
func TestParse(t *testing.T) {
	f := func(s, want string) {
		t.Helper()
		n, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if got := String(n); got != want {
			t.Fatalf("Parse(%q) = %s, want %s", s, got, want)
		}
	}
	// Nothing to match matches everything.
	f(``, `*`)
	f(`   `, `*`)

	// Clauses are all required; AND may be written, as && too.
	f(`foo`, `foo`)
	f(`foo bar`, `and(foo bar)`)
	f("foo\tbar\nbaz", `and(foo bar baz)`)
	f(`foo AND bar`, `and(foo bar)`)
	f(`foo && bar`, `and(foo bar)`)
	f(`foo AND`, `foo`) // a trailing AND is forgiven
	f(`+foo`, `foo`)

	// OR binds looser than AND.
	f(`foo OR bar`, `or(foo bar)`)
	f(`foo || bar`, `or(foo bar)`)
	f(`d OR b OR c`, `or(d b c)`)
	f(`d b OR c`, `or(and(d b) c)`)
	f(`d OR b c`, `or(d and(b c))`)
	f(`d AND OR b`, `or(d b)`)

	// NOT, ! and - exclude.
	f(`NOT foo`, `and(not(foo))`)
	f(`! foo`, `and(not(foo))`)
	f(`!foo`, `!foo`) // ! is NOT only as a word of its own
	f(`-foo`, `and(not(foo))`)
	f(`foo -bar`, `and(foo not(bar))`)
	f(`foo NOT bar baz`, `and(foo baz not(bar))`)
	f(`foo AND NOT bar`, `and(foo not(bar))`)
	f(`foo OR NOT bar`, `or(foo and(not(bar)))`)
	f(`d -b -c`, `and(d not(b) not(c))`)

	// Parentheses group.
	f(`(foo)`, `foo`)
	f(`(d OR b) c`, `and(or(d b) c)`)
	f(`(d OR b) AND NOT c`, `and(or(d b) not(c))`)
	f(`NOT (d OR b)`, `and(not(or(d b)))`)
	f(`((d))`, `d`)
	f(`d(b)`, `and(d b)`)

	// Clauses: fields, phrases, wildcards, regexps, fuzzy, boosts, ranges;
	// quotes and backslashes keep spaces and parentheses.
	f(`name:Physics`, `name:Physics`)
	f(`message:foo msg:bar`, `and(text:foo text:bar)`)
	f(`"null reference"`, `"null reference"`)
	f(`text:"a (b) c"`, `text:"a (b) c"`)
	f(`"say \"hi\""`, `"say \"hi\""`)
	f(`Physi*`, `Physi*`)
	f(`name:Phys*`, `name:Phys*`)
	f(`te?t`, `wildcard(te?t)`)
	f(`a*b*`, `wildcard(a*b*)`)
	f(`*`, `wildcard(*)`)
	f(`a\b*`, `wildcard(a\b*)`) // a backslash before a letter stays
	f(`a\*`, `a*`)              // an escaped star is still a star
	f(`text:/ab+c/`, `text:/ab+c/`)
	f(`/d b/`, `or(/d b/)`) // a space ends a word inside a clause
	f(`x~2`, `x~2`)
	f(`x~`, `x~1`)
	f(`x~0`, `x`)
	f(`42~1`, `42~1`)
	f(`text:42~2`, `text:42~2`)
	f(`y^3`, `y`)
	f(`3`, `3`)
	f(`name:-3`, `name:-3`)
	f(`status:>=3`, `status:>=3`)
	f(`run:<2.5`, `run:<2.5`)
	f(`\(x\)`, `(x)`)
	f(`"d""b"`, `or("d" "b")`)
	f(`"d"-b`, `and("d" not(b))`)
	f(`+-d`, `and(not(d))`)
	// In a clause of several parts, or with a + or -, a part on text or
	// stack without a word is left out, as Lucene's parser leaves it out.
	f(`"x"+text:the`, `"x"`)
	f(`+text:"the"-needle`, `and(not(needle))`)
	f(`"x"+the`, `"x"`)
	f(`-"needle"+the`, `and(not("needle"))`)
	f(`time:>"2026-01-01T00:00:00Z"`, `time:>2026-01-01T00:00:00Z`)
	f(`time:<="2026-01-02"`, `time:<=2026-01-02T00:00:00Z`)
	f(`level:error AND name:Physics "null reference"`, `and(level:error name:Physics "null reference")`)
}

// TestParse_Errors checks the errors and where they point.
func TestParse_Errors(t *testing.T) {
	f := func(s, want string) {
		t.Helper()
		_, err := Parse(s)
		var qe *Error
		if !errors.As(err, &qe) {
			t.Errorf("Parse(%q): %v, want an *Error", s, err)
			return
		}
		if got := err.Error(); got != want {
			t.Errorf("Parse(%q):\n%s\nwant\n%s", s, got, want)
		}
	}
	at := func(s string, col int, kind, what string) string {
		return fmt.Sprintf("query: %s at character %d: %s\n  %s\n  %s^", kind, col, what, s, strings.Repeat(" ", col-1))
	}
	syn := func(s string, col int, what string) { t.Helper(); f(s, at(s, col, "syntax error", what)) }
	syn(`NOT NOT a`, 5, "NOT NOT")
	syn(`a NOT`, 3, "NOT needs a term after it")
	syn(`a OR`, 3, "OR needs a term after it")
	syn(`-`, 1, "'-' needs a term right after it, such as -debug; before parentheses, write NOT (debug OR trace)")
	syn(`x OR -`, 6, "'-' needs a term right after it, such as -debug; before parentheses, write NOT (debug OR trace)")
	syn(`+`, 1, "'+' needs a term right after it, such as +debug")
	syn(`---x`, 1, "'--': write one + or - before a term, such as -debug")
	syn(`OR a`, 1, "OR needs a term before it")
	syn(`AND a`, 1, "AND needs a term before it")
	syn(`a OR OR b`, 6, "OR needs a term before it")
	syn(`a OR AND b`, 6, "AND needs a term before it")
	syn(`NOT AND a`, 5, "AND needs a term before it")
	syn(`()`, 1, "empty parentheses")
	syn(`(a`, 1, "'(' is never closed")
	syn(`((a) OR b`, 1, "'(' is never closed")
	syn(`a)`, 2, "')' without a '(' before it")
	syn(`a ) b`, 3, "')' without a '(' before it")
	syn(`(a OR)`, 4, "OR needs a term after it")
	syn(`"a b`, 1, "a quote that is never closed")
	syn(`ab "cd`, 4, "a quote that is never closed")
	syn(`é (b`, 3, "'(' is never closed") // characters, not bytes
	// A field without a value says so, where the value should be, and
	// what to write.
	syn(`name:`, 6, "name: has no value; write one right after the colon, such as name:Physics")
	syn(`level: error`, 7, "level: has no value; write one right after the colon, such as level:error")
	syn(`x -msg:`, 8, "msg: has no value; write one right after the colon, such as msg:spawn")
	syn(`name::x`, 6, `name: takes one value; quote a value with a colon in it, such as name:"a:b"`)
	syn(`name:=x`, 6, `name: needs a value such as name:Physics, not '='; quote a value with special characters: name:"a=b"`)
	syn(`name:-x`, 6, `name: a value that starts with - is quoted, such as name:"-x"`)
	syn(`:x`, 1, `':' needs a field name before it, such as name:Physics; to search a colon, quote it: "a:b"`)
	syn(`>3`, 1, `'>' needs a field before it, such as time:>="2026-05-01"; to search it, quote it: "a>b"`)
	syn(`~1`, 1, `'~' needs a word before it, such as colour~1; to search a line that holds it, quote the line: "a ~ b"`)
	syn(`^2`, 1, `'^' needs a word before it, such as crash^2; to search a line that holds it, quote the line: "a ^ b"`)
	syn(`\`, 1, `a backslash escapes the character after it, and nothing follows this one; search a backslash as \\`)
	syn(`"a b"~1`, 1, "a phrase takes no fuzziness (~); write fuzzy words without quotes, such as colour~1 reference~1")
	syn(`time:>=2026-01-01`, 6, `time:>= takes a quoted time, such as time:>="2026-05-01T12:00:00Z", time:>="2026-05-01 12:00:00" or time:>="2026-05-01"`)
	syn(`run:<`, 5, `run:< takes a number, such as run:<3, or on time a quoted time, such as time:<"2026-05-01T12:00:00Z"`)
	syn(`x -\/`, 3, `this clause cannot be read; quote a phrase ("…") or escape special characters with \`)

	bad := func(s string, col int, what string) { t.Helper(); f(s, at(s, col, "bad value", what)) }
	bad(`text:/[/`, 6, `regular expression /[/: missing closing ]: [`)
	bad(`x stack:/a**/`, 9, "regular expression /a**/: invalid nested repetition operator: **")
	bad(`abc~3`, 1, "a fuzzy word allows 1 or 2 edits (word~1, word~2), not 3")
	bad(`x~y`, 1, `a fuzzy word takes a number of edits after ~ (word~1, word~2), not "y"`)
	bad(`x^y`, 1, `a boost takes a number (word^2), not "y"`)
	bad(`time:>"soon"`, 6, `time:> takes a quoted time, such as time:>"2026-05-01T12:00:00Z", time:>"2026-05-01 12:00:00" or time:>"2026-05-01", not "soon"`)

	f(`bogus:x`, `query: unknown field "bogus"; fields are text, stack, name, level, source, kind, tool, status, replayOf, run, template and time`)
	f(`time:2026`, `query: time takes a date range, such as time:>="2026-05-01T12:00:00Z"`)
	f(strings.Repeat("a", MaxBytes+1), "query: 4097 bytes is over the limit of 4096")
	f("\xff", "query: not valid UTF-8")
}

// TestParse_Pos checks where a leaf says its value was written.
func TestParse_Pos(t *testing.T) {
	n, err := Parse(`é -level:"so bad"`)
	if err != nil {
		t.Fatal(err)
	}
	p := n.(*And).Nodes[1].(*Not).Node.(*Phrase).Pos
	if p != (Pos{At: 10, Raw: `"so bad"`}) {
		t.Fatalf("Pos = %+v", p)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`level:error AND name:Physics "null reference"`, `a OR (b AND NOT c)`, `time:>"2026-01-01"`,
		`text:/ab+c/`, `x~2 y^3 -z +w`, `"unterminated`, `((a)`, `\(a\)`, `name:"a b" OR kind:op`, `a:1.5`, `status:>=3`,
		`level:bogus`, `Physi* text:/N[a-z]+Ex/ level:ERR*`, `kind:any`, `level:"warning"`, `/(a|aa)*b/`, `abc~3`, `/`,
		`a/b/ -/(x)/ name:/(y) z/`, `"a""b"-c`, `x\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		var qe *Error
		switch {
		case err != nil && !errors.As(err, &qe):
			t.Fatalf("%q: %v, want an *Error", s, err)
		case err == nil && n == nil:
			t.Fatalf("%q: no tree and no error", s)
		case err == nil:
			String(n) // every node renders
		}
	})
}

// TestParse_Pasted: an error message pasted as it was printed reads as
// its words: a word's colon after it when no value follows ("TypeError:",
// "panic:"), a file and line ("main.lua:7:", "game.c:4:14:"), a sign on
// its own between words ("2147483647 + 1"); what the language cannot read
// at all, as the message's words. A field, or a field's name in another
// case, is still read as one and named in the error.
func TestParse_Pasted(t *testing.T) {
	for s, want := range map[string]string{
		`ZeroDivisionError: division by zero`:                      `and(ZeroDivisionError division zero)`, // "by": a stop word
		`panic: runtime error`:                                     `and(panic runtime error)`,
		`main.lua:7: attempt to index field 'grass'`:               `and(and(main.lua 7) attempt index field 'grass')`,
		`game.c:4:14: runtime error: 2147483647 + 1`:               `and(and(game.c 4 14) runtime error 2147483647 1)`,
		`Assets/Player.cs:42 null`:                                 `and(and(Assets/Player.cs 42) null)`,
		`Player - joined`:                                          `and(Player joined)`,
		`src/main.rs:7:5`:                                          `and(src/main.rs 7 5)`,
		`std::out_of_range`:                                        `and(std out_of_range)`,
		`main.main()`:                                              `main.main()`,
		`at Player.Update () in Player.cs:42`:                      `and(Player.Update and(Player.cs 42))`,
		`AddressSanitizer:DEADLYSIGNAL`:                            `and(AddressSanitizer DEADLYSIGNAL)`,
		`ERROR:CRASH: CALL STACK:`:                                 `and(and(ERROR CRASH) CALL STACK)`,
		`[22:03:56] [Server thread/FATAL]: boom`:                   `and(and([22 03 56]) [Server thread/FATAL] boom)`,
		`(run with --verbose for details)`:                         `and(run verbose details)`,
		`'std::out_of_range'`:                                      `and('std out_of_range')`,
		`vector::_M_range_check: __n (which is 7) >= this->size()`: `and(vector _M_range_check __n 7 size)`,
		`bad handshake (code -32600)`:                              `and(bad handshake and(code 32600))`,
		`peer -1 refused -debug`:                                   `and(peer 1 refused not(debug))`,
		`level:error TypeError: boom`:                              `and(level:error TypeError boom)`,
		// What the language cannot read is read as the message's words.
		`Traceback (most recent call last):`:                 `and(Traceback recent call last)`,
		`at Player.Update () (at Assets/Player.cs:42)`:       `and(Player.Update and(Assets/Player.cs 42))`,
		`Assertion 'n < 64' failed.`:                         `and(Assertion n 64 failed)`,
		`==77==ERROR: AddressSanitizer: heap-use-after-free`: `and(77 ERROR AddressSanitizer heap use free)`,
		`C:\game\main.cpp(42): error C2065`:                  `and(C game main cpp 42 error C2065)`,
		`ERROR: res://main.gd:6 - Invalid get index`:         `and(ERROR res main gd 6 Invalid get index)`,
		`==1234==ABORTING`:                                   `and(1234 ABORTING)`, // a sanitizer's line, in fewer words
		`-- Head --`:                                         `Head`,               // a rule around a report's heading
		`hp == 0 after hit`:                                  `and(hp 0 hit)`,
		// A name far from every field's, a parenthesis quoted or in a long line.
		`Caught fatal signal - signo:11 code:1 errno:0 addr:(nil)`:                                        `and(Caught fatal signal signo 11 code 1 errno 0 addr nil)`,
		`at [kOnErrorMessage] (node:internal/worker:333:10)`:                                              `and(kOnErrorMessage node internal worker 333 10)`,
		`SyntaxError: '(' was never closed`:                                                               `and(SyntaxError never closed)`,
		`MissingModsException: Mod brandonscore (Brandon's Core) requires [codechickenlib@[3.2.0,)]`:      `and(MissingModsException Mod brandonscore Brandon s Core requires codechickenlib 3 2 0)`,
		`ClassCastException: class Foo cannot be cast to class Bar (Foo and Bar are in unnamed module of`: `and(ClassCastException class Foo cast class Bar Foo Bar unnamed module)`,
		// A phrase begun and never closed: the phrase, to the end.
		`"spawn enemy wave`:             `"spawn enemy wave"`,
		`level:error "spawn enemy wave`: `and(level:error "spawn enemy wave")`,
	} {
		n, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if got := String(n); got != want {
			t.Errorf("Parse(%q) = %s, want %s", s, got, want)
		}
	}
	for s, want := range map[string]string{
		`bogus:x`:                      `unknown field "bogus"`,
		`Level: error`:                 `unknown field "Level"`,
		`NAME:Player`:                  `unknown field "NAME"`,
		`levle:error spawn enemy wave`: `unknown field "levle"`, // one edit from a field's name: a mistake
		`stauts:ok spawn enemy wave`:   `unknown field "stauts"`,
		`level: error`:                 `level: has no value`,
		`- x`:                          `'-' needs a term right after it`,
		// Written in the language: its error stands.
		`name:Physics AND (`: `'(' is never closed`,
		`a OR (b`:            `'(' is never closed`,
		`(spawn enemy wave`:  `'(' is never closed`,
		`spawn enemy wave)`:  `')' without a '(' before it`,
		`x +`:                `'+' needs a term right after it`,
	} {
		if _, err := Parse(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v; want an error saying %q", s, err, want)
		}
	}
}
