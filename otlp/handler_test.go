package otlp_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"
	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/otlp"
	"github.com/mcplogd/mcplogd/store"
)

type (
	harness        = apitest.Harness
	harnessOptions = apitest.Options
)

var testToken = apitest.Token

// route mounts the receiver as cmd/mcplogd does.
func route(l *oplog.Log, maxBody int64) api.Route {
	h := otlp.New(l, &otlp.Options{MaxBodyBytes: maxBody})
	return api.Route{Method: http.MethodPost, Path: otlp.Path, Handler: h, WriteError: h.WriteError}
}

// mustServe serves a fresh store with the receiver at /v1/logs.
func mustServe(t testing.TB, o *harnessOptions) *harness {
	t.Helper()
	if o == nil {
		o = &harnessOptions{}
	}
	o.Setup = func(l *oplog.Log, _ *store.DB, ao *api.Options) {
		ao.Routes = append(ao.Routes, route(l, ao.MaxBodyBytes))
	}
	return apitest.MustServe(t, o)
}

// storedLines returns every record of h's log, oldest first.
func storedLines(t *testing.T, h *harness) []oplog.Record {
	t.Helper()
	tail, err := h.Log.Tail(context.Background(), oplog.TailQuery{HasSince: true, Limit: oplog.MaxTailLimit})
	if err != nil {
		t.Fatalf("Tail: %v", err)
	}
	return tail.Lines
}

// otlpData is the data of a line that came in over OTLP.
type otlpData struct {
	Attributes     map[string]any `json:"attributes"`
	Resource       map[string]any `json:"resource"`
	Scope          map[string]any `json:"scope"`
	TraceID        string         `json:"traceId"`
	SpanID         string         `json:"spanId"`
	Flags          uint32         `json:"flags"`
	SeverityNumber int            `json:"severityNumber"`
	SeverityText   string         `json:"severityText"`
	EventName      string         `json:"eventName"`
	ObservedTime   string         `json:"observedTime"`
}

func decodeData(t *testing.T, r oplog.Record) otlpData {
	t.Helper()
	var d otlpData
	if err := json.Unmarshal(r.Data, &d); err != nil {
		t.Fatalf("record %d: data %s: %v", r.ID, r.Data, err)
	}
	return d
}

