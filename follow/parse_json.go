package follow

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// jsonParser reads JSON lines of the common structured loggers, one
// record per line:
//
//	{"time":"2026-12-02T16:30:00Z","level":"ERROR","msg":"save failed","logger":"io","slot":3}   slog
//	{"level":"error","ts":1764693000.123,"logger":"io","caller":"io/save.go:42","msg":"save failed","stacktrace":"..."}   zap
//	{"level":50,"time":1764693000123,"name":"game","msg":"save failed","err":{"type":"Error","message":"...","stack":"..."}}   pino, bunyan
//	{"level":"error","message":"save failed","timestamp":"2026-12-02T16:30:00.000Z"}   winston
//	{"event":"save failed","level":"error","logger":"io","timestamp":"...","exception":"Traceback ..."}   structlog
//	{"@t":"2026-12-02T16:30:00.123Z","@mt":"Save {Slot} failed","@l":"Error","@x":"System.IO...","Slot":3}   Serilog (compact)
//
// The message, level, time, logger and stack come from the keys each
// logger uses for them (jsonKeys); levels may be words in any case or
// pino's numbers, times RFC 3339 or Unix seconds or milliseconds; every
// other key is kept in Data, with the caller. A line that is not a JSON
// object is read as the generic parser reads it.
type jsonParser struct {
	clk *clock
	g   layer
}

func (p *jsonParser) Name() string { return "json" }

func (p *jsonParser) Flush() []Entry { return p.g.Flush() }

func (p *jsonParser) take(out []Entry) []Entry { return p.g.take(out) }

func (p *jsonParser) isHeader(s string) bool {
	return strings.HasPrefix(strings.TrimSpace(s), "{") || p.g.isHeader(s)
}

func (p *jsonParser) Line(line string, end int64) []Entry {
	s := strings.TrimSpace(line)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return p.g.Line(line, end)
	}
	r, ok := jsonRecord(s, p.clk)
	if !ok {
		return p.g.Line(line, end)
	}
	out := p.g.take(nil)
	return append(out, Entry{Record: r, End: end})
}

// jsonKeys are the keys loggers write each field under, most specific
// first.
var jsonKeys = struct{ msg, level, time, logger, stack []string }{
	msg:    []string{"msg", "message", "@m", "@mt", "@message", "event", "text", "RenderedMessage", "MessageTemplate"},
	level:  []string{"level", "lvl", "severity", "@l", "Level", "levelname", "log.level", "loglevel"},
	time:   []string{"time", "ts", "timestamp", "@t", "@timestamp", "Timestamp", "datetime", "asctime"},
	logger: []string{"logger", "logger_name", "@logger", "SourceContext", "component", "module"},
	stack:  []string{"stack", "stacktrace", "stack_trace", "exception", "exc_info", "@x", "Exception", "error.stack_trace"},
}

// jsonRecord makes a record of one JSON object; false when s is not one,
// or has no key of a message or a level (a JSON value the game printed).
func jsonRecord(s string, clk *clock) (oplog.Record, bool) {
	var m map[string]json.RawMessage
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return oplog.Record{}, false
	}
	r := oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo}
	msgKey := takeString(m, jsonKeys.msg, &r.Text)
	levelKey, numericLevel := "", false
	for _, k := range jsonKeys.level {
		if v, ok := m[k]; ok {
			if lv, ok := jsonLevel(v); ok {
				r.Level, levelKey, numericLevel = lv, k, len(v) > 0 && v[0] != '"'
				delete(m, k)
				break
			}
		}
	}
	if msgKey == "" && levelKey == "" {
		return oplog.Record{}, false
	}
	if _, ok := m["@mt"]; ok && levelKey == "" {
		r.Level = oplog.LevelInfo // Serilog leaves Information out
	}
	for _, k := range jsonKeys.time {
		if v, ok := m[k]; ok {
			if t, ok := jsonTime(v, clk); ok {
				r.Time = t
				delete(m, k)
				break
			}
		}
	}
	var name string
	if takeString(m, jsonKeys.logger, &name) == "" && (levelKey == "levelname" || numericLevel) {
		takeString(m, []string{"name"}, &name) // pino's and bunyan's logger, Python logging's
	}
	if msgKey == "@mt" || msgKey == "MessageTemplate" {
		r.Text = renderTemplate(r.Text, m) // Serilog's template, with its properties
	}
	if name != "" && len(name) <= oplog.MaxLabelBytes && !strings.ContainsAny(name, "\x00\r\n") {
		r.Name = name
	}
	r.Stack = jsonStack(m)
	r.Text = oplog.ClipText(r.Text)
	if len(m) > 0 {
		if b, err := json.Marshal(m); err == nil {
			r.Data = b
		}
	}
	return r, true
}

