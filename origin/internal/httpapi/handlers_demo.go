package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"io/fs"

	"github.com/valyala/fasthttp"
)

// DemoCSP is the Content-Security-Policy of GET /demo: the strict policy
// docs/widget.md tells publishers the widget needs, so the demo proves it
// is enough. Its only style-src is the hash of the page's own stylesheet:
// the widget needs no 'unsafe-inline'.
var DemoCSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src blob:; connect-src 'self'; " +
	"img-src 'self'; style-src '" + cspHash(demoStyle) + "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// cspHash is a CSP source expression allowing exactly the inline text s.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// demoStyle is the demo page's stylesheet, allowed by its hash.
const demoStyle = `body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
header, main, footer { max-width: 1040px; margin: 0 auto; padding: 16px 20px; }
h1 { margin: 8px 0 4px; font-size: 26px; }
.label { display: inline-block; background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; padding: 4px 10px; font-size: 14px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 20px; }
figure { margin: 0; background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px; }
figure img { display: block; width: 100%; height: auto; border-radius: 4px; }
figcaption { font-size: 14px; color: #57606a; }
figcaption strong { color: #1f2328; }
code { background: #eaeef2; padding: 1px 4px; border-radius: 4px; overflow-wrap: anywhere; }
`

// demoManifest is the part of the demo directory's manifest.json the page
// uses (origin/internal/demo writes it).
type demoManifest struct {
	OrgName string `json:"org_name"`
	Items   []struct {
		File     string `json:"file"`
		Title    string `json:"title"`
		Caption  string `json:"caption"`
		Expect   string `json:"expect"`
		RecordID string `json:"record_id"`
	} `json:"items"`
}

// demoPage is what the demo template sees.
type demoPage struct {
	demoManifest
	// Origin is this service's scheme and host, as the browser reached it.
	Origin string
}

func (a *API) registerDemo() {
	if a.cfg.Demo == nil {
		return
	}
	a.Handle(Route{Method: "GET", Path: "/demo", Auth: Public}, a.handleDemo)
	a.Handle(Route{Method: "GET", Path: "/demo/{file}", Auth: Public}, a.handleDemoFile)
}

func (a *API) demoManifest() (demoManifest, error) {
	var m demoManifest
	b, err := fs.ReadFile(a.cfg.Demo, "manifest.json")
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

// handleDemo: GET /demo, the widget on the demo pictures.
func (a *API) handleDemo(ctx *fasthttp.RequestCtx) error {
	m, err := a.demoManifest()
	if err != nil {
		return NewProblem(fasthttp.StatusNotFound, CodeNotFound, "No demo data: it is created on the first start of an empty data directory with -demo")
	}
	// The footer's snippet names this origin, as a publisher would copy it.
	scheme := "http"
	if a.RequestIsTLS(ctx) {
		scheme = "https"
	}
	var buf bytes.Buffer
	if err := demoTemplate.Execute(&buf, demoPage{demoManifest: m, Origin: scheme + "://" + string(ctx.Host())}); err != nil {
		return err
	}
	h := &ctx.Response.Header
	h.Set("Content-Security-Policy", DemoCSP)
	h.Set("Cache-Control", "no-store")
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetBody(buf.Bytes())
	return nil
}

// handleDemoFile: GET /demo/{file}, one of the manifest's pictures.
func (a *API) handleDemoFile(ctx *fasthttp.RequestCtx) error {
	m, err := a.demoManifest()
	name := pathParam(ctx, "file")
	if err == nil {
		for _, it := range m.Items {
			if it.File != name {
				continue
			}
			return serveFile(ctx, a.cfg.Demo, name, "image/jpeg", "public, max-age=300")
		}
	}
	return NewProblem(fasthttp.StatusNotFound, CodeNotFound, "Not found")
}

var demoTemplate = template.Must(template.New("demo").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Provenant demo: pictures verified in your browser</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>` + demoStyle + `</style></head>
<body>
<header>
<h1>Provenant demo</h1>
<p class="label">Sample data: these pictures were generated and signed by the demo account <strong>{{.OrgName}}</strong> when this origin first started. They are not real news.</p>
<p>Each picture below is checked <strong>in your browser</strong> by the same Go verification core the origin runs, compiled to WebAssembly. The page sends the service only each file's hashes and watermark payload, never the picture. Click a badge (or focus it and press Enter) for the details.</p>
</header>
<main><div class="grid">
{{range .Items}}<figure data-expect="{{.Expect}}">
<img data-provenant src="/demo/{{.File}}" alt="{{.Title}}: generated landscape" width="960" height="640">
<figcaption><strong>{{.Title}}</strong>: {{.Caption}} <em>(expected: {{.Expect}})</em></figcaption>
</figure>
{{end}}</div></main>
<footer><p>On your own site: <code>&lt;script src="{{.Origin}}/api/v1/widget/embed.js" async&gt;&lt;/script&gt;</code> and <code>data-provenant</code> on the images (see docs/widget.md).</p></footer>
<script src="/api/v1/widget/embed.js" async></script>
</body></html>
`))
