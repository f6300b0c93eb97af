package httpapi

import (
	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/shared/wire"
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

// handleRevokeSigningKey: DELETE /api/v1/keys/signing-keys/{id}, optional
// JSON body wire.RevokeSigningKeyRequest ({"reason", "compromised_since"}:
// an RFC 3339 time that moves the cutoff back from now to when the key is
// believed to have leaked; DecodeJSON refuses any other string but "").
func (a *API) handleRevokeSigningKey(ctx *fasthttp.RequestCtx) error {
	var req wire.RevokeSigningKeyRequest
	if ctx.Request.Header.ContentLength() != 0 {
		if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
			return err
		}
	}
	p, _ := PrincipalFrom(ctx)
	k, err := a.cfg.Keys.RevokeSigningKey(Context(ctx), p.AccountID, pathParam(ctx, "id"), req.Reason, req.CompromisedSince)
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, toSigningKeyResponse(k))
}
