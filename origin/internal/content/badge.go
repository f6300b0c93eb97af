package content

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/wire"
)

// BadgeState is what a public badge says about one record.
type BadgeState struct {
	RecordID string
	OrgName  string
	// Revoked wins over anchoring: a revoked record is never shown as
	// verified.
	Revoked bool
	// KeyRevoked says the record itself is not revoked but its signing
	// key's revocation makes it not authentic (Revoked is then set too),
	// so that the badge can say which.
	KeyRevoked bool
	Anchored   bool
	// Network is the chain the service anchors on (Config.Network), nil
	// when not configured.
	Network *wire.Network
}

// Badge returns the badge state of record id (any owner), or ErrNotFound.
func (s *Service) Badge(ctx context.Context, id string) (BadgeState, error) {
	r, err := s.Find(ctx, id)
	if err != nil {
		return BadgeState{}, err
	}
	// A record its signing key's revocation invalidates reads as revoked,
	// as in verify; one that only waits for its anchoring to count again
	// (a retired device key) reads as pending.
	kr := s.KeyRevocationOf(ctx, r)
	keyRevoked := r.Status != StatusRevoked && !kr.Valid() && !kr.AwaitingAnchor
	return BadgeState{RecordID: r.ID, OrgName: r.Signer.OrgName, Revoked: r.Status == StatusRevoked || keyRevoked, KeyRevoked: keyRevoked,
		Anchored: r.BlockchainStatus == wire.StatusAnchored, Network: s.cfg.Network}, nil
}

// OrgCounts are an organisation's public totals, for its badge.
type OrgCounts struct {
	// OrgName is the name as the newest record spells it.
	OrgName string
	// Signed counts the organisation's records that are not revoked;
	// Anchored those of them whose batch is on chain.
	Signed, Anchored uint64
	// Truncated is true when the organisation has more than MaxOrgScan
	// records and the counts stop there.
	Truncated bool
	// VerifiedDomain is the domain the one account signing under this
	// name proved; empty when it proved none or when several accounts use
	// the name, so the badge says "unverified" (the counts then mix them).
	VerifiedDomain string
}

// MaxOrgScan bounds the records one OrgCounts call reads.
const MaxOrgScan = 100_000

// OrgCounts counts the public records signed under org (matched
// case-insensitively, as PublicSearch does). An organisation with no
// record at all is ErrNotFound; one whose records are all revoked is
// found with zero counts.
func (s *Service) OrgCounts(ctx context.Context, org string) (OrgCounts, error) {
	var c OrgCounts
	var newest *Record
	owners := map[string]bool{}
	var live []*Record
	n := 0
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		return tx.Scan(orgPrefix(org), nil, func(k, _ []byte) error {
			if n == MaxOrgScan {
				c.Truncated = true
				return store.ErrStopIteration
			}
			n++
			r, err := getRecord(tx, string(k[bytes.LastIndexByte(k, '/')+1:]))
			// An index entry whose record is gone counts for nothing; a
			// name with a '/' can share another's prefix, hence EqualFold.
			if err != nil || !strings.EqualFold(r.Signer.OrgName, org) {
				return nil
			}
			c.OrgName, newest = r.Signer.OrgName, r
			owners[r.Owner] = true
			if r.Status == StatusRevoked {
				return nil
			}
			// Only what the key decision and the counts read is kept.
			live = append(live, &Record{Owner: r.Owner, SigningKeyID: r.SigningKeyID, Source: r.Source, CreatedAt: r.CreatedAt,
				AnchoredAt: r.AnchoredAt, BlockchainStatus: r.BlockchainStatus})
			return nil
		})
	})
	if err != nil {
		return OrgCounts{}, fmt.Errorf("content: org counts: %w", err)
	}
	// A record its signing key's revocation invalidates counts as
	// revoked, as verify decides it; each key is read once.
	states := map[string]*wire.SigningKeyState{}
	for _, r := range live {
		st, ok := states[r.Owner+"/"+r.SigningKeyID]
		if !ok {
			st = s.keyState(ctx, r)
			states[r.Owner+"/"+r.SigningKeyID] = st
		}
		if !decideKey(st, r).Valid() {
			continue
		}
		c.Signed++
		if r.BlockchainStatus == wire.StatusAnchored {
			c.Anchored++
		}
	}
	if c.OrgName == "" {
		return OrgCounts{}, ErrNotFound
	}
	if len(owners) == 1 {
		s.Identify(ctx, newest)
		if !newest.Signer.NameShared {
			c.VerifiedDomain = newest.Signer.VerifiedDomain
		}
	}
	return c, nil
}
