package otlp_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// amplified is a request whose resource carries an attribute of attrBytes
// over n log records, each with body text (none when "").
func amplified(attrBytes, n int, text string) *collogspb.ExportLogsServiceRequest {
	lrs := make([]*logspb.LogRecord, n)
	for i := range lrs {
		lrs[i] = &logspb.LogRecord{}
		if text != "" {
			lrs[i].Body = &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: fmt.Sprintf("%s %d", text, i)}}
		}
	}
	str := func(s string) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
	}
	return &collogspb.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "service.name", Value: str("game")},
			{Key: "blob", Value: str(strings.Repeat("r", attrBytes))},
		}},
		ScopeLogs: []*logspb.ScopeLogs{{Scope: &commonpb.InstrumentationScope{Name: "Net"}, LogRecords: lrs}},
	}}}
}

// encode returns msg as protobuf or OTLP/JSON with its content type.
func encode(tb testing.TB, msg proto.Message, asJSON bool) ([]byte, string) {
	tb.Helper()
	if asJSON {
		b, err := protojson.Marshal(msg)
		if err != nil {
			tb.Fatal(err)
		}
		return b, "application/json"
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		tb.Fatal(err)
	}
	return b, "application/x-protobuf"
}

// send posts body to /v1/logs with the token.
func send(tb testing.TB, h *harness, contentType string, body []byte) (int, []byte) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, h.URL+"/v1/logs", bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("POST /v1/logs: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestServer_OTLP_ResourceCopiesBounded is the request: a 100 KB
// resource attribute over 5,000 empty log records (a ~110 KB body) would
// be 500 MB of records, each holding a copy. It is refused with 413 naming
// the resource and the count, and nothing is stored; a request whose
// copies fit the budget (8 × the body limit) is stored whole.
func TestServer_OTLP_ResourceCopiesBounded(t *testing.T) {
	h := mustServe(t, nil)
	for _, asJSON := range []bool{false, true} {
		body, ct := encode(t, amplified(100<<10, 5000, ""), asJSON)
		if !asJSON && (len(body) < 100<<10 || len(body) > 120<<10) {
			t.Fatalf("the request is %d bytes, want ~110 KB", len(body))
		}
		status, b := send(t, h, ct, body)
		if status != http.StatusRequestEntityTooLarge {
			t.Fatalf("json %v: status %d, body %.300s", asJSON, status, b)
		}
		var st spb.Status
		if asJSON {
			err := protojson.Unmarshal(b, &st)
			if err != nil {
				t.Fatalf("answer %.300s: %v", b, err)
			}
		} else if err := proto.Unmarshal(b, &st); err != nil {
			t.Fatalf("answer %.300s: %v", b, err)
		}
		for _, want := range []string{"too large once expanded", "resourceLogs[0].scopeLogs[0]", "each of its 5000 log records", "8 × the body limit of 1048576 bytes"} {
			if !strings.Contains(st.GetMessage(), want) {
				t.Errorf("json %v: message %q lacks %q", asJSON, st.GetMessage(), want)
			}
		}
		if codes.Code(st.GetCode()) != codes.InvalidArgument {
			t.Errorf("code %v", codes.Code(st.GetCode()))
		}
		if n := h.Log.Stats().Records; n != 0 {
			t.Fatalf("%d records stored, want none", n)
		}
	}

	// Usual resource attributes over a full batch: stored, each with its copy.
	body, ct := encode(t, amplified(1000, 2000, "tick"), false)
	if status, b := send(t, h, ct, body); status != http.StatusOK {
		t.Fatalf("a 1 KB resource over 2,000 records: status %d, %.300s", status, b)
	}
	recs := storedLines(t, h)
	if h.Log.Stats().Records != 2000 || len(recs) == 0 || recs[0].Source != "game" {
		t.Fatalf("stored %d records", h.Log.Stats().Records)
	}
	if d := decodeData(t, recs[0]); len(fmt.Sprint(d.Resource["blob"])) != 1000 {
		t.Errorf("record 1's resource: %v", d.Resource)
	}
}

// TestServer_OTLP_ManyTinyRecordsRefused: 40,000 empty log records (80 KB
// of protobuf, 240 KB of JSON) are counted before the body is decoded and
// refused with 413 naming the count; nothing is stored.
func TestServer_OTLP_ManyTinyRecordsRefused(t *testing.T) {
	h := mustServe(t, nil)
	msg := amplified(0, 40_000, "")
	for _, asJSON := range []bool{false, true} {
		body, ct := encode(t, msg, asJSON)
		status, b := send(t, h, ct, body)
		if status != http.StatusRequestEntityTooLarge || !bytes.Contains(b, []byte("its 40000 log records")) {
			t.Errorf("json %v: status %d, %.300s", asJSON, status, b)
		}
	}
	if n := h.Log.Stats().Records; n != 0 {
		t.Fatalf("%d records stored, want none", n)
	}
}

// TestServer_OTLP_DeepAttributes: an attribute value nested 1,000 arrays
// deep (in protobuf and in OTLP/JSON) is stored with what is deeper than 32
// levels replaced by a placeholder, so that no reader of data recurses
// without bound; 10,000 deep is past the decoders' recursion limit: 400.
func TestServer_OTLP_DeepAttributes(t *testing.T) {
	deep := func(n int) *collogspb.ExportLogsServiceRequest {
		v := &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "bottom"}}
		for range n {
			v = &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: []*commonpb.AnyValue{v}}}}
		}
		req := amplified(0, 1, "deep")
		req.ResourceLogs[0].ScopeLogs[0].LogRecords[0].Attributes = []*commonpb.KeyValue{{Key: "deep", Value: v}}
		return req
	}
	for _, asJSON := range []bool{false, true} {
		h := mustServe(t, nil)
		body, ct := encode(t, deep(10_000), asJSON)
		if status, b := send(t, h, ct, body); status != http.StatusBadRequest || !strings.Contains(string(b), "malformed") {
			t.Fatalf("json %v, 10,000 deep: status %d, %.300s", asJSON, status, b)
		}
		body, ct = encode(t, deep(1000), asJSON)
		if status, b := send(t, h, ct, body); status != http.StatusOK {
			t.Fatalf("json %v, 1,000 deep: status %d, %.300s", asJSON, status, b)
		}
		recs := storedLines(t, h)
		if len(recs) != 1 {
			t.Fatalf("json %v: %d records stored", asJSON, len(recs))
		}
		depth, x := 0, decodeData(t, recs[0]).Attributes["deep"]
		for {
			a, ok := x.([]any)
			if !ok || len(a) != 1 {
				break
			}
			depth, x = depth+1, a[0]
		}
		if depth > 40 || x != "[nested too deeply]" {
			t.Fatalf("json %v: stored %d levels deep down to %v, want a placeholder by level 32", asJSON, depth, x)
		}
	}
}
