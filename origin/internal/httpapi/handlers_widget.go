package httpapi

import "github.com/valyala/fasthttp"

// WidgetScriptCacheControl lets a browser reuse the widget's scripts for
// five minutes and then revalidate them (ETag), so a deploy reaches every
// page within that time while a site's pages share one download.
const WidgetScriptCacheControl = "public, max-age=300, stale-while-revalidate=60"

func (a *API) registerWidget() {
	if a.cfg.Widget == nil {
		return
	}
	for _, name := range []string{"embed.js", "worker.js"} {
		a.Handle(Route{Method: "GET", Path: "/api/v1/widget/" + name, Auth: Public, CrossOrigin: true}, a.widgetScript(name))
	}
}

// widgetScript serves one of the widget's scripts.
func (a *API) widgetScript(name string) Handler {
	return func(ctx *fasthttp.RequestCtx) error {
		return serveFile(ctx, a.cfg.Widget, name, "text/javascript; charset=utf-8", WidgetScriptCacheControl)
	}
}
