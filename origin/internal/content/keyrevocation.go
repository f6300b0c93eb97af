package content

import (
	"context"
	"errors"
	"time"

	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/wire"
)

// keyState returns the state of r's signing key as a lookup candidate
// carries it, nil when the record names no key or the key cannot be read
// (the record is then judged as before, and the failure logged).
func (s *Service) keyState(ctx context.Context, r *Record) *wire.SigningKeyState {
	if r.SigningKeyID == "" {
		return nil
	}
	k, err := s.cfg.Keys.GetSigningKey(ctx, r.Owner, r.SigningKeyID)
	if errors.Is(err, keys.ErrNotFound) {
		return nil
	}
	if err != nil {
		s.log.Warn("signing key unavailable", "record_id", r.ID, "err", err)
		return nil
	}
	return signingKeyState(k)
}

func signingKeyState(k keys.SigningKey) *wire.SigningKeyState {
	f := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	st := &wire.SigningKeyState{Custody: k.Custody, RevokedAt: f(k.RevokedAt)}
	if st.Custody == "" {
		st.Custody = wire.CustodyService
	}
	if k.RevokedAt != nil {
		st.CompromisedSince, st.Reason = f(k.CompromisedSince), k.RevocationReason
	}
	return st
}

// decideKey applies shared/lookup.DecideKey to r with its key's state.
func decideKey(st *wire.SigningKeyState, r *Record) *wire.KeyRevocation {
	kt, err := lookup.ParseKeyState(st)
	if err != nil {
		return nil
	}
	var anchored time.Time
	if r.AnchoredAt != nil {
		anchored = *r.AnchoredAt
	}
	return lookup.DecideKey(kt, r.Source, r.CreatedAt, anchored)
}

// KeyRevocationOf returns what the revocation of r's signing key decided
// about r (docs/api.md, "Signing-key revocation"), nil when the key is not
// revoked. It is decided by shared/lookup.DecideKey from the key's state
// (custody, revoked_at, compromised_since), the record's source and its
// service and anchoring times: the same function, with the same inputs,
// that a client applies to a lookup answer, so that every surface agrees.
func (s *Service) KeyRevocationOf(ctx context.Context, r *Record) *wire.KeyRevocation {
	return decideKey(s.keyState(ctx, r), r)
}

// KeyRevocations returns a function that decides as KeyRevocationOf does
// about many records (an organisation's counts), reading each signing
// key once. It is for one request: the keys' states it read are not
// refreshed.
func (s *Service) KeyRevocations() func(ctx context.Context, r *Record) *wire.KeyRevocation {
	states := map[string]*wire.SigningKeyState{}
	return func(ctx context.Context, r *Record) *wire.KeyRevocation {
		k := r.Owner + "/" + r.SigningKeyID
		st, ok := states[k]
		if !ok {
			st = s.keyState(ctx, r)
			states[k] = st
		}
		return decideKey(st, r)
	}
}
