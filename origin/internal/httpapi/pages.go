package httpapi

import (
	"net/netip"
	"strings"

	"github.com/valyala/fasthttp"
)

// HandlePage registers a web page (or one of its assets) at path, outside
// the API: it is not an API route (Routes does not list it, the OpenAPI
// document does not describe it, no authentication or rate limit is
// applied here), but it is served, logged and observed like one, and its
// Context has the JSON routes' deadline and ends at a cancelled shutdown.
// Pages do their own session handling and render their own errors.
func (a *API) HandlePage(method, path string, h fasthttp.RequestHandler) {
	rt := Route{Method: method, Path: path, Auth: Public}
	a.router.Handle(method, path, func(ctx *fasthttp.RequestCtx) {
		ctx.SetUserValue(routeKey{}, path)
		defer a.requestContext(ctx, rt)()
		h(ctx)
	})
}

// PageLimiter returns a per-client-IP rate limit for page form posts
// (login, register, password reset) with the login policy's quota, under
// its own name: it reports whether ctx may proceed, and sets the
// RateLimit headers either way.
func (a *API) PageLimiter(name string) (func(ctx *fasthttp.RequestCtx) bool, error) {
	pol := a.cfg.Limits.Login
	pol.Name = name
	l, err := a.NewLimiter(pol)
	if err != nil {
		return nil, err
	}
	rt := Route{Auth: Public, Limiter: l, LimitBy: ByIP}
	pass := func(*fasthttp.RequestCtx) error { return nil }
	return func(ctx *fasthttp.RequestCtx) bool { return a.serve(ctx, rt, pass) == nil }, nil
}

// RequestIsTLS reports whether the client reached the origin over TLS:
// directly, or through a trusted proxy (Config.TrustedProxies) that says
// so with "X-Forwarded-Proto: https". Anyone else's header is ignored.
func (a *API) RequestIsTLS(ctx *fasthttp.RequestCtx) bool {
	if ctx.IsTLS() {
		return true
	}
	addr, ok := netip.AddrFromSlice(ctx.RemoteIP())
	if !ok {
		return false
	}
	addr = addr.Unmap()
	for _, p := range a.cfg.TrustedProxies {
		if p.Contains(addr) {
			return strings.EqualFold(string(ctx.Request.Header.Peek("X-Forwarded-Proto")), "https")
		}
	}
	return false
}
