package oplog_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestHTTPAnswer_NoSpace: a full disk, however wrapped, answers 507
// no_space saying so; a caller's input that quotes the same words stays
// the caller's mistake.
func TestHTTPAnswer_NoSpace(t *testing.T) {
	pathErr := &os.PathError{Op: "write", Path: "/data/log.db", Err: syscall.ENOSPC}
	for _, err := range []error{
		&oplog.Error{Code: oplog.EINTERNAL, Message: "write failed: " + pathErr.Error(), Err: pathErr},
		fmt.Errorf("commit: %w", pathErr),
		fmt.Errorf("file resize error: %s", pathErr), // formatted without %w below
	} {
		status, code, msg := oplog.HTTPAnswer(err)
		if status != http.StatusInsufficientStorage || code != oplog.ENOSPACE || !strings.Contains(msg, "disk") || strings.Contains(msg, "/data") {
			t.Errorf("%v: %d %s %q", err, status, code, msg)
		}
		if oplog.CodeForHTTPStatus(status) != oplog.ENOSPACE || oplog.ErrorTitle(code) != "disk full" {
			t.Errorf("the table: %s %q", oplog.CodeForHTTPStatus(status), oplog.ErrorTitle(code))
		}
	}
	_, err := oplog.ParseLevel("no space left on device")
	if status, code, _ := oplog.HTTPAnswer(err); status != http.StatusBadRequest || code != oplog.EINVALID {
		t.Errorf("an input quoting the words: %d %s", status, code)
	}
	if oplog.IsNoSpace(errors.New("disk ok")) || oplog.IsNoSpace(nil) {
		t.Error("IsNoSpace of another error")
	}
}

// TestParseTime_OutOfRange: a number of seconds past 2262 is refused (it
// wrapped around to 1677 as nanoseconds), whether it fits int64 or not.
func TestParseTime_OutOfRange(t *testing.T) {
	for _, in := range []string{"99999999999999999999", "1e300", "9223372036.9"} {
		if got, err := oplog.ParseTime(in, time.Now()); oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("ParseTime(%q) = %v, %v; want out of range", in, got, err)
		}
	}
	if got, err := oplog.ParseTime("1764504000.5", time.Now()); err != nil || got.UnixMilli() != 1764504000500 {
		t.Errorf("ParseTime(seconds with a fraction) = %v, %v", got, err)
	}
}
