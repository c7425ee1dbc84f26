package api_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// TestAppendLines_TooManyLines: a 1 MiB body of tiny lines would be 61,680
// records (74 MB of peak heap, BenchmarkAPI_HostileIngest); a batch holds
// at most api.MaxLines(body limit) = 16,384 lines, and one more is 413
// naming the limit, with nothing stored.
func TestAppendLines_TooManyLines(t *testing.T) {
	h := mustServe(t, nil)
	max := api.MaxLines(api.DefaultMaxBodyBytes)
	if max != 16384 {
		t.Fatalf("MaxLines(1 MiB) = %d, want 16384", max)
	}
	line := `{"level":"info"}` + "\n"
	for _, c := range []struct {
		name string
		body string
	}{
		{"NDJSON", strings.Repeat(line, max+1)},
		{"Array", "[" + strings.TrimSuffix(strings.Repeat(`{"level":"info"},`, max+1), ",") + "]"},
		{"NDJSONSlowPath", strings.Repeat(line, max) + `{"level":"info","te\u0078t":"a"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, b := h.Call(http.MethodPost, "/api/v1/logs", c.body)
			checkError(t, status, b, http.StatusRequestEntityTooLarge, oplog.EINVALID, "too many lines", "at most 16384", "smaller batches")
			if n := h.Log.Stats().Records; n != 0 {
				t.Fatalf("%d records stored, want none", n)
			}
		})
	}
	a := mustCall[struct{ Count int }](h, http.MethodPost, "/api/v1/logs", strings.Repeat(line, max), http.StatusOK)
	if a.Count != max {
		t.Fatalf("count %d, want %d", a.Count, max)
	}
}

// TestIngest_HostileFields: the smaller items of the row 11 on the
// ingest routes, each refused with 400 naming the field.
func TestIngest_HostileFields(t *testing.T) {
	h := mustServe(t, nil)
	for _, c := range []struct {
		name, path, body string
		msgs             []string
	}{
		{"DuplicateKeyFast", "/api/v1/logs", `{"level":"info","text":"a","text":"b"}`, []string{"text: given twice"}},
		{"DuplicateKeyNull", "/api/v1/logs", `{"level":"info","text":null,"text":"b"}`, []string{"text: given twice"}},
		{"DuplicateKeySlow", "/api/v1/logs", `[{"level":"info"},{"level":"info","te\u0078t":"a","text":"b"}]`, []string{"record 1", "text: given twice"}},
		{"DuplicateUnknownKey", "/api/v1/logs", `{"level":"info","x":1,"x":2}`, []string{`x: given twice`}},
		{"DuplicateOperationKey", "/api/v1/operations", `{"tool":"a","tool":"b"}`, []string{"tool: given twice"}},
		{"TimeZero", "/api/v1/logs", `{"level":"info","time":0}`, []string{"time: 0 is the zero time", "leave time out"}},
		{"TimeZeroString", "/api/v1/logs", `{"level":"info","time":"0001-01-01T00:00:00Z"}`, []string{"time: 0001-01-01T00:00:00Z is the zero time"}},
		{"TimeOnePointFive", "/api/v1/logs", `{"level":"info","time":1.5}`, []string{"time: 1970-01-01T00:00:01Z is out of range"}},
		{"TimeOverflow", "/api/v1/logs", `{"level":"info","time":99999999999999999999}`, []string{"time:", "after the year 2262"}},
		{"EndTimeZero", "/api/v1/operations", `{"tool":"a","status":"success","endTime":0}`, []string{"endTime: 0 is the zero time"}},
		{"ForgedMark", "/api/v1/operations", `{"tool":"a","source":"game","data":{"mcplogd.forwarded":true}}`, []string{`"mcplogd.forwarded"`, "replayed"}},
		{"ForgedMarkEscaped", "/api/v1/operations", `{"tool":"a","data":{"mcplogd\u002eforwarded":true}}`, []string{`"mcplogd.forwarded"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, b := h.Call(http.MethodPost, c.path, c.body)
			checkError(t, status, b, http.StatusBadRequest, oplog.EINVALID, c.msgs...)
		})
	}
	if n := h.Log.Stats().Records; n != 0 {
		t.Fatalf("%d records stored, want none", n)
	}
	// Left out, time is the arrival time, as documented.
	mustCall[struct{ Count int }](h, http.MethodPost, "/api/v1/logs", `{"level":"info","time":null}`+"\n"+`{"level":"info","time":""}`, http.StatusOK)
}