// takeString sets *dst to the first of keys that holds a string, removes
// it from m and returns it; "" when none does.
func takeString(m map[string]json.RawMessage, keys []string, dst *string) string {
	for _, k := range keys {
		v, ok := m[k]
		if !ok || len(v) == 0 || v[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			*dst = s
			delete(m, k)
			return k
		}
	}
	return ""
}

// jsonLevel reads a level: a word ("error", "Warning", "INFO+2": slog's
// offsets are dropped), Serilog's "Information", or pino's numbers (10
// trace to 60 fatal).
func jsonLevel(v json.RawMessage) (oplog.Level, bool) {
	if len(v) > 0 && v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return 0, false
		}
		if i := strings.IndexAny(s, "+-"); i > 0 {
			s = s[:i] // slog: "ERROR+4"
		}
		switch strings.ToLower(s) {
		case "information":
			return oplog.LevelInfo, true
		case "dpanic":
			return oplog.LevelError, true
		}
		return levelWord(s)
	}
	n, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false
	}
	switch {
	case n >= 60:
		return oplog.LevelFatal, true
	case n >= 50:
		return oplog.LevelError, true
	case n >= 40:
		return oplog.LevelWarn, true
	case n >= 30:
		return oplog.LevelInfo, true
	}
	return oplog.LevelDebug, true
}

// jsonTime reads a time: an RFC 3339 string (or the other ISO-8601
// spellings parseISO reads), or a Unix time in seconds, milliseconds or
// nanoseconds, told apart by size.
func jsonTime(v json.RawMessage, clk *clock) (time.Time, bool) {
	if len(v) > 0 && v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return time.Time{}, false
		}
		t, _, ok := parseISO(s, clk.location())
		return t, ok && !t.IsZero()
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return time.Time{}, false
	}
	var t time.Time
	switch {
	case f < 1e11: // seconds (zap's ts), until the year 5138
		sec, frac := math.Modf(f)
		t = time.Unix(int64(sec), int64(frac*1e9))
	case f < 1e14: // milliseconds (pino, bunyan's epoch variants)
		t = time.UnixMilli(int64(f))
	case f < 1e20:
		t = time.Unix(0, int64(f))
	default:
		return time.Time{}, false
	}
	if y := t.Year(); y < minYear || y > maxYear {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// jsonStack takes the stack from m: a string under one of the stack keys,
// or an error object's "stack" (pino's err, ECS's error).
func jsonStack(m map[string]json.RawMessage) string {
	var st string
	if takeString(m, jsonKeys.stack, &st) != "" {
		return oplog.ClipBytes(st, oplog.MaxStackBytes)
	}
	for _, k := range []string{"err", "error"} {
		v, ok := m[k]
		if !ok || len(v) == 0 || v[0] != '{' {
			continue
		}
		var e map[string]json.RawMessage
		var st string
		if json.Unmarshal(v, &e) == nil && takeString(e, []string{"stack"}, &st) != "" && st != "" {
			if b, err := json.Marshal(e); err == nil {
				m[k] = b // the rest of the error stays in Data, its stack once
			}
			return oplog.ClipBytes(st, oplog.MaxStackBytes)
		}
	}
	return ""
}

// looksLikeJSONLog reports a line auto detection takes for a structured
// logger's: a JSON object with a message or a level key.
func looksLikeJSONLog(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' || !json.Valid([]byte(s)) {
		return false
	}
	b := []byte(s)
	for _, k := range append(jsonKeys.msg[:len(jsonKeys.msg):len(jsonKeys.msg)], jsonKeys.level...) {
		if bytes.Contains(b, []byte(`"`+k+`"`)) {
			return true
		}
	}
	return false
}

// renderTemplate fills a Serilog message template ("Now listening on:
// {address}", "{@User}", "{N:x8}") with the properties of m (its
// "Properties" object when it has one): strings as they are, other
// values as JSON. A hole with no property is left as written.
func renderTemplate(tmpl string, m map[string]json.RawMessage) string {
	props := m
	if raw, ok := m["Properties"]; ok {
		var p map[string]json.RawMessage
		if json.Unmarshal(raw, &p) == nil {
			props = p
		}
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j += i
		name := strings.TrimLeft(tmpl[i+1:j], "@$")
		if k := strings.IndexAny(name, ":,"); k >= 0 {
			name = name[:k]
		}
		b.WriteString(tmpl[:i])
		v, ok := props[name]
		var str string
		switch {
		case !ok || name == "":
			b.WriteString(tmpl[i : j+1])
		case len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &str) == nil:
			b.WriteString(str)
		default:
			b.Write(v)
		}
		tmpl = tmpl[j+1:]
	}
}
