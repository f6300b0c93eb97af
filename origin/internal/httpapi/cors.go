package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// Cross-origin policy. Routes marked CrossOrigin (verify, the lookup,
// certificates, badges, the widget's script and module) answer any page:
// they need no credential and set no cookie, so "*" exposes nothing a
// direct request would not. No route ever sends
// Access-Control-Allow-Credentials, so a browser never attaches cookies or
// HTTP authentication cross-origin, and preflights of the authenticated
// routes are refused (they get the router's 405 without CORS headers).
const (
	corsExposeHeaders = "ETag, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, Content-Length"
	corsAllowHeaders  = "Content-Type, If-None-Match, X-Request-Id"
	// corsMaxAge is what Chromium honours at most (two hours).
	corsMaxAge = "7200"
)

// corsMethods are the methods a preflight may ask about, in the order the
// Access-Control-Allow-Methods answer lists them.
var corsMethods = [...]string{"GET", "HEAD", "POST"}

// setCORS marks a response as readable by any origin.
func setCORS(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("Access-Control-Allow-Origin", "*")
	ctx.Response.Header.Set("Access-Control-Expose-Headers", corsExposeHeaders)
}

// preflight answers an OPTIONS request for a cross-origin route: 204 with
// the methods the path serves cross-origin. It reports false (and writes
// nothing) when the path has no cross-origin route.
func preflight(ctx *fasthttp.RequestCtx, cors *router.Router) bool {
	// The router matches the raw path; so does this lookup.
	path := string(ctx.Request.URI().PathOriginal())
	var allowed []string
	for _, m := range corsMethods {
		if h, _ := cors.Lookup(m, path, nil); h != nil {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) == 0 {
		return false
	}
	setCORS(ctx)
	ctx.Response.Header.Set("Access-Control-Allow-Methods", strings.Join(allowed, ", "))
	ctx.Response.Header.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	ctx.Response.Header.Set("Access-Control-Max-Age", corsMaxAge)
	ctx.Response.Header.Set("Allow", "OPTIONS, "+strings.Join(allowed, ", "))
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetStatusCode(fasthttp.StatusNoContent)
	return true
}

// etagOf is a strong validator of a response body.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// notModified reports whether the request's If-None-Match names etag (or
// is "*"), per RFC 9110 §13.1.2 (weak comparison).
func notModified(ctx *fasthttp.RequestCtx, etag string) bool {
	inm := string(ctx.Request.Header.Peek("If-None-Match"))
	if inm == "" {
		return false
	}
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// writeValidated finishes a 200 response already in ctx: it sets its ETag
// and cacheControl, and turns it into a bodiless 304 when the client holds
// that version. Other statuses pass through untouched.
func writeValidated(ctx *fasthttp.RequestCtx, cacheControl string) {
	if ctx.Response.StatusCode() != fasthttp.StatusOK {
		return
	}
	etag := etagOf(ctx.Response.Body())
	ctx.Response.Header.Set("ETag", etag)
	ctx.Response.Header.Set("Cache-Control", cacheControl)
	if notModified(ctx, etag) {
		ctx.Response.ResetBody()
		ctx.SetStatusCode(fasthttp.StatusNotModified)
	}
}

// serveFile answers 200 with the file name of fsys as contentType, with
// an ETag and cacheControl (writeValidated). A file fsys cannot read is
// an error (a 500: the embedded files are part of the build).
func serveFile(ctx *fasthttp.RequestCtx, fsys fs.FS, name, contentType, cacheControl string) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	ctx.SetContentType(contentType)
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetBody(b)
	writeValidated(ctx, cacheControl)
	return nil
}

// validated wraps h so that its 200 answers carry an ETag and
// cacheControl and honour If-None-Match.
func validated(cacheControl string, h Handler) Handler {
	return func(ctx *fasthttp.RequestCtx) error {
		if err := h(ctx); err != nil {
			return err
		}
		writeValidated(ctx, cacheControl)
		return nil
	}
}