// TestServer_OTLP_Exporter sends logs with the OpenTelemetry Go SDK and its
// OTLP/HTTP exporter, as a game written in Go would.
func TestServer_OTLP_Exporter(t *testing.T) {
	for _, tt := range []struct {
		name        string
		compression otlploghttp.Compression
		endpoint    func(url string) []otlploghttp.Option
	}{
		// The exporter's defaults: host and port only, path /v1/logs appended.
		{"Protobuf", otlploghttp.NoCompression, func(url string) []otlploghttp.Option {
			return []otlploghttp.Option{otlploghttp.WithEndpoint(strings.TrimPrefix(url, "http://")), otlploghttp.WithInsecure()}
		}},
		// As OTEL_EXPORTER_OTLP_LOGS_ENDPOINT would say it.
		{"Gzip", otlploghttp.GzipCompression, func(url string) []otlploghttp.Option {
			return []otlploghttp.Option{otlploghttp.WithEndpointURL(url + "/v1/logs")}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var requests, gzipped atomic.Int32
			h := mustServe(t, &harnessOptions{Wrap: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/v1/logs" {
						requests.Add(1)
						if r.Header.Get("Content-Encoding") == "gzip" {
							gzipped.Add(1)
						}
					}
					next.ServeHTTP(w, r)
				})
			}})
			ctx := context.Background()
			opts := append(tt.endpoint(h.URL),
				otlploghttp.WithHeaders(map[string]string{"Authorization": "Bearer " + testToken}),
				otlploghttp.WithCompression(tt.compression),
				otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}))
			exp, err := otlploghttp.New(ctx, opts...)
			if err != nil {
				t.Fatalf("otlploghttp.New: %v", err)
			}
			res := resource.NewSchemaless(attribute.String("service.name", "space-game"), attribute.String("host.name", "rig-7"))
			lp := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewBatchProcessor(exp)))
			defer func() { _ = lp.Shutdown(ctx) }()
			logger := lp.Logger("Player", otellog.WithInstrumentationVersion("1.4.2"))

			traceID := trace.TraceID{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c}
			spanID := trace.SpanID{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74}
			spanCtx := trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
				TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled}))
			t0 := time.Date(2026, 3, 4, 5, 6, 7, 890, time.UTC)

			var warn otellog.Record
			warn.SetTimestamp(t0)
			warn.SetSeverity(otellog.SeverityWarn)
			warn.SetSeverityText("WARN")
			warn.SetBody(attribute.StringValue("health low <10%>"))
			warn.AddAttributes(attribute.Int("hp", 7), attribute.Bool("shielded", false), attribute.String("rule", "hp<10 && !shielded"))
			logger.Emit(spanCtx, warn)

			var crash otellog.Record
			crash.SetTimestamp(t0.Add(time.Millisecond))
			crash.SetSeverity(otellog.SeverityError2)
			crash.AddAttributes(
				attribute.String("exception.type", "NullReferenceException"),
				attribute.String("exception.message", "weapon is null"),
				attribute.String("exception.stacktrace", "at Player.Fire ()\nat Game.Tick ()"))
			logger.Emit(spanCtx, crash)

			var trace2 otellog.Record
			trace2.SetSeverity(otellog.SeverityTrace2)
			trace2.SetBody(attribute.MapValue(attribute.Int("x", 3), attribute.String("y", "up")))
			logger.Emit(ctx, trace2) // no span: no IDs; no timestamp: the observed one

			var byText otellog.Record
			byText.SetSeverityText("Warning") // no number: the text decides
			byText.SetBody(attribute.StringValue("by text"))
			lp.Logger("Physics").Emit(ctx, byText)

			var fatal otellog.Record
			fatal.SetSeverity(otellog.SeverityFatal4)
			fatal.SetBody(attribute.StringValue("out of memory"))
			fatal.SetEventName("game.crash")
			logger.Emit(ctx, fatal)

			if err := lp.ForceFlush(ctx); err != nil {
				t.Fatalf("ForceFlush: %v", err)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("%d requests to /v1/logs, want 1 (one batch)", n)
			}
			wantGzip := int32(0)
			if tt.compression == otlploghttp.GzipCompression {
				wantGzip = 1
			}
			if n := gzipped.Load(); n != wantGzip {
				t.Errorf("%d gzip-compressed requests, want %d", n, wantGzip)
			}

			recs := storedLines(t, h)
			if len(recs) != 5 {
				t.Fatalf("%d records stored, want 5: %+v", len(recs), recs)
			}
			for i, r := range recs {
				if r.ID != recs[0].ID+uint64(i) {
					t.Errorf("IDs %d, %d not consecutive", recs[0].ID, r.ID)
				}
				if r.Kind != oplog.KindLine {
					t.Errorf("record %d: kind %s", r.ID, r.Kind)
				}
			}

			// The warning, in a span.
			r := recs[0]
			if r.Level != oplog.LevelWarn || r.Source != "space-game" || r.Name != "Player" ||
				r.Text != "health low <10%>" || r.Stack != "" || !r.Time.Equal(t0) {
				t.Errorf("warning stored as %+v", r)
			}
			d := decodeData(t, r)
			if d.TraceID != "5b8efff798038103d269b633813fc60c" || d.SpanID != "eee19b7ec3c1b174" || d.Flags != 1 {
				t.Errorf("warning IDs: %s", r.Data)
			}
			if d.Attributes["hp"] != float64(7) || d.Attributes["shielded"] != false ||
				d.Resource["host.name"] != "rig-7" || d.Resource["service.name"] != nil ||
				d.Scope["version"] != "1.4.2" || d.SeverityText != "WARN" || d.SeverityNumber != 13 {
				t.Errorf("warning data: %s", r.Data)
			}
			if !bytes.Contains(r.Data, []byte(`"hp<10 && !shielded"`)) {
				t.Errorf("data is HTML-escaped: %s", r.Data)
			}

			// The exception: no body, so type and message make the text.
			r = recs[1]
			if r.Level != oplog.LevelError || r.Text != "NullReferenceException: weapon is null" ||
				r.Stack != "at Player.Fire ()\nat Game.Tick ()" {
				t.Errorf("exception stored as %+v", r)
			}
			d = decodeData(t, r)
			if _, ok := d.Attributes["exception.stacktrace"]; ok || d.Attributes["exception.type"] != "NullReferenceException" {
				t.Errorf("exception data: %s", r.Data)
			}
			if d.TraceID != "5b8efff798038103d269b633813fc60c" {
				t.Errorf("exception IDs: %s", r.Data)
			}

			// TRACE2 with a map body.
			r = recs[2]
			if r.Level != oplog.LevelDebug || r.Text != `{"x":3,"y":"up"}` || r.Time.IsZero() {
				t.Errorf("trace record stored as %+v", r)
			}
			if d = decodeData(t, r); d.TraceID != "" || d.SpanID != "" {
				t.Errorf("trace record has IDs without a span: %s", r.Data)
			}

			// The exporter groups records by scope: Player's first.
			// FATAL4 with an event name.
			r = recs[3]
			if d = decodeData(t, r); r.Level != oplog.LevelFatal || d.EventName != "game.crash" {
				t.Errorf("fatal record stored as %+v", r)
			}

			// Severity text only, another scope.
			if r = recs[4]; r.Level != oplog.LevelWarn || r.Name != "Physics" || r.Text != "by text" {
				t.Errorf("text-severity record stored as %+v", r)
			}
		})
	}
}

