package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/provenant/provenant/shared/wire"
)

func pageQuery(p PageOptions) url.Values {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	return q
}

// All iterates over every item of a paginated list, fetching pages with
// list as the iteration goes; it stops at the first error, which it yields.
func All[T any](ctx context.Context, list func(context.Context, PageOptions) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var p PageOptions
		for {
			page, err := list(ctx, p)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range page.Items {
				if !yield(it, nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			p.Cursor = page.NextCursor
		}
	}
}

// Health calls GET /health: nil when the origin process answers.
func (c *Client) Health(ctx context.Context) error {
	return c.getJSON(ctx, "/health", nil, nil)
}

// Ready calls GET /ready. A not-ready origin answers 503, which is
// returned as an *Error after the retries.
func (c *Client) Ready(ctx context.Context) (*Readiness, error) {
	return getAs[Readiness](ctx, c, "/ready", nil)
}

// OpenAPI returns the origin's OpenAPI 3.1 document.
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	return out, c.getJSON(ctx, "/api/v1/openapi.json", nil, &out)
}

// OriginTypes lists the origin type codes a signing key may declare.
func (c *Client) OriginTypes(ctx context.Context) ([]OriginType, error) {
	var out Page[OriginType]
	return out.Items, c.getJSON(ctx, "/api/v1/origin-types", nil, &out)
}

// RegisterAccount creates an account and returns its first session.
func (c *Client) RegisterAccount(ctx context.Context, req RegisterAccountRequest) (*Session, error) {
	return sendAs[Session](ctx, c, http.MethodPost, "/api/v1/auth/register", req)
}

// Login exchanges an email and password for a session JWT (valid one
// hour; use [Client.WithToken] to call with it).
func (c *Client) Login(ctx context.Context, email, password string) (*Session, error) {
	return sendAs[Session](ctx, c, http.MethodPost, "/api/v1/auth/login", wire.LoginRequest{Email: email, Password: password})
}

// Me returns the account of the session JWT.
func (c *Client) Me(ctx context.Context) (*User, error) {
	return getAs[User](ctx, c, "/api/v1/auth/me", nil)
}

// ForgotPassword asks for a password reset mail; the answer is the same
// whether or not the account exists.
func (c *Client) ForgotPassword(ctx context.Context, email string) (*StatusMessage, error) {
	return sendAs[StatusMessage](ctx, c, http.MethodPost, "/api/v1/auth/forgot-password", wire.ForgotPasswordRequest{Email: email})
}

// ResetPassword sets a new password with a mailed reset token.
func (c *Client) ResetPassword(ctx context.Context, token, password string) (*StatusMessage, error) {
	return sendAs[StatusMessage](ctx, c, http.MethodPost, "/api/v1/auth/reset-password", wire.ResetPasswordRequest{Token: token, Password: password})
}

// CreateAPIKey creates an API key (session JWT). The secret is in the
// answer's Key, and only there.
func (c *Client) CreateAPIKey(ctx context.Context, req CreateAPIKeyRequest) (*NewAPIKey, error) {
	return sendAs[NewAPIKey](ctx, c, http.MethodPost, "/api/v1/keys/api-keys", req)
}

// ListAPIKeys lists one page of the account's API keys (session JWT).
func (c *Client) ListAPIKeys(ctx context.Context, p PageOptions) (*Page[APIKey], error) {
	return getAs[Page[APIKey]](ctx, c, "/api/v1/keys/api-keys", pageQuery(p))
}

// RevokeAPIKey revokes an API key (session JWT); revoking twice is not an
// error.
func (c *Client) RevokeAPIKey(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/api/v1/keys/api-keys/" + seg(id)}, nil)
}

// CreateSigningKey creates a signing key held by the service (session
// JWT).
func (c *Client) CreateSigningKey(ctx context.Context, req CreateSigningKeyRequest) (*SigningKey, error) {
	return sendAs[SigningKey](ctx, c, http.MethodPost, "/api/v1/keys/signing-keys", req)
}

// ListSigningKeys lists one page of the account's signing keys (session
// JWT).
func (c *Client) ListSigningKeys(ctx context.Context, p PageOptions) (*Page[SigningKey], error) {
	return getAs[Page[SigningKey]](ctx, c, "/api/v1/keys/signing-keys", pageQuery(p))
}

// RevokeSigningKey revokes a signing key (session JWT): it signs nothing
// any more, and its records are judged by when they were anchored (see
// RevokeSigningKeyRequest). A second revocation is the *Error
// signing_key_already_revoked.
func (c *Client) RevokeSigningKey(ctx context.Context, id string, req RevokeSigningKeyRequest) (*SigningKey, error) {
	var out SigningKey
	var in any
	if req != (RevokeSigningKeyRequest{}) {
		if req.CompromisedSince != nil {
			t := req.CompromisedSince.UTC()
			req.CompromisedSince = &t
		}
		in = req
	}
	return &out, c.sendJSON(ctx, http.MethodDelete, "/api/v1/keys/signing-keys/"+seg(id), in, &out)
}

