package httpapi

import (
	"time"

	"github.com/valyala/fasthttp"
)

// Problem codes of signing-key revocation.
const (
	// CodeSigningKeyRevoked (409): sign or register named a revoked
	// signing key.
	CodeSigningKeyRevoked = "signing_key_revoked"
	// CodeSigningKeyAlreadyRevoked (409): the key was revoked before.
	CodeSigningKeyAlreadyRevoked = "signing_key_already_revoked"
)

func (a *API) registerKeyRevocation() {
	a.Handle(Route{Method: "DELETE", Path: "/api/v1/keys/signing-keys/{id}", Auth: JWTOnly}, a.handleRevokeSigningKey)
}

type revokeSigningKeyRequest struct {
	Reason string `json:"reason"`
	// CompromisedSince (RFC 3339) moves the cutoff back from now to when
	// the key is believed to have leaked.
	CompromisedSince string `json:"compromised_since"`
}

// handleRevokeSigningKey: DELETE /api/v1/keys/signing-keys/{id}, optional
// JSON body {"reason", "compromised_since"}.
func (a *API) handleRevokeSigningKey(ctx *fasthttp.RequestCtx) error {
	var req revokeSigningKeyRequest
	if ctx.Request.Header.ContentLength() != 0 {
		if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
			return err
		}
	}
	var since *time.Time
	if req.CompromisedSince != "" {
		t, err := time.Parse(time.RFC3339Nano, req.CompromisedSince)
		if err != nil {
			return FieldProblem("compromised_since", "must be an RFC 3339 timestamp")
		}
		since = &t
	}
	p, _ := PrincipalFrom(ctx)
	k, err := a.cfg.Keys.RevokeSigningKey(Context(ctx), p.AccountID, pathParam(ctx, "id"), req.Reason, since)
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, toSigningKeyResponse(k))
}
