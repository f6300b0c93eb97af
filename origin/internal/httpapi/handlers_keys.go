package httpapi

import (
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/shared/wire"
)

// Pagination defaults for list endpoints.
const (
	DefaultPageLimit = 50
	MaxPageLimit     = 100
)

// ListResponse is the envelope of every list endpoint: items in a stable
// order and an opaque cursor for the next page (absent on the last page).
type ListResponse[T any] = wire.Page[T]

// listResponse converts one page of domain items with conv. Items is never
// nil, so an empty page encodes as "items": [].
func listResponse[T, R any](items []T, next string, conv func(T) R) ListResponse[R] {
	out := ListResponse[R]{Items: make([]R, 0, len(items)), NextCursor: next}
	for _, it := range items {
		out.Items = append(out.Items, conv(it))
	}
	return out
}

// PageParams reads the "limit" (1..MaxPageLimit, default DefaultPageLimit)
// and "cursor" query parameters, after refusing any parameter outside
// limit, cursor and extra (see CheckQuery). A cursor that is not one the
// store could have issued is a 400 invalid_cursor.
func PageParams(ctx *fasthttp.RequestCtx, extra ...string) (cursor string, limit int, err error) {
	if err := CheckQuery(ctx, append(extra, pageParams...)...); err != nil {
		return "", 0, err
	}
	args := ctx.QueryArgs()
	limit = DefaultPageLimit
	if v := args.Peek("limit"); len(v) > 0 {
		n, convErr := strconv.Atoi(string(v))
		if convErr != nil || n < 1 || n > MaxPageLimit {
			return "", 0, FieldProblem("limit", "must be an integer from 1 to "+strconv.Itoa(MaxPageLimit))
		}
		limit = n
	}
	cursor = string(args.Peek("cursor"))
	// An empty cursor is the first page, so a loop can pass next_cursor
	// back verbatim from the start.
	if cursor != "" && !validCursor(cursor) {
		return "", 0, cursorProblem()
	}
	return cursor, limit, nil
}

// toAPIKeyResponse and toSigningKeyResponse are a key as the API shows it:
// without its owner (and an API key's hash).
func toAPIKeyResponse(k keys.APIKey) wire.APIKey { return k.APIKey }

func toSigningKeyResponse(k keys.SigningKey) wire.SigningKey { return k.SigningKey }

func (a *API) handleCreateAPIKey(ctx *fasthttp.RequestCtx) error {
	var req wire.CreateAPIKeyRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(ctx)
	k, text, err := a.cfg.Keys.CreateAPIKey(Context(ctx), p.AccountID, keys.CreateAPIKeyInput{Name: req.Name, Scopes: req.Scopes})
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusCreated, wire.NewAPIKey{APIKey: toAPIKeyResponse(k), Key: text})
}

func (a *API) handleListAPIKeys(ctx *fasthttp.RequestCtx) error {
	return ownedList(ctx, a.cfg.Keys.ListAPIKeys, toAPIKeyResponse)
}

func (a *API) handleRevokeAPIKey(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	if _, err := a.cfg.Keys.RevokeAPIKey(Context(ctx), p.AccountID, pathParam(ctx, "id")); err != nil {
		return err
	}
	ctx.SetStatusCode(fasthttp.StatusNoContent)
	return nil
}

func (a *API) handleCreateSigningKey(ctx *fasthttp.RequestCtx) error {
	var req wire.CreateSigningKeyRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(ctx)
	k, err := a.cfg.Keys.CreateSigningKey(Context(ctx), p.AccountID, keys.CreateSigningKeyInput{
		Name: req.Name, OriginType: req.OriginType, DeviceID: req.DeviceID, DeviceInfo: req.DeviceInfo,
		PublicKeyHex: req.PublicKeyHex,
	})
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusCreated, toSigningKeyResponse(k))
}

func (a *API) handleListSigningKeys(ctx *fasthttp.RequestCtx) error {
	return ownedList(ctx, a.cfg.Keys.ListSigningKeys, toSigningKeyResponse)
}