// otlpJSONBody is an OTLP/JSON request as the specification writes it: hex
// IDs, 64-bit integers as strings, enums as numbers, plus one record in the
// proto's snake_case spelling and a field mcplogd does not know.
const otlpJSONBody = `{
  "resourceLogs": [{
    "resource": {"attributes": [
      {"key": "service.name", "value": {"stringValue": "lua-ecs"}},
      {"key": "host.name", "value": {"stringValue": "dev-box"}}
    ]},
    "scopeLogs": [{
      "scope": {"name": "ecs.physics", "version": "0.3.0"},
      "logRecords": [{
        "timeUnixNano": "1767366245000000000",
        "observedTimeUnixNano": "1767366245000000500",
        "severityNumber": 17,
        "severityText": "ERROR",
        "traceId": "5B8EFFF798038103D269B633813FC60C",
        "spanId": "eee19b7ec3c1b174",
        "flags": 1,
        "body": {"stringValue": "collision overflow"},
        "attributes": [
          {"key": "entity", "value": {"intValue": "42"}},
          {"key": "tags", "value": {"arrayValue": {"values": [{"stringValue": "a"}, {"boolValue": true}]}}},
          {"key": "blob", "value": {"bytesValue": "AAEC"}},
          {"key": "exception.stacktrace", "value": {"stringValue": "stack traceback:\n\tphysics.lua:10"}}
        ],
        "somethingNew": {"x": 1}
      }, {
        "time_unix_nano": 1767366246000000000,
        "severity_text": "INFO2",
        "trace_id": "0af7651916cd43dd8448eb211c80319c",
        "span_id": "",
        "body": {"stringValue": "step"}
      }]
    }]
  }]
}`

