package content

import (
	"context"
	"errors"
	"time"

	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/shared/record"
)

// KeyRevocation is what revoking a record's signing key decided about the
// record (docs/api.md, "Signing-key revocation"): the key's revocation,
// and whether the record stays valid. The rule: a record signed with a
// revoked key is trusted only if its batch was anchored before the key's
// cutoff (compromised_since, else the revocation time). The record's own
// timestamp is never used: whoever holds a stolen key can write any time
// into what they sign, but not into the chain. A record not anchored
// before the cutoff is not authentic, whatever it claims.
type KeyRevocation struct {
	KeyRevokedAt     string `json:"key_revoked_at"`
	CompromisedSince string `json:"compromised_since,omitempty"`
	Reason           string `json:"reason,omitempty"`
	// Cutoff is the time the decision compared with.
	Cutoff string `json:"cutoff"`
	// Decision is "valid" or "not_authentic"; Detail says why in a
	// sentence.
	Decision string `json:"decision"`
	Detail   string `json:"detail"`
}

// Decisions of a KeyRevocation.
const (
	KeyDecisionValid        = "valid"
	KeyDecisionNotAuthentic = "not_authentic"
)

// Valid reports whether the record stays valid despite the revocation.
func (k *KeyRevocation) Valid() bool { return k == nil || k.Decision == KeyDecisionValid }

// keyRevocation returns the decision about r when its signing key is
// revoked, nil when it is not (or the key cannot be read: the record is
// then judged as before, and the failure logged).
func (s *Service) keyRevocation(ctx context.Context, r *Record) *KeyRevocation {
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
	return decideKeyRevocation(k, r.AnchoredAt)
}

func decideKeyRevocation(k keys.SigningKey, anchoredAt *time.Time) *KeyRevocation {
	cutoff, revoked := k.Cutoff()
	if !revoked {
		return nil
	}
	f := func(t time.Time) string { return t.UTC().Format(record.TimeFormat) }
	kr := &KeyRevocation{KeyRevokedAt: f(*k.RevokedAt), Reason: k.RevocationReason, Cutoff: f(cutoff)}
	since := "revoked at " + kr.KeyRevokedAt
	if k.CompromisedSince != nil {
		kr.CompromisedSince = f(*k.CompromisedSince)
		since = "revoked at " + kr.KeyRevokedAt + ", compromised since " + kr.CompromisedSince
	}
	switch {
	case anchoredAt != nil && anchoredAt.Before(cutoff):
		kr.Decision = KeyDecisionValid
		kr.Detail = "the signing key was " + since + "; this record was anchored at " + f(*anchoredAt) + ", before that, so it stays valid"
	case anchoredAt != nil:
		kr.Decision = KeyDecisionNotAuthentic
		kr.Detail = "the signing key was " + since + "; this record was anchored at " + f(*anchoredAt) + ", after that, so it is not authentic"
	default:
		kr.Decision = KeyDecisionNotAuthentic
		kr.Detail = "the signing key was " + since + "; this record was not anchored before that, so it is not authentic"
	}
	return kr
}

// KeyRevocationOf returns what the revocation of r's signing key decided
// about r, nil when the key is not revoked.
func (s *Service) KeyRevocationOf(ctx context.Context, r *Record) *KeyRevocation {
	return s.keyRevocation(ctx, r)
}
