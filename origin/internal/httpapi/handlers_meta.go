package httpapi

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/shared/wire"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/origin/internal/keys"
)

// openAPIDocument is the OpenAPI 3.1 description of the API, served at
// GET /api/v1/openapi.json. Extend openapi.json when adding a route.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns a copy of the embedded OpenAPI 3.1 document.
func OpenAPI() []byte { return append([]byte(nil), openAPIDocument...) }

func (a *API) registerBuiltins() error {
	var lims [4]ratelimit.Allower
	for i, p := range []ratelimit.Policy{a.cfg.Limits.Register, a.cfg.Limits.Login, a.cfg.Limits.Forgot, a.cfg.Limits.Reset} {
		l, err := a.NewLimiter(p)
		if err != nil {
			return fmt.Errorf("httpapi: %w", err)
		}
		lims[i] = l
	}
	register, login, forgot, reset := lims[0], lims[1], lims[2], lims[3]

	a.Handle(Route{Method: "GET", Path: "/health", Auth: Public}, a.handleHealth)
	a.Handle(Route{Method: "GET", Path: "/ready", Auth: Public}, a.handleReady)
	a.Handle(Route{Method: "GET", Path: "/api/v1/openapi.json", Auth: Public}, a.handleOpenAPI)
	a.Handle(Route{Method: "GET", Path: "/api/v1/origin-types", Auth: Public}, a.handleOriginTypes)
	a.registerVerifierModule()

	a.Handle(Route{Method: "POST", Path: "/api/v1/auth/register", Auth: Public, Limiter: register}, a.handleRegister)
	a.Handle(Route{Method: "POST", Path: "/api/v1/auth/login", Auth: Public, Limiter: login}, a.handleLogin)
	a.Handle(Route{Method: "GET", Path: "/api/v1/auth/me", Auth: JWTOnly}, a.handleMe)
	a.Handle(Route{Method: "POST", Path: "/api/v1/auth/logout", Auth: JWTOnly}, a.handleLogout)
	a.Handle(Route{Method: "POST", Path: "/api/v1/auth/forgot-password", Auth: Public, Limiter: forgot}, a.handleForgotPassword)
	a.Handle(Route{Method: "POST", Path: "/api/v1/auth/reset-password", Auth: Public, Limiter: reset}, a.handleResetPassword)

	a.Handle(Route{Method: "POST", Path: "/api/v1/keys/api-keys", Auth: JWTOnly, Idempotent: true}, a.handleCreateAPIKey)
	a.Handle(Route{Method: "GET", Path: "/api/v1/keys/api-keys", Auth: JWTOnly}, a.handleListAPIKeys)
	a.Handle(Route{Method: "DELETE", Path: "/api/v1/keys/api-keys/{id}", Auth: JWTOnly}, a.handleRevokeAPIKey)
	a.Handle(Route{Method: "POST", Path: "/api/v1/keys/signing-keys", Auth: JWTOnly, Idempotent: true}, a.handleCreateSigningKey)
	a.Handle(Route{Method: "GET", Path: "/api/v1/keys/signing-keys", Auth: JWTOnly}, a.handleListSigningKeys)
	a.registerKeyRevocation()
	a.registerWebhooks()
	if err := a.registerDomains(); err != nil {
		return err
	}
	if a.cfg.Records != nil {
		return a.registerRecords()
	}
	return nil
}

func (a *API) handleHealth(ctx *fasthttp.RequestCtx) error {
	return WriteJSON(ctx, fasthttp.StatusOK, wire.StatusMessage{Status: "ok"})
}

func (a *API) handleOpenAPI(ctx *fasthttp.RequestCtx) error {
	return writeOK(ctx, "application/json", "", openAPIDocument)
}

func (a *API) handleOriginTypes(ctx *fasthttp.RequestCtx) error {
	return WriteJSON(ctx, fasthttp.StatusOK, ListResponse[keys.OriginType]{Items: keys.OriginTypes()})
}

// ReadyCheck is one dependency GET /ready checks. Check must be cheap and
// honour ctx, which carries ReadyTimeout.
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
	// Optional checks a feature the server runs without (video without
	// ffmpeg): its failure shows as "unavailable" and leaves the status
	// ready.
	Optional bool
}

// ReadyTimeout bounds each readiness check, so that a hung dependency
// makes /ready answer 503 promptly instead of hanging the probe.
const ReadyTimeout = 2 * time.Second

func (a *API) handleReady(ctx *fasthttp.RequestCtx) error {
	resp := wire.Readiness{Status: "ready", Checks: make(map[string]string, len(a.cfg.Ready))}
	status := fasthttp.StatusOK
	for _, c := range a.cfg.Ready {
		cctx, cancel := context.WithTimeout(Context(ctx), ReadyTimeout)
		err := c.Check(cctx)
		cancel()
		if err != nil && c.Optional {
			resp.Checks[c.Name] = "unavailable"
			continue
		}
		if err != nil {
			a.log.Warn("not ready", "check", c.Name, "request_id", RequestID(ctx), "err", err)
			resp.Checks[c.Name], resp.Status, status = "fail", "not_ready", fasthttp.StatusServiceUnavailable
			continue
		}
		resp.Checks[c.Name] = "ok"
	}
	return WriteJSON(ctx, status, resp)
}