// TestServer_OTLP_JSON posts OTLP/JSON by hand, as curl would.
func TestServer_OTLP_JSON(t *testing.T) {
	h := mustServe(t, nil)
	status, ct, b := postOTLP(t, h, "application/json", "", "Bearer "+testToken, strings.NewReader(otlpJSONBody))
	if status != http.StatusOK || ct != "application/json" {
		t.Fatalf("status %d, content type %q, body %s", status, ct, b)
	}
	var resp collogspb.ExportLogsServiceResponse
	if err := protojson.Unmarshal(b, &resp); err != nil || resp.GetPartialSuccess() != nil {
		t.Fatalf("answer %s: %v", b, err)
	}

	recs := storedLines(t, h)
	if len(recs) != 2 {
		t.Fatalf("%d records stored, want 2", len(recs))
	}
	r := recs[0]
	if r.Level != oplog.LevelError || r.Source != "lua-ecs" || r.Name != "ecs.physics" || r.Text != "collision overflow" ||
		r.Stack != "stack traceback:\n\tphysics.lua:10" || !r.Time.Equal(time.Unix(0, 1767366245000000000)) {
		t.Errorf("first record stored as %+v", r)
	}
	d := decodeData(t, r)
	if d.TraceID != "5b8efff798038103d269b633813fc60c" || d.SpanID != "eee19b7ec3c1b174" || d.Flags != 1 {
		t.Errorf("IDs: %s", r.Data)
	}
	if d.Attributes["entity"] != float64(42) || fmt.Sprint(d.Attributes["tags"]) != "[a true]" || d.Attributes["blob"] != "AAEC" ||
		d.Resource["host.name"] != "dev-box" || d.Scope["version"] != "0.3.0" ||
		d.ObservedTime != "2026-01-02T15:04:05.0000005Z" {
		t.Errorf("data: %s", r.Data)
	}
	r = recs[1]
	if d = decodeData(t, r); r.Level != oplog.LevelInfo || r.Text != "step" || d.TraceID != "0af7651916cd43dd8448eb211c80319c" || d.SpanID != "" {
		t.Errorf("snake_case record stored as %+v, data %s", r, r.Data)
	}
}

