package httpapi

import (
	"context"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/store"
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

// ownedList answers one page of the caller's own items (the limit and
// cursor query parameters, see PageParams), each shown through view.
func ownedList[T, V any](ctx *fasthttp.RequestCtx, list func(ctx context.Context, owner, cursor string, limit int) (store.Page[T], error), view func(T) V) error {
	cursor, limit, err := PageParams(ctx)
	if err != nil {
		return err
	}
	p, _ := PrincipalFrom(ctx)
	page, err := list(Context(ctx), p.AccountID, cursor, limit)
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, listResponse(page.Items, page.Next, view))
}
