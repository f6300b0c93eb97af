package httpapi

import (
	"bytes"
	"errors"
	"slices"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/keys"
)

// AuthKind says which credential authenticated a request.
type AuthKind string

// Credential kinds.
const (
	AuthJWT    AuthKind = "jwt"
	AuthAPIKey AuthKind = "api_key"
)

// Principal is the authenticated caller, available to handlers of
// authenticated routes through PrincipalFrom.
type Principal struct {
	AccountID string
	Kind      AuthKind
	// APIKeyID is set when Kind is AuthAPIKey.
	APIKeyID string
	// Scopes are the API key's scopes; nil for a JWT.
	Scopes []string
}

// HasScope reports whether p may act with scope. A JWT is the account
// owner's own session and carries every scope; an API key only its own.
func (p Principal) HasScope(scope string) bool {
	return p.Kind == AuthJWT || slices.Contains(p.Scopes, scope)
}

type principalKey struct{}

// PrincipalFrom returns the principal of an authenticated request.
func PrincipalFrom(ctx *fasthttp.RequestCtx) (Principal, bool) {
	p, ok := ctx.UserValue(principalKey{}).(Principal)
	return p, ok
}

// RequireScope returns nil if the request's principal has scope, a 403
// insufficient_scope problem if it lacks it, and a 401 if the request is
// not authenticated. Handlers whose scope depends on the request call it
// directly; fixed scopes go in Route.Scope.
func RequireScope(ctx *fasthttp.RequestCtx, scope string) error {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return NewProblem(fasthttp.StatusUnauthorized, CodeUnauthenticated, "Authentication required")
	}
	if !p.HasScope(scope) {
		prob := NewProblem(fasthttp.StatusForbidden, CodeInsufficientScope, "The API key lacks a required scope")
		prob.Detail = "this operation requires the scope " + scope
		return prob
	}
	return nil
}

// maxAuthorizationLen caps the Authorization header before any parsing.
const maxAuthorizationLen = 7 + accounts.MaxTokenLen

// authenticate reads "Authorization: Bearer <token>" and routes it by
// prefix: "iai_" goes to the API-key path, anything else to the JWT path;
// a route that does not accept that kind refuses it before any lookup.
func (a *API) authenticate(ctx *fasthttp.RequestCtx, mode AuthMode) (Principal, error) {
	h := ctx.Request.Header.Peek("Authorization")
	if len(h) == 0 {
		return a.authenticateCookie(ctx, mode)
	}
	if len(h) > maxAuthorizationLen || len(h) < 8 || !bytes.EqualFold(h[:7], []byte("Bearer ")) {
		return Principal{}, NewProblem(fasthttp.StatusUnauthorized, CodeInvalidToken, "Malformed Authorization header")
	}
	token := string(bytes.TrimSpace(h[7:]))
	isKey := len(token) >= len(keys.APIKeyPrefix) && token[:len(keys.APIKeyPrefix)] == keys.APIKeyPrefix
	if isKey {
		if mode == JWTOnly {
			p := NewProblem(fasthttp.StatusUnauthorized, CodeCredentialKind, "This endpoint requires a session token (JWT), not an API key")
			return Principal{}, p
		}
		k, err := a.cfg.Keys.AuthenticateAPIKey(Context(ctx), token)
		if err != nil {
			return Principal{}, err
		}
		return Principal{AccountID: k.AccountID, Kind: AuthAPIKey, APIKeyID: k.ID, Scopes: k.Scopes}, nil
	}
	if mode == APIKeyOnly || mode == APIKeyOrSession {
		return Principal{}, apiKeyRequired("a session token")
	}
	return a.sessionPrincipal(ctx, token)
}

// sessionPrincipal authenticates a session JWT. A refused token reads as
// the bare accounts.ErrInvalidToken, whatever wrapped it, so the answer
// never says why; other errors (a store failure) pass through.
func (a *API) sessionPrincipal(ctx *fasthttp.RequestCtx, token string) (Principal, error) {
	u, err := a.cfg.Accounts.Authenticate(Context(ctx), token)
	if err != nil {
		if !errors.Is(err, accounts.ErrInvalidToken) {
			return Principal{}, err
		}
		return Principal{}, accounts.ErrInvalidToken
	}
	return Principal{AccountID: u.ID, Kind: AuthJWT}, nil
}

// apiKeyRequired is the 401 for a route that takes only an API key,
// called with got, the credential that was sent instead.
func apiKeyRequired(got string) *Problem {
	p := NewProblem(fasthttp.StatusUnauthorized, CodeCredentialKind, "This endpoint requires an API key, not "+got)
	p.Detail = "send an API key (" + keys.APIKeyPrefix + "...) as the Bearer token"
	return p
}

// authenticateCookie authenticates a request without an Authorization
// header by its session cookie: a JWT, accepted where JWTs are and on
// APIKeyOrSession routes, and on unsafe methods only with the session's
// CSRF token.
func (a *API) authenticateCookie(ctx *fasthttp.RequestCtx, mode AuthMode) (Principal, error) {
	token := SessionToken(ctx)
	if token == "" {
		return Principal{}, NewProblem(fasthttp.StatusUnauthorized, CodeUnauthenticated, "Authentication required")
	}
	if mode == APIKeyOnly {
		return Principal{}, apiKeyRequired("a session")
	}
	if len(token) > accounts.MaxTokenLen {
		return Principal{}, accounts.ErrInvalidToken
	}
	if !safeMethod(ctx.Method()) && !CheckCSRF(token, string(ctx.Request.Header.Peek(CSRFHeader))) {
		p := NewProblem(fasthttp.StatusForbidden, CodeCSRF, "Missing or wrong CSRF token")
		p.Detail = "a write authenticated by the session cookie must carry the session's CSRF token in the " + CSRFHeader + " header"
		return Principal{}, p
	}
	return a.sessionPrincipal(ctx, token)
}
