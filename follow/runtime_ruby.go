package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Ruby's uncaught exception, as the interpreter prints it when it ends:
//
//	main.rb:16:in `equip': undefined method `fetch' for nil:NilClass (NoMethodError)
//
//	    puts "equipped #{item.fetch(:dmg)}"
//	                         ^^^^^^
//		from main.rb:10:in `starting_kit'
//		from main.rb:23:in `<main>'
//
// (Ruby 3.4 quotes 'Game#equip'.) The first line is where it was raised,
// the message and the class; then the message's other lines, the line of
// code with a caret under the call (error_highlight), the frames ("\tfrom
// …", "\t ... 9347 levels..."), and the exception's cause, printed the
// same way. It is one fatal record: its text the message and class, its
// stack the place ("main.rb:16:in `equip'") and every line after. After
// "#<Thread:…> terminated with exception (report_on_exception is
// true):" the thread died, not the program: that line's record, an
// error, takes it as its stack.

// rubyHead splits Ruby's first line into the place and the message with
// its class; ok is false for any other line.
func rubyHead(t string) (place, msg string, ok bool) {
	i := strings.Index(t, ":in ")
	if i <= 0 || !strings.HasSuffix(t, ")") || !rubyLocation(t[:i]) || len(t) < i+6 {
		return "", "", false
	}
	q := t[i+4]
	if q != '`' && q != '\'' {
		return "", "", false
	}
	j := strings.Index(t[i+5:], "': ")
	if j < 0 {
		return "", "", false
	}
	place, msg = t[:i+5+j+1], t[i+5+j+3:]
	open := strings.LastIndex(msg, " (")
	return place, msg, open > 0 && rubyClass(msg[open+2:len(msg)-1])
}

// rubyLocation reports "main.rb:16", "/usr/lib/ruby/3.1.0/json/common.rb:216".
func rubyLocation(loc string) bool {
	i := strings.LastIndexByte(loc, ':')
	return i > 0 && isDigits(loc[i+1:]) && !strings.ContainsAny(loc[:i], " \t")
}

// rubyClass reports an exception's class: "NoMethodError", "JSON::ParserError".
func rubyClass(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '_' && c != ':' {
			return false
		}
	}
	return true
}

// ruby adds a line to Ruby's report when it is one of its: before the
// frames, the message's other lines and error_highlight's (indented);
// then frames, and a cause's first line and frames.
func (r *report) ruby(s, t string, end int64) bool {
	switch {
	case strings.HasPrefix(t, "from ") && strings.Contains(t, ":in "), strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " levels..."):
		r.state = stRubyFrames
	case r.state == stRubyFrames:
		// A cause, with its own message and frames; the same exception
		// again is another report (a thread's, raised again in main).
		if _, _, ok := rubyHead(t); !ok || t == r.head {
			return false
		}
		r.state = stFrames
	case indentation(s) == 0:
		return false
	}
	return r.add(s, end)
}

// rubyThreadDied reports Ruby's line that a thread died of the report
// after it: "#<Thread:0x00007f… main.rb:13 run> terminated with exception
// (report_on_exception is true):".
func rubyThreadDied(r *oplog.Record) bool {
	return strings.HasPrefix(r.Text, "#<Thread:") && strings.Contains(r.Text, "> terminated with exception")
}
