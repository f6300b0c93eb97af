package httpapi

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/valyala/fasthttp"
)

// RequestIDHeader carries the request id, in both directions.
const RequestIDHeader = "X-Request-Id"

// maxRequestIDLen bounds a client-chosen request id, so that ids stay a
// cheap log field and cannot carry a payload.
const maxRequestIDLen = 64

type requestIDKey struct{}

type routeKey struct{}

// rateLimitedKey holds the name of the policy that refused the request.
type rateLimitedKey struct{}

// unmatchedRoute is the route logged for requests no route matched (404,
// 405, and bodies refused before routing), so that raw paths, which may
// hold ids or values, never reach the access log.
const unmatchedRoute = "-"

// RequestID returns the request's id, assigning one first if the request
// has none yet: the client's X-Request-Id when it is valid (1 to 64
// characters of A-Z, a-z, 0-9, '.', '_', '-'), otherwise 32 random hex
// digits. The id is also set as the response's X-Request-Id header. It is
// stable for the life of the request.
func RequestID(ctx *fasthttp.RequestCtx) string {
	if id, ok := ctx.UserValue(requestIDKey{}).(string); ok {
		return id
	}
	id := string(ctx.Request.Header.Peek(RequestIDHeader))
	if !validRequestID(id) {
		id = newRequestID()
	}
	ctx.SetUserValue(requestIDKey{}, id)
	ctx.Response.Header.Set(RequestIDHeader, id)
	return id
}

// validRequestID reports whether a client-sent id may be used as is. Any
// other id is ignored (not truncated or escaped) and a fresh one issued.
func validRequestID(s string) bool {
	if len(s) == 0 || len(s) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// newRequestID returns 128 random bits as 32 hex digits.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// routeOf returns the template of the route that served ctx, or
// unmatchedRoute.
func routeOf(ctx *fasthttp.RequestCtx) string {
	if r, ok := ctx.UserValue(routeKey{}).(string); ok {
		return r
	}
	return unmatchedRoute
}