func (f RecordFilter) query(p PageOptions) url.Values {
	q := pageQuery(p)
	for k, v := range map[string]string{
		"origin_type": f.OriginType, "blockchain_status": f.BlockchainStatus, "status": f.Status,
		"sha256": f.SHA256, "from": f.From, "to": f.To, "org_name": f.OrgName,
	} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// ListRecords lists one page of the caller's records (API key, scope
// read). OrgName is not a filter of this endpoint and must be empty.
func (c *Client) ListRecords(ctx context.Context, f RecordFilter, p PageOptions) (*Page[Record], error) {
	return getAs[Page[Record]](ctx, c, "/api/v1/content-records", f.query(p))
}

// SearchPublic lists one page of the public registry (every account's
// records, public members only). SHA256 matches the signed file only.
func (c *Client) SearchPublic(ctx context.Context, f RecordFilter, p PageOptions) (*Page[PublicRecord], error) {
	return getAs[Page[PublicRecord]](ctx, c, "/api/v1/content-records/public/search", f.query(p))
}

// Record returns one of the caller's records in full (API key, scope
// read).
func (c *Client) Record(ctx context.Context, id string) (*RecordDetail, error) {
	return getAs[RecordDetail](ctx, c, "/api/v1/content-records/"+seg(id), nil)
}

// Certificate returns a record's public certificate (JSON).
func (c *Client) Certificate(ctx context.Context, id string) (*Certificate, error) {
	return getAs[Certificate](ctx, c, "/api/v1/content-records/"+seg(id)+"/certificate", nil)
}

// RevokeRecord revokes one of the caller's records (API key, scope sign);
// reason may be empty. A second revocation is the *Error already_revoked.
func (c *Client) RevokeRecord(ctx context.Context, id, reason string) (*Record, error) {
	var in any
	if reason != "" {
		in = wire.RevokeRecordRequest{Reason: reason}
	}
	return sendAs[Record](ctx, c, http.MethodDelete, "/api/v1/content-records/"+seg(id), in)
}

// RegisterContent registers a record the caller signed itself (hash-only:
// no file is sent). See [Client.SignLocal] for the whole flow.
func (c *Client) RegisterContent(ctx context.Context, req RegisterContentRequest) (*Record, error) {
	return sendAs[Record](ctx, c, http.MethodPost, "/api/v1/register", req)
}

// DashboardStats returns the account's counters (session JWT).
func (c *Client) DashboardStats(ctx context.Context) (*DashboardStats, error) {
	return getAs[DashboardStats](ctx, c, "/api/v1/dashboard/stats", nil)
}

// CreateWebhook creates a webhook (API key, scope webhooks). The signing
// secret is in the answer's Secret, and only there.
func (c *Client) CreateWebhook(ctx context.Context, req CreateWebhookRequest) (*Webhook, error) {
	return sendAs[Webhook](ctx, c, http.MethodPost, "/api/v1/webhooks", req)
}

// ListWebhooks lists one page of the account's webhooks.
func (c *Client) ListWebhooks(ctx context.Context, p PageOptions) (*Page[Webhook], error) {
	return getAs[Page[Webhook]](ctx, c, "/api/v1/webhooks", pageQuery(p))
}

// Webhook returns one webhook.
func (c *Client) Webhook(ctx context.Context, id string) (*Webhook, error) {
	return getAs[Webhook](ctx, c, "/api/v1/webhooks/"+seg(id), nil)
}

// UpdateWebhook changes the non-nil members of req.
func (c *Client) UpdateWebhook(ctx context.Context, id string, req UpdateWebhookRequest) (*Webhook, error) {
	return sendAs[Webhook](ctx, c, http.MethodPut, "/api/v1/webhooks/"+seg(id), req)
}

// DeleteWebhook deletes a webhook and its deliveries.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/api/v1/webhooks/" + seg(id)}, nil)
}

// RotateWebhookSecret issues a new secret (in the answer's Secret); the
// previous one keeps signing deliveries for 24 hours.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (*Webhook, error) {
	var out Webhook
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/api/v1/webhooks/" + seg(id) + "/rotate-secret"}, &out)
}

// ListDeliveries lists one page of a webhook's deliveries, newest first;
// status (pending, succeeded, failed) may be empty.
func (c *Client) ListDeliveries(ctx context.Context, webhookID, status string, p PageOptions) (*Page[Delivery], error) {
	q := pageQuery(p)
	if status != "" {
		q.Set("status", status)
	}
	return getAs[Page[Delivery]](ctx, c, "/api/v1/webhooks/"+seg(webhookID)+"/deliveries", q)
}

// RetryDelivery retries a failed delivery once, at once.
func (c *Client) RetryDelivery(ctx context.Context, deliveryID string) (*Delivery, error) {
	var out Delivery
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/api/v1/webhooks/deliveries/" + seg(deliveryID) + "/retry"}, &out)
}

// ClaimDomain starts a domain claim (session JWT); the answer says where
// to publish the proof.
func (c *Client) ClaimDomain(ctx context.Context, domain string) (*Domain, error) {
	return sendAs[Domain](ctx, c, http.MethodPost, "/api/v1/domains", wire.StartDomainRequest{Domain: domain})
}

// ListDomains lists one page of the account's domain claims.
func (c *Client) ListDomains(ctx context.Context, p PageOptions) (*Page[Domain], error) {
	return getAs[Page[Domain]](ctx, c, "/api/v1/domains", pageQuery(p))
}

// CheckDomain looks for the claim's proof now.
func (c *Client) CheckDomain(ctx context.Context, domain string) (*Domain, error) {
	var out Domain
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/api/v1/domains/" + seg(domain) + "/check"}, &out)
}

// RemoveDomain removes a domain claim.
func (c *Client) RemoveDomain(ctx context.Context, domain string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/api/v1/domains/" + seg(domain)}, nil)
}
