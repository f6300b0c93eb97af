package webhooks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/wire"
)

// normalizeEvents validates a subscription list: nil means every event
// type; an empty list and unknown types are refused, a repeated type
// counts once. The result is in EventTypes order.
func normalizeEvents(in []string) ([]string, error) {
	return validate.Subset("events", in, EventTypes(), "must not be empty (omit it to subscribe to every event type)")
}

func (s *Service) checkURL(ctx context.Context, raw string) (string, error) {
	u, err := s.guard.CheckURL(ctx, strings.TrimSpace(raw))
	if err != nil {
		var ue *URLError
		if errors.As(err, &ue) {
			return "", validate.Field("url", ue.Reason)
		}
		return "", err
	}
	return u, nil
}

// CreateInput is the data for a new webhook. Nil Events subscribes to every
// event type.
type CreateInput struct {
	URL    string
	Events []string
}

// Create registers a webhook for owner after checking its URL against the
// SSRF policy, and returns it with its secret. The secret is returned only
// here (and by RotateSecret); it is stored sealed and never logged.
func (s *Service) Create(ctx context.Context, owner string, in CreateInput) (Webhook, string, error) {
	var errs validate.Errors
	u, err := s.checkURL(ctx, in.URL)
	if err := errs.Check(err); err != nil {
		return Webhook{}, "", err
	}
	evs, err := normalizeEvents(in.Events)
	_ = errs.Check(err)
	if err := errs.Err(); err != nil {
		return Webhook{}, "", err
	}
	id, err := ids.NewUUID(s.rand)
	if err != nil {
		return Webhook{}, "", err
	}
	secret, sealed, err := s.newSealedSecret(id)
	if err != nil {
		return Webhook{}, "", err
	}
	now := s.clock.Now().UTC()
	r := webhookRecord{Webhook: Webhook{AccountID: owner,
		WebhookEndpoint: wire.WebhookEndpoint{ID: id, URL: u, Events: evs, Active: true, CreatedAt: now, UpdatedAt: now}}, Secret: sealed}
	err = s.st.Update(ctx, func(tx store.Txn) error {
		n := 0
		if err := tx.Scan(accountPrefix(owner), nil, func(_, _ []byte) error {
			n++
			return nil
		}); err != nil {
			return err
		}
		if n >= s.maxPerAcc {
			return ErrLimit
		}
		if err := putRecord(tx, r); err != nil {
			return err
		}
		// An idempotent request's claim commits with the webhook,
		// holding the secret sealed under the request's key.
		if err := store.PutIdemClaimSecret(ctx, tx, id, []byte(secret)); err != nil {
			return err
		}
		return tx.Set(accountKey(owner, r.CreatedAt, id), nil)
	})
	if err != nil {
		return Webhook{}, "", fmt.Errorf("webhooks: create: %w", err)
	}
	return r.Webhook, secret, nil
}

