package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"strings"

	"github.com/valyala/fasthttp"
)

// DefaultMaxJSONBody caps JSON request bodies (413 above it).
const DefaultMaxJSONBody = 64 << 10

// DecodeJSON decodes the request body into v (a pointer to a struct):
// Content-Type must be application/json (415 otherwise), the body must be
// at most max bytes (413), exactly one JSON value, and contain no member
// that v does not declare (400 unknown_field). Errors are *Problem values.
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
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonProblem(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		p := NewProblem(fasthttp.StatusBadRequest, CodeMalformedJSON, "Malformed JSON body")
		p.Detail = "the body must contain a single JSON object"
		return p
	}
	return nil
}

func jsonProblem(err error) *Problem {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			p := NewProblem(fasthttp.StatusBadRequest, CodeMalformedJSON, "Malformed JSON body")
			p.Detail = "the body must be a JSON object"
			return p
		}
		return FieldProblem(field, "has the wrong type (want "+typeErr.Type.String()+")")
	}
	// encoding/json reports unknown members as `json: unknown field "name"`;
	// there is no typed error for it.
	const unknown = "json: unknown field "
	if msg := err.Error(); strings.HasPrefix(msg, unknown) {
		p := NewProblem(fasthttp.StatusBadRequest, CodeUnknownField, "Unknown field in request body")
		p.Field = strings.Trim(strings.TrimPrefix(msg, unknown), `"`)
		if len(p.Field) > 64 {
			p.Field = p.Field[:64]
		}
		p.Detail = "unknown fields are rejected; see docs/api.md"
		return p
	}
	p := NewProblem(fasthttp.StatusBadRequest, CodeMalformedJSON, "Malformed JSON body")
	return p
}
