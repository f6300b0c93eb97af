package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/valyala/fasthttp"
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
// GET /verifier (the engine in use).
func (s *Server) AdminHandler() fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
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

// CheckLoopback refuses an admin address that is not on loopback: the
// admin endpoints have no authentication.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("admin address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("admin address %q: must be a loopback address (127.0.0.1, ::1)", addr)
	}
	return nil
}
