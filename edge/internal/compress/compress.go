// Package compress negotiates Content-Encoding (zstd, br, gzip) for the
// edge's responses. Handler compresses what the cache does not serve; the
// cache uses Negotiate, Compressible and Encode to keep one compressed
// variant per stored object.
package compress

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// Config bounds when compression is worth it.
type Config struct {
	MinSize int // below this, send identity
}

// Codings this package produces, in the order preferred when a client
// ranks them equally: zstd decodes fastest, br is smallest, gzip is the
// fallback every client has.
const (
	Zstd   = "zstd"
	Brotli = "br"
	Gzip   = "gzip"
)

// Effort chooses between compressing per response and compressing once.
type Effort int

const (
	// EffortDefault suits a body compressed on every response.
	EffortDefault Effort = iota
	// EffortHigh suits a body compressed once and served many times
	// (a cached object); it costs several times the CPU of EffortDefault.
	EffortHigh
)

// Handler compresses next's responses by the request's Accept-Encoding (zstd, br, gzip)
// when the Content-Type is text/*, JSON (incl. problem+json), SVG, JavaScript or wasm,
// the response has no Content-Encoding yet, and is not a streamed body; adds Vary.
//
// A streamed body (a proxied download or upload answer) is left alone and
// never read into memory. A strong ETag becomes weak on a compressed
// answer, since the bytes on the wire are no longer the tagged ones.
// Cache-Control: no-transform is honoured.
func Handler(next fasthttp.RequestHandler, cfg Config) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		next(ctx)
		compressResponse(ctx, cfg.MinSize)
	}
}

func compressResponse(ctx *fasthttp.RequestCtx, minSize int) {
	resp := &ctx.Response
	if resp.IsBodyStream() || len(resp.Header.ContentEncoding()) > 0 {
		return
	}
	switch status := resp.StatusCode(); {
	case status < 200, status == fasthttp.StatusNoContent, status == fasthttp.StatusPartialContent, status == fasthttp.StatusNotModified:
		return
	}
	if !Compressible(resp.Header.ContentType()) || hasToken(resp.Header.Peek(fasthttp.HeaderCacheControl), "no-transform") {
		return
	}
	// The answer depends on Accept-Encoding whether or not this client
	// gets a compressed one, so shared caches must key on it.
	AddVary(&resp.Header, fasthttp.HeaderAcceptEncoding)
	if ctx.IsHead() {
		return
	}
	body := resp.Body()
	if len(body) < minSize || len(body) == 0 {
		return
	}
	coding := Negotiate(ctx.Request.Header.Peek(fasthttp.HeaderAcceptEncoding))
	if coding == "" {
		return
	}
	out := Encode(nil, coding, body, EffortDefault)
	if len(out) >= len(body) {
		return
	}
	resp.SetBodyRaw(out)
	resp.Header.SetContentEncoding(coding)
	if etag := resp.Header.Peek(fasthttp.HeaderETag); len(etag) > 0 && !bytes.HasPrefix(etag, []byte("W/")) {
		resp.Header.Set(fasthttp.HeaderETag, "W/"+string(etag))
	}
}

// Encode appends src compressed with coding (Zstd, Brotli or Gzip) to dst.
// An unknown coding appends src unchanged.
func Encode(dst []byte, coding string, src []byte, effort Effort) []byte {
	high := effort == EffortHigh
	switch coding {
	case Zstd:
		level := fasthttp.CompressZstdDefault
		if high {
			level = fasthttp.CompressZstdSpeedBetter
		}
		return fasthttp.AppendZstdBytesLevel(dst, src, level)
	case Brotli:
		level := fasthttp.CompressBrotliDefaultCompression
		if high {
			level = 8
		}
		return fasthttp.AppendBrotliBytesLevel(dst, src, level)
	case Gzip:
		level := fasthttp.CompressDefaultCompression
		if high {
			level = fasthttp.CompressBestCompression
		}
		return fasthttp.AppendGzipBytesLevel(dst, src, level)
	}
	return append(dst, src...)
}

