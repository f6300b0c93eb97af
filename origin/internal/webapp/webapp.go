// Package webapp is the web app the origin serves under "/": server-
// rendered pages (html/template) for account holders (overview, sign,
// records, keys, webhooks) and for everybody (verify, registry search),
// with a little plain JavaScript that calls the public API, and the
// session pages (login, register, logout, password reset) that keep the
// account's JWT in the session cookie (see httpapi.SessionCookie).
//
// Pages hold no logic of their own: data comes from the same API any
// client uses, authenticated by the session cookie and the page's CSRF
// token; only the session pages call the accounts service directly, as
// the API's auth handlers do. Assets are embedded and served under
// fingerprinted names (/assets/<name>-<hash>.<ext>) with a year-long
// immutable cache; pages are never cached.
package webapp

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"path"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/shared/clock"
)

//go:embed assets templates
var files embed.FS

// Mounter registers pages; *httpapi.API satisfies it. SetPageAssets
// gives the API's own HTML page (the public certificate) the app's
// stylesheet, script and icon, so that it reads as a page of the app.
type Mounter interface {
	HandlePage(method, path string, h fasthttp.RequestHandler)
	SetPageAssets(css, js, icon string)
}

// Config configures the web app. Accounts and Clock are required.
type Config struct {
	Accounts *accounts.Service
	Clock    clock.Clock
	// AllowAuth, if set, rate-limits the session form posts (login,
	// register, forgot and reset password): false refuses the post.
	AllowAuth func(ctx *fasthttp.RequestCtx) bool
	// IsTLS, if set, reports whether the browser reached the origin over
	// TLS (through a trusted proxy that terminates it, say); the session
	// cookie is then Secure. Nil means only a direct TLS connection counts.
	IsTLS func(ctx *fasthttp.RequestCtx) bool
	// Logger receives internal errors; nil discards.
	Logger *slog.Logger
}

// App is the web app.
type App struct {
	cfg    Config
	log    *slog.Logger
	pages  map[string]*template.Template
	assets map[string]asset  // by fingerprinted file name
	urls   map[string]string // logical name -> /assets/<fingerprinted>
	labels labels
}

type asset struct {
	body        []byte
	contentType string
}

// New loads the templates and fingerprints the assets.
func New(cfg Config) (*App, error) {
	if cfg.Accounts == nil || cfg.Clock == nil {
		return nil, errors.New("webapp: Accounts and Clock are required")
	}
	a := &App{cfg: cfg, log: cfg.Logger, pages: map[string]*template.Template{}, assets: map[string]asset{}, urls: map[string]string{},
		labels: newLabels()}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	ents, err := fs.ReadDir(files, "assets")
	if err != nil {
		return nil, fmt.Errorf("webapp: assets: %w", err)
	}
	for _, e := range ents {
		b, err := fs.ReadFile(files, "assets/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("webapp: asset %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(b)
		ext := path.Ext(e.Name())
		fp := strings.TrimSuffix(e.Name(), ext) + "-" + hex.EncodeToString(sum[:6]) + ext
		a.assets[fp] = asset{body: b, contentType: contentType(ext)}
		a.urls[e.Name()] = "/assets/" + fp
	}
	funcs := template.FuncMap{"asset": a.assetURL}
	layout, err := fs.ReadFile(files, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("webapp: layout: %w", err)
	}
	tpls, err := fs.ReadDir(files, "templates")
	if err != nil {
		return nil, fmt.Errorf("webapp: templates: %w", err)
	}
	for _, e := range tpls {
		if e.Name() == "layout.html" {
			continue
		}
		b, err := fs.ReadFile(files, "templates/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("webapp: template %s: %w", e.Name(), err)
		}
		t, err := template.New("layout").Funcs(funcs).Parse(string(layout))
		if err == nil {
			_, err = t.Parse(string(b))
		}
		if err != nil {
			return nil, fmt.Errorf("webapp: template %s: %w", e.Name(), err)
		}
		a.pages[strings.TrimSuffix(e.Name(), ".html")] = t
	}
	return a, nil
}

// assetURL returns the fingerprinted URL of an embedded asset; a name that
// is not embedded is a template bug and fails rendering.
func (a *App) assetURL(name string) (string, error) {
	u, ok := a.urls[name]
	if !ok {
		return "", fmt.Errorf("webapp: no asset %q", name)
	}
	return u, nil
}

// AssetURL returns the fingerprinted URL of the embedded asset name (e.g.
// "app.js"), or "" if there is none.
func (a *App) AssetURL(name string) string { return a.urls[name] }

func contentType(ext string) string {
	switch ext {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".ico":
		return "image/x-icon"
	}
	return "application/octet-stream"
}

// Mount registers every page and the assets route on m.
func (a *App) Mount(m Mounter) {
	get := func(p string, h fasthttp.RequestHandler) {
		m.HandlePage(fasthttp.MethodGet, p, h)
		m.HandlePage(fasthttp.MethodHead, p, h)
	}
	post := func(p string, h fasthttp.RequestHandler) { m.HandlePage(fasthttp.MethodPost, p, h) }
	m.SetPageAssets(a.urls["app.css"], a.urls["app.js"], a.urls["icon.svg"])
	get("/assets/{file}", a.serveAsset)
	// Browsers ask for /favicon.ico on pages that name no icon (the demo,
	// the API's own pages): the same icon, not a 404.
	get("/favicon.ico", a.favicon)
	get("/", a.home)
	get("/verify", a.public("verify", "Verify a file"))
	get("/search", a.public("search", "Search the registry"))
	get("/login", a.loginPage)
	post("/login", a.loginPost)
	get("/register", a.registerPage)
	post("/register", a.registerPost)
	post("/logout", a.logoutPost)
	get("/forgot-password", a.forgotPage)
	post("/forgot-password", a.forgotPost)
	get("/reset-password", a.resetPage)
	post("/reset-password", a.resetPost)
	get("/session-expired", a.expiredPage)
	get("/sign", a.account("sign", "Sign"))
	get("/records", a.account("records", "Records"))
	get("/records/{id}", a.account("record", "Record"))
	get("/keys", a.account("keys", "Keys"))
	get("/webhooks", a.account("webhooks", "Webhooks"))
}

func (a *App) serveAsset(ctx *fasthttp.RequestCtx) {
	name, _ := ctx.UserValue("file").(string)
	as, ok := a.assets[name]
	if !ok {
		ctx.Response.Header.Set("Cache-Control", "no-store")
		ctx.Error("not found", fasthttp.StatusNotFound)
		return
	}
	h := &ctx.Response.Header
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", `"`+strings.TrimSuffix(name, path.Ext(name))+`"`)
	ctx.SetContentType(as.contentType)
	if bytes.Equal(ctx.Request.Header.Peek("If-None-Match"), []byte(h.Peek("ETag"))) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	ctx.SetBody(as.body)
}

// favicon serves the app's icon at the address browsers ask by default.
func (a *App) favicon(ctx *fasthttp.RequestCtx) {
	u := a.urls["icon.svg"]
	as := a.assets[strings.TrimPrefix(u, "/assets/")]
	ctx.Response.Header.Set("Cache-Control", "public, max-age=86400")
	ctx.SetContentType(as.contentType)
	ctx.SetBody(as.body)
}