// TestServer_OTLP_PartialSuccess refuses a record over oplog's text limit
// and stores the others.
func TestServer_OTLP_PartialSuccess(t *testing.T) {
	h := mustServe(t, nil)
	big := strings.Repeat("x", oplog.MaxTextBytes+1)
	body := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[
		{"body":{"stringValue":"before"}},
		{"body":{"stringValue":"` + big + `"}},
		{"body":{"stringValue":"after"}}]}]}]}`
	status, _, b := postOTLP(t, h, "application/json", "", "Bearer "+testToken, strings.NewReader(body))
	if status != http.StatusOK {
		t.Fatalf("status %d, body %s", status, b)
	}
	var resp collogspb.ExportLogsServiceResponse
	if err := protojson.Unmarshal(b, &resp); err != nil {
		t.Fatalf("answer %s: %v", b, err)
	}
	ps := resp.GetPartialSuccess()
	if ps.GetRejectedLogRecords() != 1 || !strings.Contains(ps.GetErrorMessage(), "body") {
		t.Errorf("partial success %v", ps)
	}
	recs := storedLines(t, h)
	if len(recs) != 2 || recs[0].Text != "before" || recs[1].Text != "after" || recs[0].Source != oplog.DefaultSource {
		t.Errorf("stored %+v", recs)
	}
}

// TestServer_OTLP_Errors checks that every refused request gets the status
// OTLP/HTTP asks for, a google.rpc.Status, and stores nothing.
func TestServer_OTLP_Errors(t *testing.T) {
	const limit = 64 << 10
	h := mustServe(t, &harnessOptions{API: api.Options{MaxBodyBytes: limit}})
	valid, err := proto.Marshal(&collogspb.ExportLogsServiceRequest{})
	if err != nil {
		t.Fatal(err)
	}
	bomb := gzipped(t, make([]byte, 16<<20)) // 16 MiB of zeros in a few KiB
	if len(bomb) >= limit {
		t.Fatalf("the gzip bomb is %d bytes, not under the limit", len(bomb))
	}
	bearer := "Bearer " + testToken
	for _, tt := range []struct {
		name, contentType, encoding, auth string
		body                              func() io.Reader
		status                            int
		statusBody                        string // "protobuf", "json" or "server" (the API's own error shape)
		msg                               string
	}{
		{"Protobuf_Malformed", "application/x-protobuf", "", bearer,
			bytesBody([]byte{0x0a, 0x05, 0x01}), 400, "protobuf", "malformed OTLP protobuf"},
		{"Protobuf_BadUTF8", "application/x-protobuf", "", bearer,
			// resource_logs { scope_logs { log_records { severity_text: "\xff\xfe\xfd" } } }
			bytesBody([]byte{0x0a, 0x09, 0x12, 0x07, 0x12, 0x05, 0x1a, 0x03, 0xff, 0xfe, 0xfd}), 400, "protobuf", "invalid UTF-8"},
		{"JSON_Malformed", "application/json", "", bearer,
			stringBody(`{"resourceLogs": [`), 400, "json", "malformed OTLP/JSON"},
		{"JSON_WrongShape", "application/json", "", bearer,
			stringBody(`{"resourceLogs": {"traceId": 1}}`), 400, "json", "resourceLogs: expected an array"},
		{"JSON_BadTraceID", "application/json", "", bearer,
			stringBody(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"ok"}},{"traceId":"xyz"}]}]}]}`),
			400, "json", "resourceLogs[0].scopeLogs[0].logRecords[1].traceId"},
		{"JSON_ShortSpanID", "application/json; charset=utf-8", "", bearer,
			stringBody(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"spanId":"abcd"}]}]}]}`), 400, "json", "spanId"},
		{"JSON_BadTime", "application/json", "", bearer,
			stringBody(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"soon"}]}]}]}`), 400, "json", "malformed"},
		{"WrongContentType", "text/plain", "", bearer,
			bytesBody(valid), 415, "json", "unsupported content type"},
		{"NoContentType", "", "", bearer,
			bytesBody(valid), 415, "json", "unsupported content type"},
		{"WrongEncoding", "application/x-protobuf", "br", bearer,
			bytesBody(valid), 415, "protobuf", "unsupported content encoding"},
		{"Gzip_Malformed", "application/x-protobuf", "gzip", bearer,
			bytesBody([]byte("not gzip at all")), 400, "protobuf", "malformed gzip"},
		{"Gzip_Truncated", "application/json", "gzip", bearer,
			bytesBody(gzipped(t, []byte(otlpJSONBody))[:40]), 400, "json", "cannot read the body"},
		{"TooBig_ContentLength", "application/x-protobuf", "", bearer,
			bytesBody(make([]byte, limit+1)), 413, "server", "over the limit"},
		{"TooBig_Chunked", "application/x-protobuf", "", bearer,
			func() io.Reader { return io.MultiReader(bytes.NewReader(make([]byte, limit+1))) }, 413, "protobuf", "over the limit"},
		{"GzipBomb", "application/x-protobuf", "gzip", bearer,
			bytesBody(bomb), 413, "protobuf", "over the limit"},
		{"NoToken", "application/x-protobuf", "", "",
			bytesBody(valid), 401, "protobuf", "missing or wrong token"},
		{"WrongToken", "application/json", "", "Bearer " + strings.Repeat("f", 64),
			stringBody(otlpJSONBody), 401, "json", "missing or wrong token"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, ct, b := postOTLP(t, h, tt.contentType, tt.encoding, tt.auth, tt.body())
			if status != tt.status {
				t.Fatalf("status %d, want %d; body %q", status, tt.status, b)
			}
			var msg string
			switch tt.statusBody {
			case "protobuf", "json":
				var st spb.Status
				var err error
				if tt.statusBody == "json" {
					err = protojson.Unmarshal(b, &st)
				} else {
					err = proto.Unmarshal(b, &st)
				}
				if err != nil || ct != map[string]string{"json": "application/json", "protobuf": "application/x-protobuf"}[tt.statusBody] {
					t.Fatalf("want a %s google.rpc.Status; content type %q, body %q: %v", tt.statusBody, ct, b, err)
				}
				want := codes.InvalidArgument
				if status == http.StatusUnauthorized {
					want = codes.Unauthenticated
				}
				if codes.Code(st.GetCode()) != want {
					t.Errorf("Status.code %v, want %v", codes.Code(st.GetCode()), want)
				}
				msg = st.GetMessage()
			case "server":
				msg = apitest.MustDecode[client.ErrorBody](t, b).Message
			}
			if !strings.Contains(msg, tt.msg) {
				t.Errorf("message %q does not contain %q", msg, tt.msg)
			}
			if n := h.Log.Stats().Records; n != 0 {
				t.Errorf("%d records stored, want none", n)
			}
		})
	}

	t.Run("GET", func(t *testing.T) {
		status, _, err := h.Send(context.Background(), http.MethodGet, "/v1/logs", bearer, nil)
		if err != nil || status != http.StatusMethodNotAllowed {
			t.Errorf("GET /v1/logs: %d %v", status, err)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		status, ct, b := postOTLP(t, h, "application/x-protobuf", "", bearer, bytes.NewReader(nil))
		var resp collogspb.ExportLogsServiceResponse
		if status != http.StatusOK || ct != "application/x-protobuf" || proto.Unmarshal(b, &resp) != nil || resp.GetPartialSuccess() != nil {
			t.Errorf("empty request: %d %q %q", status, ct, b)
		}
		if n := h.Log.Stats().Records; n != 0 {
			t.Errorf("%d records stored, want none", n)
		}
	})
}

