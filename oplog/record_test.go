package oplog_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]oplog.Level{
		"debug": oplog.LevelDebug, "TRACE": oplog.LevelDebug, "Verbose": oplog.LevelDebug,
		"info": oplog.LevelInfo, "INFO": oplog.LevelInfo, "Log": oplog.LevelInfo,
		"warn": oplog.LevelWarn, "warning": oplog.LevelWarn, "Warning": oplog.LevelWarn, "WARN": oplog.LevelWarn,
		"error": oplog.LevelError, "Error": oplog.LevelError, "Exception": oplog.LevelError, "Assert": oplog.LevelError,
		"fatal": oplog.LevelFatal, "CRITICAL": oplog.LevelFatal, "panic": oplog.LevelFatal, " info ": oplog.LevelInfo,
	} {
		got, err := oplog.ParseLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	_, err := oplog.ParseLevel("loud")
	if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), `"loud"`) || !strings.Contains(err.Error(), "warn") {
		t.Errorf("ParseLevel(loud) error = %v; want EINVALID naming the input and the choices", err)
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-11-30T10:00:00Z":      time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		"2026-11-30T11:00:00+01:00": time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		"2026-11-30":                time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		"-15m":                      now.Add(-15 * time.Minute),
		"2h ago":                    now.Add(-2 * time.Hour),
		"now":                       now,
		"1764504000":                time.Unix(1764504000, 0).UTC(),
		"1764504000123":             time.UnixMilli(1764504000123).UTC(),
	} {
		got, err := oplog.ParseTime(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := oplog.ParseTime("yesterday-ish", now); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("ParseTime(bad) error = %v; want EINVALID", err)
	}
}

func TestRecord_MarshalJSON_Operation(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := oplog.Record{ID: 7, Kind: oplog.KindOp, Time: start, Source: "unity", Name: "execute_code", Level: oplog.LevelInfo,
		Tool: "execute_code", Status: oplog.StatusSuccess, StartTime: start, EndTime: start.Add(165 * time.Millisecond),
		Result: json.RawMessage(`{"ok":true}`)}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["isComplete"] != true || m["durationMs"] != 165.0 || m["status"] != "success" || m["kind"] != "op" || m["level"] != "info" {
		t.Errorf("op JSON = %s", b)
	}
	line := oplog.Record{ID: 1, Kind: oplog.KindLine, Level: oplog.LevelWarn, Text: "x", Time: start}
	b, _ = json.Marshal(line)
	if strings.Contains(string(b), "isComplete") || strings.Contains(string(b), "startTime") || !strings.Contains(string(b), `"level":"warn"`) {
		t.Errorf("line JSON = %s", b)
	}
}