// Compressible reports whether a body of this Content-Type gains from
// compression: text, JSON and XML (with their +json/+xml suffixes), SVG,
// JavaScript and WebAssembly. Raster images, video and audio are already
// compressed and never are.
func Compressible(contentType []byte) bool {
	mt := contentType
	if i := bytes.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	mt = bytes.ToLower(bytes.TrimSpace(mt))
	switch {
	case bytes.HasPrefix(mt, []byte("text/")):
		return true
	case bytes.HasSuffix(mt, []byte("+json")), bytes.HasSuffix(mt, []byte("+xml")):
		// image/svg+xml is text; other image/* never match these suffixes.
		return true
	}
	switch string(mt) {
	case "application/json", "application/xml", "application/javascript", "application/x-javascript",
		"application/ecmascript", "application/wasm":
		return true
	}
	return false
}

// Negotiate picks the coding for an Accept-Encoding value (RFC 9110
// §12.5.3): the highest q-value among zstd, br and gzip ("*" stands for
// those not named, "x-gzip" for gzip), ties broken in that order. It
// returns "" (identity) when none is acceptable or the header is absent.
func Negotiate(acceptEncoding []byte) string {
	q := [3]float64{-1, -1, -1} // zstd, br, gzip; -1 = not named
	star := -1.0
	for elem := range bytes.SplitSeq(acceptEncoding, []byte(",")) {
		name, params, _ := bytes.Cut(elem, []byte(";"))
		name = bytes.TrimSpace(name)
		w, ok := qValue(params)
		if !ok {
			continue
		}
		switch {
		case bytes.EqualFold(name, []byte(Zstd)):
			q[0] = w
		case bytes.EqualFold(name, []byte(Brotli)):
			q[1] = w
		case bytes.EqualFold(name, []byte(Gzip)), bytes.EqualFold(name, []byte("x-gzip")):
			q[2] = w
		case len(name) == 1 && name[0] == '*':
			star = w
		}
	}
	best, bestQ := "", 0.0
	for i, name := range [3]string{Zstd, Brotli, Gzip} {
		w := q[i]
		if w < 0 {
			w = star
		}
		if w > bestQ {
			best, bestQ = name, w
		}
	}
	return best
}

// qValue reads the q parameter of one Accept-Encoding element; ok is false
// when it is malformed (the element is then ignored).
func qValue(params []byte) (float64, bool) {
	for p := range bytes.SplitSeq(params, []byte(";")) {
		k, v, _ := bytes.Cut(p, []byte("="))
		if !bytes.EqualFold(bytes.TrimSpace(k), []byte("q")) {
			continue
		}
		return parseQ(bytes.TrimSpace(v))
	}
	return 1, true
}

// parseQ parses an RFC 9110 qvalue: 0, 1 or 0.d{0,3} / 1.0{0,3}.
func parseQ(v []byte) (float64, bool) {
	if len(v) == 0 || len(v) > 5 || (v[0] != '0' && v[0] != '1') {
		return 0, false
	}
	q := float64(v[0] - '0')
	if len(v) == 1 {
		return q, true
	}
	if v[1] != '.' {
		return 0, false
	}
	scale := 0.1
	for _, c := range v[2:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		q += float64(c-'0') * scale
		scale /= 10
	}
	if q > 1 {
		return 0, false
	}
	return q, true
}

// AddVary adds name to the response's Vary header unless it (or "*") is
// already listed.
func AddVary(h *fasthttp.ResponseHeader, name string) {
	v := h.Peek(fasthttp.HeaderVary)
	if hasToken(v, name) || hasToken(v, "*") {
		return
	}
	if len(bytes.TrimSpace(v)) == 0 {
		h.Set(fasthttp.HeaderVary, name)
		return
	}
	h.Set(fasthttp.HeaderVary, string(v)+", "+name)
}

// hasToken reports whether the comma-separated list holds token
// (case-insensitively), ignoring any "=value" part of its elements.
func hasToken(list []byte, token string) bool {
	for len(list) > 0 {
		var e []byte
		if i := bytes.IndexByte(list, ','); i >= 0 {
			e, list = list[:i], list[i+1:]
		} else {
			e, list = list, nil
		}
		if i := bytes.IndexByte(e, '='); i >= 0 {
			e = e[:i]
		}
		if bytes.EqualFold(bytes.TrimSpace(e), []byte(token)) {
			return true
		}
	}
	return false
}