// Get returns owner's webhook id, or ErrNotFound.
func (s *Service) Get(ctx context.Context, owner, id string) (Webhook, error) {
	var r webhookRecord
	err := s.st.View(ctx, func(tx store.Txn) error {
		var err error
		r, err = getOwnRecord(tx, owner, id)
		return err
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: get: %w", err)
	}
	return r.Webhook, nil
}

// List returns one page of owner's webhooks, oldest first.
func (s *Service) List(ctx context.Context, owner, cursor string, limit int) (store.Page[Webhook], error) {
	var p store.Page[Webhook]
	err := s.st.View(ctx, func(tx store.Txn) (err error) {
		p, err = store.IndexPage(tx, accountPrefix(owner), cursor, limit, func(id string) (Webhook, bool, error) {
			r, err := getRecord(tx, id)
			return r.Webhook, err == nil, err
		})
		return err
	})
	if err != nil {
		return store.Page[Webhook]{}, fmt.Errorf("webhooks: list: %w", err)
	}
	return p, nil
}

// UpdateInput changes a webhook; nil members are left unchanged.
type UpdateInput struct {
	URL    *string
	Events *[]string
	Active *bool
}

// Update changes owner's webhook id. A new URL is checked against the SSRF
// policy. Pending deliveries go to the URL current at their next attempt.
// Deactivating stops new deliveries from being queued and makes queued ones
// fail at their next attempt without being sent.
func (s *Service) Update(ctx context.Context, owner, id string, in UpdateInput) (Webhook, error) {
	var u string
	var evs []string
	var err error
	var errs validate.Errors
	if in.URL != nil {
		u, err = s.checkURL(ctx, *in.URL)
		if err := errs.Check(err); err != nil {
			return Webhook{}, err
		}
	}
	if in.Events != nil {
		ev := *in.Events
		if ev == nil {
			ev = []string{}
		}
		evs, err = normalizeEvents(ev)
		_ = errs.Check(err)
	}
	if err := errs.Err(); err != nil {
		return Webhook{}, err
	}
	var out Webhook
	err = s.st.Update(ctx, func(tx store.Txn) error {
		r, err := getOwnRecord(tx, owner, id)
		if err != nil {
			return err
		}
		if in.URL != nil {
			r.URL = u
		}
		if in.Events != nil {
			r.Events = evs
		}
		if in.Active != nil {
			r.Active = *in.Active
		}
		r.UpdatedAt = s.clock.Now().UTC()
		out = r.Webhook
		return putRecord(tx, r)
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: update: %w", err)
	}
	return out, nil
}

// RotateSecret gives owner's webhook id a new secret and returns it (shown
// only here). For the grace period the previous secret keeps signing too:
// X-Service-Signature-Previous and a second webhook-signature entry.
func (s *Service) RotateSecret(ctx context.Context, owner, id string) (Webhook, string, error) {
	secret, sealed, err := s.newSealedSecret(id)
	if err != nil {
		return Webhook{}, "", err
	}
	var out Webhook
	err = s.st.Update(ctx, func(tx store.Txn) error {
		r, err := getOwnRecord(tx, owner, id)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		until := now.Add(s.grace)
		r.PrevSecret, r.PrevUntil, r.Secret = r.Secret, &until, sealed
		r.SecretRotatedAt, r.UpdatedAt = &now, now
		out = r.Webhook
		return putRecord(tx, r)
	})
	if err != nil {
		return Webhook{}, "", fmt.Errorf("webhooks: rotate secret: %w", err)
	}
	return out, secret, nil
}

// deleteBatch bounds the keys removed per transaction when a webhook's
// deliveries are cleaned up.
const deleteBatch = 500

// Delete removes owner's webhook id. The webhook disappears atomically (no
// new delivery is queued, none is sent once this returns, apart from an
// attempt already in flight); its deliveries are then removed in bounded
// batches. If the process stops midway, the dispatcher drops leftover queue
// items of the deleted webhook when they fall due.
func (s *Service) Delete(ctx context.Context, owner, id string) error {
	err := s.st.Update(ctx, func(tx store.Txn) error {
		r, err := getOwnRecord(tx, owner, id)
		if err != nil {
			return err
		}
		if err := tx.Delete(webhookKey(id)); err != nil {
			return err
		}
		return tx.Delete(accountKey(owner, r.CreatedAt, id))
	})
	if err != nil {
		return fmt.Errorf("webhooks: delete: %w", err)
	}
	for {
		n := 0
		err := s.st.Update(ctx, func(tx store.Txn) error {
			n = 0
			var ids []string
			if err := tx.Scan(listPrefix(id, "all"), nil, func(k, _ []byte) error {
				ids = append(ids, string(k[strings.LastIndexByte(string(k), '/')+1:]))
				if len(ids) == deleteBatch {
					return store.ErrStopIteration
				}
				return nil
			}); err != nil {
				return err
			}
			for _, did := range ids {
				if err := removeDelivery(tx, did, id); err != nil {
					return err
				}
			}
			n = len(ids)
			return nil
		})
		if err != nil {
			s.log.Warn("webhook deliveries cleanup stopped", "webhook_id", id, "err", err)
			return nil // the webhook itself is gone; leftovers are harmless
		}
		if n < deleteBatch {
			return nil
		}
	}
}
