package httpapi

import (
	"context"

	"github.com/valyala/fasthttp"
)

// ownedJSON runs op on the caller's account and the path parameter param
// (a resource the account owns, by id or name) and writes view of its
// result with status. The domain call gets the request's context and
// owner; an error goes to the caller's problem mapping unchanged.
func ownedJSON[T, V any](ctx *fasthttp.RequestCtx, param string, status int, op func(context.Context, string, string) (T, error), view func(T) V) error {
	p, _ := PrincipalFrom(ctx)
	v, err := op(Context(ctx), p.AccountID, pathParam(ctx, param))
	if err != nil {
		return err
	}
	return WriteJSON(ctx, status, view(v))
}

// ownedNoContent runs op like ownedJSON and answers 204 when it succeeds.
func ownedNoContent(ctx *fasthttp.RequestCtx, param string, op func(context.Context, string, string) error) error {
	p, _ := PrincipalFrom(ctx)
	if err := op(Context(ctx), p.AccountID, pathParam(ctx, param)); err != nil {
		return err
	}
	ctx.SetStatusCode(fasthttp.StatusNoContent)
	return nil
}
