package httpapi

import "github.com/valyala/fasthttp"

// HandlePage registers a web page (or one of its assets) at path, outside
// the API: it is not an API route (Routes does not list it, the OpenAPI
// document does not describe it, no authentication or rate limit is
// applied here), but it is served, logged and observed like one. Pages
// do their own session handling and render their own errors.
func (a *API) HandlePage(method, path string, h fasthttp.RequestHandler) {
	a.router.Handle(method, path, func(ctx *fasthttp.RequestCtx) {
		ctx.SetUserValue(routeKey{}, path)
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
