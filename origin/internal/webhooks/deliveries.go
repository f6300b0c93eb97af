package webhooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
)

// ListDeliveries returns one page of the deliveries of owner's webhook,
// newest first, optionally only those in status (empty: all).
func (s *Service) ListDeliveries(ctx context.Context, owner, webhookID string, status Status, cursor string, limit int) (store.Page[Delivery], error) {
	idx := "all"
	if status != "" {
		if !ValidStatus(status) {
			return store.Page[Delivery]{}, validate.Field("status", "must be one of pending, succeeded, failed")
		}
		idx = string(status)
	}
	var p store.Page[Delivery]
	err := s.st.View(ctx, func(tx store.Txn) (err error) {
		if _, err := getOwnRecord(tx, owner, webhookID); err != nil {
			return err
		}
		// A delivery pruned after its index entry was read is left out.
		p, err = store.IndexPage(tx, listPrefix(webhookID, idx), cursor, limit, func(id string) (Delivery, bool, error) {
			d, err := getDelivery(tx, id)
			if errors.Is(err, ErrNotFound) {
				return d, false, nil
			}
			return d, err == nil, err
		})
		return err
	})
	if err != nil {
		return store.Page[Delivery]{}, fmt.Errorf("webhooks: list deliveries: %w", err)
	}
	return p, nil
}

// GetDelivery returns owner's delivery id, or ErrNotFound.
func (s *Service) GetDelivery(ctx context.Context, owner, id string) (Delivery, error) {
	var d Delivery
	err := s.st.View(ctx, func(tx store.Txn) error {
		var err error
		d, _, err = getOwnDelivery(tx, owner, id)
		return err
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("webhooks: get delivery: %w", err)
	}
	return d, nil
}

// Retry makes owner's failed delivery id pending again for one immediate
// attempt (a manual round of one attempt), with the same delivery id and
// body. If that attempt fails the delivery is failed again. ErrNotRetryable
// if it is not failed; ErrInactive if its webhook is inactive.
func (s *Service) Retry(ctx context.Context, owner, id string) (Delivery, error) {
	var d Delivery
	err := s.st.Update(ctx, func(tx store.Txn) error {
		var r webhookRecord
		var err error
		if d, r, err = getOwnDelivery(tx, owner, id); err != nil {
			return err
		}
		if d.Status != StatusFailed {
			return ErrNotRetryable
		}
		if !r.Active {
			return ErrInactive
		}
		now := s.clock.Now().UTC()
		if len(d.Attempts) >= maxStoredAttempts {
			d.Attempts = d.Attempts[len(d.Attempts)-maxStoredAttempts+1:]
		}
		d.RoundStart, d.RoundAttempts, d.ManualRound = len(d.Attempts), 1, true
		d.NextAttemptAt, d.UpdatedAt, d.LastError = &now, now, ""
		if err := setStatus(tx, &d, StatusPending); err != nil {
			return err
		}
		if err := tx.Set(queueKey(now, d.ID), []byte(d.WebhookID)); err != nil {
			return err
		}
		return putDelivery(tx, d)
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("webhooks: retry: %w", err)
	}
	s.d.wake()
	return d, nil
}

// nextAttemptNumber numbers attempts from 1, continuing after the oldest
// ones were trimmed.
func nextAttemptNumber(d Delivery) int {
	if len(d.Attempts) == 0 {
		return 1
	}
	return d.Attempts[len(d.Attempts)-1].Number + 1
}
