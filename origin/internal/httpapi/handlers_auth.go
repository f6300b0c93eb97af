package httpapi

import (
	"context"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/shared/wire"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/store"
)

// Context returns the context.Context handlers pass to domain packages:
// the request's own, which ends at the route's deadline (Timeouts), when
// the server cancels the requests in flight (API.Cancel, at a shutdown
// past its deadline), or when the handler returns. It is deliberately not
// the *fasthttp.RequestCtx: that one is cancelled as soon as the server
// starts shutting down (in-flight requests should finish), and must not be
// retained after the handler returns. Under an Idempotency-Key on a route
// that creates one record, it carries the claim the record's transaction
// writes (store.PutIdemClaim). Outside a route (no request context yet)
// it is context.Background().
func Context(ctx *fasthttp.RequestCtx) context.Context {
	if ctx == nil {
		return context.Background()
	}
	base, ok := ctx.UserValue(reqContextKey{}).(context.Context)
	if !ok {
		base = context.Background()
	}
	if c, ok := ctx.UserValue(idemClaimUserKey{}).(store.IdemClaim); ok {
		digest, _ := ctx.UserValue(fingerprintKey{}).(string)
		c.Fingerprint = requestFingerprint(ctx, c.Fingerprint, digest) // c.Fingerprint held the route
		return store.WithIdemClaim(base, c)
	}
	return base
}

func toUserResponse(u accounts.User) wire.User {
	return wire.User{ID: u.ID, Email: u.Email, OrgName: u.OrgName, OrgType: u.OrgType, CreatedAt: u.CreatedAt}
}

func (a *API) writeToken(ctx *fasthttp.RequestCtx, status int, u accounts.User) error {
	tok, exp, err := a.cfg.Accounts.IssueToken(u)
	if err != nil {
		return err
	}
	return WriteJSON(ctx, status, wire.Session{
		AccessToken: tok, TokenType: "bearer", ExpiresIn: int(a.cfg.Accounts.TokenTTL() / time.Second),
		ExpiresAt: exp.UTC(), User: toUserResponse(u),
	})
}

func (a *API) handleRegister(ctx *fasthttp.RequestCtx) error {
	var req wire.RegisterAccountRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	u, err := a.cfg.Accounts.Register(Context(ctx), accounts.RegisterInput{
		Email: req.Email, Password: req.Password, OrgName: req.OrgName, OrgType: req.OrgType,
	})
	if err != nil {
		return err
	}
	return a.writeToken(ctx, fasthttp.StatusCreated, u)
}

func (a *API) handleLogin(ctx *fasthttp.RequestCtx) error {
	var req wire.LoginRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	if req.Email == "" {
		return FieldProblem("email", "is required")
	}
	if req.Password == "" {
		return FieldProblem("password", "is required")
	}
	u, err := a.cfg.Accounts.Login(Context(ctx), req.Email, req.Password)
	if err != nil {
		return err
	}
	return a.writeToken(ctx, fasthttp.StatusOK, u)
}

func (a *API) handleMe(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	u, err := a.cfg.Accounts.Get(Context(ctx), p.AccountID)
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, toUserResponse(u))
}

const forgotMessage = "If an account exists for this email, a password reset message has been sent."

func (a *API) handleForgotPassword(ctx *fasthttp.RequestCtx) error {
	var req wire.ForgotPasswordRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	if req.Email == "" {
		return FieldProblem("email", "is required")
	}
	if err := a.cfg.Accounts.ForgotPassword(Context(ctx), req.Email); err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusAccepted, wire.StatusMessage{Status: "accepted", Message: forgotMessage})
}

func (a *API) handleResetPassword(ctx *fasthttp.RequestCtx) error {
	var req wire.ResetPasswordRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	if req.Token == "" {
		return FieldProblem("token", "is required")
	}
	if err := a.cfg.Accounts.ResetPassword(Context(ctx), req.Token, req.Password); err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, wire.StatusMessage{Status: "password_reset", Message: "Log in with the new password."})
}
