package httpapi

import (
	"encoding/json"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/wire"
)

// Problem codes of the webhook endpoints.
const (
	CodeDeliveryNotFailed = "delivery_not_failed"
	CodeWebhookInactive   = "webhook_inactive"
	CodeWebhookLimit      = "webhook_limit_reached"
)

func toWebhookResponse(w webhooks.Webhook) wire.Webhook {
	return wire.Webhook{WebhookEndpoint: w.WebhookEndpoint}
}

// withSecret is w as create and rotate-secret answer: with its secret,
// the one time it is shown.
func withSecret(w wire.Webhook, secret string) wire.Webhook {
	w.Secret = secret
	return w
}

func toDeliveryResponse(d webhooks.Delivery) wire.Delivery {
	out := wire.Delivery{ID: d.ID, WebhookID: d.WebhookID, Event: d.Event, Status: string(d.Status), CreatedAt: d.CreatedAt,
		UpdatedAt: d.UpdatedAt, NextAttemptAt: d.NextAttemptAt, LastError: d.LastError,
		Attempts: make([]wire.Attempt, 0, len(d.Attempts)), Payload: json.RawMessage(d.Body)}
	for _, a := range d.Attempts {
		out.Attempts = append(out.Attempts, wire.Attempt{Attempt: a.Number, At: a.At, StatusCode: a.StatusCode,
			LatencyMS: float64(a.Latency.Microseconds()) / 1000, Error: a.Error, Manual: a.Manual})
	}
	return out
}

func (a *API) registerWebhooks() {
	if a.cfg.Webhooks == nil {
		return
	}
	rt := func(method, path string) Route {
		return Route{Method: method, Path: path, Auth: APIKeyOrSession, Scope: keys.ScopeWebhooks}
	}
	create := rt("POST", "/api/v1/webhooks")
	create.Idempotent = true
	a.Handle(create, a.handleCreateWebhook)
	a.Handle(rt("GET", "/api/v1/webhooks"), a.handleListWebhooks)
	a.Handle(rt("GET", "/api/v1/webhooks/{id}"), a.handleGetWebhook)
	a.Handle(rt("PUT", "/api/v1/webhooks/{id}"), a.handleUpdateWebhook)
	a.Handle(rt("DELETE", "/api/v1/webhooks/{id}"), a.handleDeleteWebhook)
	a.Handle(rt("POST", "/api/v1/webhooks/{id}/rotate-secret"), a.handleRotateWebhookSecret)
	a.Handle(rt("GET", "/api/v1/webhooks/{id}/deliveries"), a.handleListDeliveries)
	a.Handle(rt("POST", "/api/v1/webhooks/deliveries/{id}/retry"), a.handleRetryDelivery)
	a.Handle(rt("POST", "/api/v1/webhooks/{id}/test"), a.handleTestWebhook)
}

// handleTestWebhook: POST /api/v1/webhooks/{id}/test queues a
// webhook.test delivery to that webhook (202 with the delivery).
func (a *API) handleTestWebhook(ctx *fasthttp.RequestCtx) error {
	return ownedJSON(ctx, "id", fasthttp.StatusAccepted, a.cfg.Webhooks.SendTest, toDeliveryResponse)
}

func (a *API) handleCreateWebhook(ctx *fasthttp.RequestCtx) error {
	var req wire.CreateWebhookRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(ctx)
	w, secret, err := a.cfg.Webhooks.Create(Context(ctx), p.AccountID, webhooks.CreateInput{URL: req.URL, Events: req.Events})
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusCreated, withSecret(toWebhookResponse(w), secret))
}

func (a *API) handleListWebhooks(ctx *fasthttp.RequestCtx) error {
	return ownedList(ctx, a.cfg.Webhooks.List, toWebhookResponse)
}

func (a *API) handleGetWebhook(ctx *fasthttp.RequestCtx) error {
	return ownedJSON(ctx, "id", fasthttp.StatusOK, a.cfg.Webhooks.Get, toWebhookResponse)
}

func (a *API) handleUpdateWebhook(ctx *fasthttp.RequestCtx) error {
	var req wire.UpdateWebhookRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(ctx)
	w, err := a.cfg.Webhooks.Update(Context(ctx), p.AccountID, pathParam(ctx, "id"),
		webhooks.UpdateInput{URL: req.URL, Events: req.Events, Active: req.Active})
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, toWebhookResponse(w))
}

func (a *API) handleDeleteWebhook(ctx *fasthttp.RequestCtx) error {
	return ownedNoContent(ctx, "id", a.cfg.Webhooks.Delete)
}

func (a *API) handleRotateWebhookSecret(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	w, secret, err := a.cfg.Webhooks.RotateSecret(Context(ctx), p.AccountID, pathParam(ctx, "id"))
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, withSecret(toWebhookResponse(w), secret))
}

func (a *API) handleListDeliveries(ctx *fasthttp.RequestCtx) error {
	cursor, limit, err := PageParams(ctx, "status")
	if err != nil {
		return err
	}
	status := webhooks.Status(ctx.QueryArgs().Peek("status"))
	p, _ := PrincipalFrom(ctx)
	page, err := a.cfg.Webhooks.ListDeliveries(Context(ctx), p.AccountID, pathParam(ctx, "id"), status, cursor, limit)
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, listResponse(page.Items, page.Next, toDeliveryResponse))
}

func (a *API) handleRetryDelivery(ctx *fasthttp.RequestCtx) error {
	return ownedJSON(ctx, "id", fasthttp.StatusAccepted, a.cfg.Webhooks.Retry, toDeliveryResponse)
}
