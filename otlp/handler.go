package otlp

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"

	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcplogd/mcplogd/oplog"
)

// Appender is where the records go: an *oplog.Log.
type Appender interface {
	Append(ctx context.Context, recs []oplog.Record) error
}

// Options configures a Handler. A nil *Options means defaults.
type Options struct {
	// MaxBodyBytes limits the body after decompression: a larger one gets
	// 413. Default DefaultMaxBodyBytes; set it to the server's own limit.
	MaxBodyBytes int64

	// Logger receives requests that failed for internal reasons; nil
	// discards them.
	Logger *slog.Logger
}

// Handler is the OTLP/HTTP logs receiver (see the package documentation).
// It does not check credentials: the server that mounts it does, and
// answers a refused request with WriteError.
type Handler struct {
	log    Appender
	limit  int64
	logger *slog.Logger
}

// New returns a Handler that appends to l.
func New(l Appender, opts *Options) *Handler {
	h := &Handler{log: l, limit: DefaultMaxBodyBytes, logger: slog.New(slog.DiscardHandler)}
	if opts != nil && opts.MaxBodyBytes > 0 {
		h.limit = opts.MaxBodyBytes
	}
	if opts != nil && opts.Logger != nil {
		h.logger = opts.Logger
	}
	return h
}

// ServeHTTP answers POST /v1/logs.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.export(w, r); err != nil {
		status, code, msg := h.answer(err, r)
		h.WriteError(w, r, status, code, msg)
	}
}

func (h *Handler) export(w http.ResponseWriter, req *http.Request) error {
	asJSON := false
	switch {
	case isProtobuf(req):
	case mediaType(req) == mediaJSON:
		asJSON = true
	default:
		return &statusError{http.StatusUnsupportedMediaType,
			fmt.Sprintf("unsupported content type %q: send OTLP logs as %s or %s", req.Header.Get("Content-Type"), mediaProtobuf, mediaJSON)}
	}
	b, err := h.readBody(req)
	if err != nil {
		return err
	}
	bud := newBudget(h.limit)
	if err := bud.count(countLogRecords(b, asJSON, int(bud.limit/oplog.RecordCost))); err != nil {
		return err
	}
	msg, err := decodeLogs(b, asJSON)
	if err != nil {
		return err
	}
	recs, rejected, err := records(msg, bud)
	if err != nil {
		return err
	}
	for len(recs) > 0 {
		err := h.log.Append(req.Context(), recs)
		be, ok := oplog.IsBatchError(err)
		if !ok {
			if err != nil {
				return err
			}
			break
		}
		// A rule of oplog that records did not foresee: refuse that
		// record alone, as OTLP's partial success allows, and append the
		// rest (nothing of the failed attempt was written).
		rejected.add(be.Err)
		recs = slices.Delete(recs, be.Index, be.Index+1)
	}
	resp := &collogspb.ExportLogsServiceResponse{}
	if rejected.n > 0 {
		resp.PartialSuccess = &collogspb.ExportLogsPartialSuccess{RejectedLogRecords: rejected.n, ErrorMessage: rejected.message()}
	}
	write(w, http.StatusOK, asJSON, resp)
	return nil
}

// readBody reads the body, decompressing gzip; the decompressed size is
// held to the limit too, so that a small gzip bomb gets 413 after at most
// limit+1 bytes of output.
func (h *Handler) readBody(req *http.Request) ([]byte, error) {
	var r io.Reader = req.Body
	switch enc := strings.ToLower(strings.TrimSpace(req.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			return nil, readError("malformed gzip body", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, &statusError{http.StatusUnsupportedMediaType,
			fmt.Sprintf("unsupported content encoding %q: send OTLP bodies plain or gzip-compressed", enc)}
	}
	b, err := io.ReadAll(io.LimitReader(r, h.limit+1))
	if err != nil {
		return nil, readError("cannot read the body", err)
	}
	if int64(len(b)) > h.limit {
		return nil, &http.MaxBytesError{Limit: h.limit}
	}
	return b, nil
}

// readError keeps an *http.MaxBytesError (413) as it is and makes any
// other read error EINVALID (400).
func readError(what string, err error) error {
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return mbe
	}
	return &oplog.Error{Code: oplog.EINVALID, Message: fmt.Sprintf("%s: %v", what, err), Err: err}
}

// statusError is answered with its HTTP status (415) and the code of that
// status.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return e.msg }

// answer returns the HTTP status, code and message that the rest of the
// API would give err.
func (h *Handler) answer(err error, r *http.Request) (status int, code, msg string) {
	var se *statusError
	switch {
	case errors.As(err, &se):
		return se.status, oplog.CodeForHTTPStatus(se.status), se.msg
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client went away; it will not read this, but an answer must
		// never be an implicit 200.
		return http.StatusServiceUnavailable, oplog.EUNAVAILABLE, "the request was cancelled"
	}
	status, code, msg = oplog.HTTPAnswer(err)
	if code == oplog.EINTERNAL {
		h.logger.Error("request failed", "method", r.Method, "path", Path, "err", err)
	}
	return status, code, msg
}

// WriteError answers an error as OTLP/HTTP asks: a google.rpc.Status in
// the request's encoding (JSON for an unknown content type, so that a
// person with curl can read it) whose code is the gRPC code of the oplog
// error code, with the given HTTP status. The server that mounts the
// Handler answers its own refusals (a wrong token) with it too.
func (h *Handler) WriteError(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	// Decoders quote the bad input, which protobuf strings cannot hold
	// when it is not UTF-8.
	st := &spb.Status{Code: int32(grpcCode(code)), Message: strings.ToValidUTF8(msg, "\uFFFD")}
	write(w, status, !isProtobuf(r), st)
}

// grpcCode maps an oplog error code to the gRPC code of a google.rpc.Status.
func grpcCode(code string) codes.Code {
	switch code {
	case oplog.EINVALID:
		return codes.InvalidArgument
	case oplog.EUNAUTHORIZED:
		return codes.Unauthenticated
	case oplog.ENOTFOUND:
		return codes.NotFound
	case oplog.ECONFLICT:
		return codes.FailedPrecondition
	case oplog.EUNAVAILABLE:
		return codes.Unavailable
	case oplog.ENOSPACE:
		return codes.ResourceExhausted
	}
	return codes.Internal
}

func mediaType(req *http.Request) string {
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	return mt
}

func isProtobuf(req *http.Request) bool {
	mt := mediaType(req)
	return mt == mediaProtobuf || mt == "application/protobuf"
}

// write answers m in OTLP's protobuf or JSON encoding.
func write(w http.ResponseWriter, status int, asJSON bool, m proto.Message) {
	var (
		b   []byte
		err error
		ct  = mediaProtobuf
	)
	if asJSON {
		b, err = protojson.Marshal(m)
		ct = mediaJSON
	} else {
		b, err = proto.Marshal(m)
	}
	if err != nil {
		http.Error(w, "encoding the OTLP answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
