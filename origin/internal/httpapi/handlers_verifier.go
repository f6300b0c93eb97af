package httpapi

import (
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/verifierwasm"
)

// CodeWidgetNotBuilt: the origin was built without the verifier module.
const CodeWidgetNotBuilt = "widget_not_built"

// The module's URL names its content, so it never changes: a year, immutable.
const immutableCache = "public, max-age=31536000, immutable"

// manifestCache keeps the manifest short-lived: it is what moves to a new
// module after a deploy.
const manifestCache = "public, max-age=60"

func (a *API) registerVerifierModule() {
	a.Handle(Route{Method: "GET", Path: "/api/v1/widget/manifest.json", Auth: Public, CrossOrigin: true}, a.handleWidgetManifest)
	a.Handle(Route{Method: "GET", Path: "/api/v1/widget/verifier-{hash}.wasm", Auth: Public, CrossOrigin: true}, a.handleVerifierModule)
	a.Handle(Route{Method: "GET", Path: "/api/v1/widget/c2pa-{hash}.wasm", Auth: Public, CrossOrigin: true}, a.handleC2PAModule)
}

func notBuilt() *Problem {
	p := NewProblem(fasthttp.StatusServiceUnavailable, CodeWidgetNotBuilt, "The browser verifier module is not built")
	p.Detail = "This origin was built without the WebAssembly verifier; run `make wasm` (or `make run`) and restart."
	return p
}

type widgetManifest struct {
	// WASM is the module's immutable URL (a path on this origin).
	WASM   string `json:"wasm"`
	SHA256 string `json:"sha256"`
	Size   int    `json:"size"`
	// Lookup is where the module's facts are posted (POST).
	Lookup string `json:"lookup"`
	// C2PAWASM is the C2PA module's immutable URL, fetched only for a
	// picture that carries a C2PA manifest; absent when not built.
	C2PAWASM   string `json:"c2pa_wasm,omitempty"`
	C2PASHA256 string `json:"c2pa_sha256,omitempty"`
	C2PASize   int    `json:"c2pa_size,omitempty"`
}

// handleWidgetManifest: GET /api/v1/widget/manifest.json. Public.
func (a *API) handleWidgetManifest(ctx *fasthttp.RequestCtx) error {
	m := a.cfg.Verifier
	if m == nil {
		return notBuilt()
	}
	man := widgetManifest{WASM: "/api/v1/widget/" + m.Name(), SHA256: m.SHA256(), Size: m.Size(), Lookup: "/api/v1/verify/lookup"}
	if c := m.C2PA(); c != nil {
		man.C2PAWASM, man.C2PASHA256, man.C2PASize = "/api/v1/widget/"+c.Name(), c.SHA256(), c.Size()
	}
	if err := WriteJSON(ctx, fasthttp.StatusOK, man); err != nil {
		return err
	}
	ctx.Response.Header.Set("Cache-Control", manifestCache)
	return nil
}

// handleVerifierModule: GET /api/v1/widget/verifier-{hash}.wasm. Public.
// Another hash (a module of an earlier deploy) is 404: serving the
// current bytes under an old immutable name would poison caches.
func (a *API) handleVerifierModule(ctx *fasthttp.RequestCtx) error {
	return serveModule(ctx, a.cfg.Verifier)
}

// handleC2PAModule: GET /api/v1/widget/c2pa-{hash}.wasm. Public. As the
// verifier module, for its C2PA module.
func (a *API) handleC2PAModule(ctx *fasthttp.RequestCtx) error {
	if a.cfg.Verifier == nil {
		return notBuilt()
	}
	return serveModule(ctx, a.cfg.Verifier.C2PA())
}

func serveModule(ctx *fasthttp.RequestCtx, m *verifierwasm.Module) error {
	if m == nil {
		return notBuilt()
	}
	if h, _ := ctx.UserValue("hash").(string); h != m.Hash() {
		return NewProblem(fasthttp.StatusNotFound, CodeNotFound, "Not found")
	}
	etag := `"` + m.SHA256() + `"`
	h := &ctx.Response.Header
	h.Set("Cache-Control", immutableCache)
	h.Set("ETag", etag)
	h.Set("Vary", "Accept-Encoding")
	h.SetContentType("application/wasm")
	if inm := ctx.Request.Header.Peek("If-None-Match"); len(inm) > 0 && strings.Contains(string(inm), etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return nil
	}
	enc := pickEncoding(string(ctx.Request.Header.Peek("Accept-Encoding")))
	if enc != verifierwasm.Identity {
		h.Set("Content-Encoding", enc)
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetBody(m.Bytes(enc))
	return nil
}

// pickEncoding chooses brotli, then gzip, then identity from an
// Accept-Encoding header (RFC 9110 §12.5.3); a coding with q=0 is refused
// and "*" stands for any coding not listed.
func pickEncoding(accept string) string {
	q := map[string]float64{}
	for _, part := range strings.Split(accept, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		w := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					w = f
				}
			}
		}
		q[name] = w
	}
	weight := func(c string) float64 {
		if w, ok := q[c]; ok {
			return w
		}
		if w, ok := q["*"]; ok {
			return w
		}
		return 0
	}
	best, bw := verifierwasm.Identity, 0.0
	for _, c := range []string{verifierwasm.Brotli, verifierwasm.Gzip} {
		if w := weight(c); w > bw {
			best, bw = c, w
		}
	}
	return best
}
