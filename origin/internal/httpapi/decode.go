package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/valyala/fasthttp"
)

// DefaultMaxJSONBody caps JSON request bodies (413 above it).
const DefaultMaxJSONBody = 64 << 10

// DecodeJSON decodes the request body into v (a pointer to a struct):
// Content-Type must be application/json (415 otherwise), the body must be
// at most max bytes (413), exactly one JSON value, and contain no member
// that v does not declare (400 unknown_field). Member names match
// case-sensitively, a repeated name is refused (400 duplicate_field), and
// strings must be valid UTF-8 with no lone surrogate escape (400
// malformed_json naming the member). Errors are *Problem values.
//
// The body is read through a capped reader, so the cap holds when the
// server streams request bodies (fasthttp StreamRequestBody), where
// ctx.PostBody would read an unbounded stream into memory.
func DecodeJSON(ctx *fasthttp.RequestCtx, max int, v any) error {
	ct := ctx.Request.Header.ContentType()
	if mt, _, err := mime.ParseMediaType(string(ct)); err != nil || mt != "application/json" {
		return NewProblem(fasthttp.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be application/json")
	}
	r, err := requestBody(ctx, int64(max))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(r)
	if errors.Is(err, errBodyCap) {
		ctx.SetConnectionClose()
		return NewProblem(fasthttp.StatusRequestEntityTooLarge, CodeBodyTooLarge, "Request body too large")
	}
	if err != nil {
		return NewProblem(fasthttp.StatusBadRequest, CodeBadRequest, "The request body could not be read")
	}
	noteBody(ctx, body)
	return decodeJSONBody(ct, body, max, v)
}

func decodeJSONBody(contentType, body []byte, max int, v any) error {
	mt, _, err := mime.ParseMediaType(string(contentType))
	if err != nil || mt != "application/json" {
		p := NewProblem(fasthttp.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be application/json")
		return p
	}
	if len(body) > max {
		return NewProblem(fasthttp.StatusRequestEntityTooLarge, CodeBodyTooLarge, "Request body too large")
	}
	// Every request body is an object; a top-level null would otherwise
	// decode as "no members" and surface later as a confusing validation
	// error.
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		p := NewProblem(fasthttp.StatusBadRequest, CodeMalformedJSON, "Malformed JSON body")
		p.Detail = "the body must be a JSON object"
		return p
	}
	// json (v2 semantics) matches member names case-sensitively and
	// refuses duplicate names, invalid UTF-8 and lone surrogate escapes,
	// and trailing data after the value; RejectUnknownMembers adds the
	// unknown-member refusal.
	if err := json.Unmarshal(body, v, json.RejectUnknownMembers(true), requestTimes); err != nil {
		return jsonProblem(err)
	}
	return nil
}

// errNotTimestamp is what a time member that is not RFC 3339 decodes to;
// jsonProblem turns it into the member's validation problem.
var errNotTimestamp = errors.New("not an RFC 3339 timestamp")

// requestTimes is how every *time.Time member of a request body is read,
// so that the types the SDK sends (shared/wire) can carry times while the
// API keeps one rule for them: a string that time.Parse reads with the
// RFC3339Nano layout; "" or null leaves the member nil (not given); any
// other value is errNotTimestamp (400 naming the member). It is immutable.
var requestTimes = json.WithUnmarshalers(json.UnmarshalFromFunc(func(dec *jsontext.Decoder, p **time.Time) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*p = nil
	switch v.Kind() {
	case 'n':
		return nil
	case '"':
		s, err := jsontext.AppendUnquote(nil, v)
		if err != nil {
			return err
		}
		if len(s) == 0 {
			return nil
		}
		t, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return errNotTimestamp
		}
		*p = &t
		return nil
	}
	return errNotTimestamp
}))

// maxFieldName bounds the member name echoed back in a problem.
const maxFieldName = 64

// memberOf returns the top-level member a JSON pointer designates ("" for
// the root), truncated so a hostile name cannot bloat the response.
func memberOf(ptr jsontext.Pointer) string {
	for tok := range ptr.Tokens() {
		if len(tok) > maxFieldName {
			tok = strings.ToValidUTF8(tok[:maxFieldName], "")
		}
		return tok
	}
	return ""
}

func jsonProblem(err error) *Problem {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		field := memberOf(syn.JSONPointer)
		if errors.Is(syn.Err, jsontext.ErrDuplicateName) {
			p := NewProblem(fasthttp.StatusBadRequest, CodeDuplicateField, "Duplicate field in request body")
			return p.withField(field, field+" appears more than once in an object")
		}
		p := NewProblem(fasthttp.StatusBadRequest, CodeMalformedJSON, "Malformed JSON body")
		// The library keeps its invalid-UTF-8 sentinel internal; its message
		// is the only signal. Naming the member tells the client which
		// string to fix.
		if msg := syn.Error(); strings.Contains(msg, "UTF-8") || strings.Contains(msg, "surrogate") {
			p.withField(field, field+" must be valid UTF-8 (no lone surrogate escapes)")
		}
		return p
	}
	var sem *json.SemanticError
	if errors.As(err, &sem) {
		field := memberOf(sem.JSONPointer)
		if errors.Is(sem.Err, json.ErrUnknownName) {
			p := NewProblem(fasthttp.StatusBadRequest, CodeUnknownField, "Unknown field in request body")
			return p.withField(field, field+" is not a member of this request (names are case-sensitive)")
		}
		if field == "" {
			p := NewProblem(fasthttp.StatusBadRequest, CodeMalformedJSON, "Malformed JSON body")
			p.Detail = "the body must be a JSON object"
			return p
		}
		if errors.Is(sem.Err, errNotTimestamp) {
			return FieldProblem(field, "must be an RFC 3339 timestamp")
		}
		want := "a different type"
		if sem.GoType != nil {
			want = sem.GoType.String()
		}
		return FieldProblem(field, "has the wrong type (want "+want+")")
	}
	return NewProblem(fasthttp.StatusBadRequest, CodeMalformedJSON, "Malformed JSON body")
}
