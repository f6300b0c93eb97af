package lookup

import (
	"fmt"
	"time"

	"github.com/provenant/provenant/shared/rfc3339"
	"github.com/provenant/provenant/shared/wire"
)

// SourceSign is the lookup candidate source of a record the service
// signed itself (POST /sign), with a key it holds.
const SourceSign = "sign"

// KeyTimes are a signing key's revocation times, parsed.
type KeyTimes struct {
	Custody string
	// RevokedAt is zero while the key is active.
	RevokedAt        time.Time
	CompromisedSince time.Time
	Reason           string
}

// ParseKeyState parses the signing-key state of a lookup candidate (nil
// means an unknown key: never revoked).
func ParseKeyState(k *wire.SigningKeyState) (KeyTimes, error) {
	if k == nil {
		return KeyTimes{}, nil
	}
	kt := KeyTimes{Custody: k.Custody, Reason: k.Reason}
	var err error
	if k.RevokedAt != "" {
		if kt.RevokedAt, err = rfc3339.Parse(k.RevokedAt); err != nil {
			return KeyTimes{}, fmt.Errorf("signing_key.revoked_at %q is not RFC 3339", k.RevokedAt)
		}
	}
	if k.CompromisedSince != "" {
		if kt.RevokedAt.IsZero() {
			return KeyTimes{}, fmt.Errorf("signing_key.compromised_since without revoked_at")
		}
		if kt.CompromisedSince, err = rfc3339.Parse(k.CompromisedSince); err != nil {
			return KeyTimes{}, fmt.Errorf("signing_key.compromised_since %q is not RFC 3339", k.CompromisedSince)
		}
	}
	return kt, nil
}

// DecideKey is what the revocation of a record's signing key decides
// about the record, nil when the key is not revoked. The origin's verify,
// its certificate and receipt, and every client deciding from a lookup
// answer call it with the same inputs, so they agree.
//
// The rules (docs/api.md, "Signing-key revocation"):
//
//   - Revoked with compromised_since (someone else may hold the key): the
//     record stays valid only if its batch was anchored before
//     compromised_since. Whoever holds a stolen key can write any time
//     into what they sign, and a record's service time says nothing about
//     who made the signature; only the chain dates it.
//   - Retired without compromised_since, a record the service signed
//     itself (source "sign", a key in the service's custody): the service
//     made that signature and stored the record at createdAt by its own
//     clock; it stays valid when createdAt (or its anchoring) is before
//     the retirement. A routine rotation loses nothing signed before it.
//   - Retired without compromised_since, a record signed by the client (a
//     device key, or any registered record): the service only received
//     it, so its time of receipt counts only once the chain holds the
//     record. A record anchored before the retirement stays valid; one the
//     service received before the retirement stays valid once its batch
//     is anchored (the retirement takes effect for it then) and is not
//     authentic while pending; anything else is not authentic.
//
// The record's own signed timestamp is never used.
func DecideKey(k KeyTimes, source string, createdAt, anchoredAt time.Time) *wire.KeyRevocation {
	if k.RevokedAt.IsZero() {
		return nil
	}
	f := func(t time.Time) string { return rfc3339.Millis(t.UTC()) }
	kr := &wire.KeyRevocation{KeyRevokedAt: f(k.RevokedAt), Reason: k.Reason}
	anchoredBefore := func(t time.Time) bool { return !anchoredAt.IsZero() && anchoredAt.Before(t) }
	anchored := "was not anchored before that"
	if !anchoredAt.IsZero() {
		anchored = "was anchored at " + f(anchoredAt)
	}
	valid := false
	var since, evidence string
	switch {
	case !k.CompromisedSince.IsZero():
		kr.CompromisedSince, kr.Cutoff, kr.Rule = f(k.CompromisedSince), f(k.CompromisedSince), wire.KeyRuleCompromised
		since = "revoked at " + kr.KeyRevokedAt + ", compromised since " + kr.CompromisedSince
		valid, evidence = anchoredBefore(k.CompromisedSince), "this record "+anchored
	case source == SourceSign && k.Custody != wire.CustodyDevice:
		kr.Cutoff, kr.Rule = kr.KeyRevokedAt, wire.KeyRuleRetiredServiceTime
		since = "retired at " + kr.KeyRevokedAt + " (not reported compromised; the service holds it)"
		switch {
		case !createdAt.IsZero() && createdAt.Before(k.RevokedAt):
			valid, evidence = true, "the service signed this record at "+f(createdAt)
		case anchoredBefore(k.RevokedAt):
			valid, evidence = true, "this record "+anchored
		default:
			evidence = "the service has no record of signing this before that"
		}
	default:
		kr.Cutoff, kr.Rule = kr.KeyRevokedAt, wire.KeyRuleRetiredAnchorTime
		since = "retired at " + kr.KeyRevokedAt + " (not reported compromised; signed by its holder, not by the service)"
		received := !createdAt.IsZero() && createdAt.Before(k.RevokedAt)
		switch {
		case anchoredBefore(k.RevokedAt):
			valid, evidence = true, "this record "+anchored
		case received && !anchoredAt.IsZero():
			// The retirement takes effect for the records the service
			// had received when their batch is anchored: a rotation loses
			// nothing, and nothing counts before the chain holds it.
			kr.Decision = wire.KeyDecisionValid
			kr.Detail = "the signing key was " + since + "; the service received this record at " + f(createdAt) +
				", before that, and anchored it at " + f(anchoredAt) + ", so it stays valid"
			return kr
		case received:
			kr.Decision, kr.AwaitingAnchor = wire.KeyDecisionNotAuthentic, true
			kr.Detail = "the signing key was " + since + "; the service received this record at " + f(createdAt) +
				", before that, but it is not anchored yet: it is not authentic until its batch is anchored"
			return kr
		default:
			evidence = "this record " + anchored
		}
	}
	if valid {
		kr.Decision = wire.KeyDecisionValid
		kr.Detail = "the signing key was " + since + "; " + evidence + ", before that, so it stays valid"
		return kr
	}
	kr.Decision = wire.KeyDecisionNotAuthentic
	if evidence == "this record was not anchored before that" || evidence == "the service has no record of signing this before that" {
		kr.Detail = "the signing key was " + since + "; " + evidence + ", so it is not authentic"
	} else {
		kr.Detail = "the signing key was " + since + "; " + evidence + ", after that, so it is not authentic"
	}
	return kr
}
