package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/adminguard"
)

// ErrNoSwap means the engine has no module to swap (native engine).
var ErrNoSwap = errors.New("server: the verifier engine has no module to swap")

// Reload fetches the verifier module again (Config.LoadModule), compiles
// and smoke-tests it, and swaps it in; calls in flight finish on the
// previous module. It returns the new module's name.
func (s *Server) Reload(ctx context.Context) (string, error) {
	if s.cfg.Swapper == nil || s.cfg.LoadModule == nil {
		return "", ErrNoSwap
	}
	b, err := s.cfg.LoadModule(ctx)
	if err != nil {
		return "", fmt.Errorf("server: load module: %w", err)
	}
	if _, err := s.cfg.Swapper.Swap(ctx, b); err != nil {
		return "", err
	}
	return s.cfg.Engine.Name(), nil
}

// AdminHandler serves the operator's endpoints, meant for a loopback
// listener: POST /verifier/reload (hot swap of the verifier module) and
// GET /verifier (the engine in use). Every request must pass
// Config.AdminGuard first: a loopback or configured Host, not cross-site,
// and the token when one is configured.
func (s *Server) AdminHandler() fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		h := &ctx.Request.Header
		err := s.cfg.AdminGuard.Check(adminguard.Request{Host: string(h.Host()), Origin: string(h.Peek("Origin")),
			SecFetchSite: string(h.Peek("Sec-Fetch-Site")), SecFetchMode: string(h.Peek("Sec-Fetch-Mode")), Authorization: string(h.Peek("Authorization"))})
		if err != nil {
			status, code := fasthttp.StatusForbidden, "admin_forbidden"
			if errors.Is(err, adminguard.ErrToken) {
				status, code = fasthttp.StatusUnauthorized, "admin_token"
				ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="provenant-edge-admin"`)
			}
			writeProblem(ctx, newProblem(status, code, "Refused by the admin listener", ""))
			return
		}
		switch path := string(ctx.Path()); {
		case path == "/verifier/reload" && ctx.IsPost():
			name, err := s.Reload(ctx)
			if err != nil {
				s.log.Error("verifier reload failed", "err", err)
				status := fasthttp.StatusUnprocessableEntity
				if errors.Is(err, ErrNoSwap) {
					status = fasthttp.StatusConflict
				}
				writeProblem(ctx, newProblem(status, "reload_failed", "Reload failed", err.Error()))
				return
			}
			writeJSON(ctx, map[string]string{"engine": name})
		case path == "/verifier" && ctx.IsGet():
			writeJSON(ctx, map[string]string{"engine": s.cfg.Engine.Name()})
		default:
			writeProblem(ctx, newProblem(fasthttp.StatusNotFound, "not_found", "Not found", ""))
		}
	}
}

func writeJSON(ctx *fasthttp.RequestCtx, v any) {
	b, _ := json.Marshal(v)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
}

// CheckLoopback refuses an admin address that is not on loopback, unless
// a token protects it (token true).
func CheckLoopback(addr string, token bool) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("admin address %q: %w", addr, err)
	}
	if !token && !adminguard.OnLoopback(addr) {
		return fmt.Errorf("admin address %q: must be a loopback address (127.0.0.1, ::1) unless PROVENANT_EDGE_ADMIN_TOKEN is set", addr)
	}
	return nil
}