// TestQueryParams_Hostile: a since past 2262 is 400 naming since (it
// wrapped to 1677 and matched everything); an operation ID that no record
// has is 404; a search for abc~3 is 400 and /(a|aa)*b/ answers 200.
func TestQueryParams_Hostile(t *testing.T) {
	h := mustServe(t, nil)
	mustCall[struct{ Count int }](h, http.MethodPost, "/api/v1/logs", `{"level":"info","text":"a"}`, http.StatusOK)
	for _, p := range []string{"/api/v1/tail?since=99999999999999999999", "/api/v1/records?since=99999999999999999999",
		"/api/v1/tail?until=1e300"} {
		status, b := h.Call(http.MethodGet, p, "")
		name := strings.Split(strings.Split(p, "?")[1], "=")[0]
		checkError(t, status, b, http.StatusBadRequest, oplog.EINVALID, name+":", "out of range")
	}
	for _, p := range []string{"/api/v1/operations/99999999999", "/api/v1/operations/99999999999?waitMs=50"} {
		status, b := h.Call(http.MethodGet, p, "")
		checkError(t, status, b, http.StatusNotFound, oplog.ENOTFOUND, "99999999999")
	}
	// A fuzziness over 2 was 500, a regular expression with parentheses a
	// parse error quoting a runtime error.
	h, _ = mustServeSearch(t)
	status, b := h.Call(http.MethodGet, "/api/v1/search?query="+url.QueryEscape("abc~3"), "")
	checkError(t, status, b, http.StatusBadRequest, oplog.EINVALID, "fuzzy", "not 3")
	for _, q := range []string{"/(a|aa)*b/", "/(a|x)/"} {
		if status, b := h.Call(http.MethodGet, "/api/v1/search?query="+url.QueryEscape(q), ""); status != http.StatusOK {
			t.Errorf("search %s: %d %s, want 200", q, status, b)
		}
	}
}

// TestAppendLines_DiskFull: on a tmpfs that is full, an append answers 507
// (code no_space) saying so, not 500; once space is freed, the same batch
// is stored. It mounts a 2 MiB tmpfs (root only; skipped otherwise).
func TestAppendLines_DiskFull(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	h := mustServeAt(t, filepath.Join(dir, "log.db"))
	mustCall[struct{ Count int }](h, http.MethodPost, "/api/v1/logs", `{"level":"info","text":"before"}`, http.StatusOK)
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for chunk := bytes.Repeat([]byte{'x'}, 64<<10); ; {
		if _, err := f.Write(chunk); err != nil {
			break // full
		}
	}
	_ = f.Close()
	var lines strings.Builder // incompressible (records are S2-compressed), so the batch cannot fit in the file's free pages
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		lines.WriteString(`{"level":"info","text":"`)
		for range 250 { // 4,000 hex digits
			fmt.Fprintf(&lines, "%016x", rnd.Uint64())
		}
		lines.WriteString("\"}\n")
	}
	batch := lines.String()
	status, b := h.Call(http.MethodPost, "/api/v1/logs", batch)
	checkError(t, status, b, http.StatusInsufficientStorage, oplog.ENOSPACE, "disk", "full", "nothing of this request was written")
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	a := mustCall[struct{ Count int }](h, http.MethodPost, "/api/v1/logs", batch, http.StatusOK)
	if a.Count != 200 || h.Log.Stats().Records != 201 {
		t.Fatalf("after freeing space: count %d, %d records", a.Count, h.Log.Stats().Records)
	}
}

// mustServeAt serves the store at path (which the test's cleanup closes
// before its own cleanups, registered earlier, run).
func mustServeAt(t *testing.T, path string) *harness {
	t.Helper()
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	s, err := api.New(l, &api.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &harness{T: t, Log: l, DB: db, Srv: s, URL: ts.URL}
}

// TestIngest_HostileBodies: each of the benchmark's hostile bodies at the
// 1 MiB limit gets its status (1 MiB of tiny lines 413, `data` nested
// 500,000 deep 400 and 9,000 deep 200, ...), and a refused one stores
// nothing.
func TestIngest_HostileBodies(t *testing.T) {
	for _, c := range hostileBodies() {
		t.Run(c.name, func(t *testing.T) {
			h := mustServe(t, nil)
			status, b := h.Call(http.MethodPost, "/api/v1/logs", string(c.body))
			if status != c.want {
				t.Fatalf("status %d, want %d: %.300s", status, c.want, b)
			}
			if n := h.Log.Stats().Records; status != http.StatusOK && n != 0 {
				t.Fatalf("a refused body stored %d records", n)
			}
		})
	}
}
