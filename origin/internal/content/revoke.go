package content

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/provenant/provenant/origin/internal/content/counters"
	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
)

// Revoke marks owner's record id revoked with an optional reason. The
// record stays in the registry and in every index; verification then
// reports it as not authentic and why. ErrNotFound for another account's
// record; ErrAlreadyRevoked when revoked before; a *validate.FieldError
// for a reason that is not valid text (invalid UTF-8, control characters).
func (s *Service) Revoke(ctx context.Context, owner, id, reason string) (*Record, error) {
	if !ids.IsUUID(id) {
		return nil, ErrNotFound
	}
	reason = strings.TrimSpace(reason)
	// Verification shows the reason to anyone: no control characters
	// beyond tab and line breaks. Over-long reasons are still cut, but on
	// a character boundary.
	if err := validate.MultilineText("reason", reason, 0); err != nil {
		return nil, err
	}
	for len(reason) > 500 {
		_, n := utf8.DecodeLastRuneInString(reason)
		reason = reason[:len(reason)-n]
	}
	var out *Record
	now := s.now()
	err := s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		r, err := getRecord(tx, id)
		if err != nil {
			return err
		}
		if r.Owner != owner {
			return ErrNotFound
		}
		if r.Status == StatusRevoked {
			return ErrAlreadyRevoked
		}
		r.Status, r.RevokedAt, r.RevokedReason = StatusRevoked, &now, reason
		if err := store.PutJSON(tx, recordKey(id), r); err != nil {
			return err
		}
		out = r
		return counters.Bump(tx, owner, id, func(c *counters.Totals) { c.Revoked++ })
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrAlreadyRevoked) {
			return nil, err
		}
		return nil, fmt.Errorf("content: revoke: %w", err)
	}
	s.log.Info("record revoked", "account_id", owner, "record_id", id)
	return out, nil
}