// postOTLP posts body to /v1/logs and returns the status, the answer's
// content type and its body.
func postOTLP(t *testing.T, h *harness, contentType, encoding, auth string, body io.Reader) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.URL+"/v1/logs", body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /v1/logs: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func bytesBody(b []byte) func() io.Reader { return func() io.Reader { return bytes.NewReader(b) } }

func stringBody(s string) func() io.Reader { return func() io.Reader { return strings.NewReader(s) } }

// FuzzServer_OTLP posts arbitrary bodies as protobuf and as JSON: the answer
// is 200 or a client error, never a 5xx, and a refused body stores nothing.
func FuzzServer_OTLP(f *testing.F) {
	l, _ := logtest.MustOpenLog(f, nil)
	s, err := api.New(l, &api.Options{Token: testToken, Routes: []api.Route{route(l, 0)}})
	if err != nil {
		f.Fatal(err)
	}
	valid, err := proto.Marshal(&collogspb.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{
		ScopeLogs: []*logspb.ScopeLogs{{LogRecords: []*logspb.LogRecord{{
			SeverityNumber: logspb.SeverityNumber_SEVERITY_NUMBER_WARN, TraceId: make([]byte, 16),
			Body: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "hi"}}}}}}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(false, valid)
	f.Add(false, []byte{0x0a, 0x05, 0x01})
	f.Add(true, []byte(otlpJSONBody))
	f.Add(true, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"xyz"}]}]}]}`))
	f.Add(true, []byte(`{"resource_logs":null,"resourceLogs":[null]}`))
	f.Fuzz(func(t *testing.T, asJSON bool, body []byte) {
		before := l.Stats().Records
		req := httptest.NewRequest(http.MethodPost, "/v1/logs", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/x-protobuf")
		if asJSON {
			req.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		switch after := l.Stats().Records; {
		case w.Code >= 500:
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		case w.Code != http.StatusOK && after != before:
			t.Fatalf("status %d but %d records stored", w.Code, after-before)
		}
	})
}
