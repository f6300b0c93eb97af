package badges

import (
	"context"
	"fmt"

	"github.com/provenant/provenant/origin/internal/content"
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

// Badge returns the badge state of record id (any owner), or
// content.ErrNotFound.
func (s *Service) Badge(ctx context.Context, id string) (BadgeState, error) {
	r, err := s.cfg.Records.Find(ctx, id)
	if err != nil {
		return BadgeState{}, err
	}
	// A record its signing key's revocation invalidates reads as revoked,
	// as in verify; one that only waits for its anchoring to count again
	// (a retired device key) reads as pending.
	kr := s.cfg.Records.KeyRevocationOf(ctx, r)
	keyRevoked := r.Status != content.StatusRevoked && !kr.Valid() && !kr.AwaitingAnchor
	return BadgeState{RecordID: r.ID, OrgName: r.Signer.OrgName, Revoked: r.Status == content.StatusRevoked || keyRevoked, KeyRevoked: keyRevoked,
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
// record at all is content.ErrNotFound; one whose records are all revoked
// is found with zero counts.
func (s *Service) OrgCounts(ctx context.Context, org string) (OrgCounts, error) {
	var c OrgCounts
	var newest *content.Record
	owners := map[string]bool{}
	var live []*content.Record
	truncated, err := s.cfg.Records.EachOrgRecord(ctx, org, MaxOrgScan, func(r *content.Record) {
		c.OrgName, newest = r.Signer.OrgName, r
		owners[r.Owner] = true
		if r.Status == content.StatusRevoked {
			return
		}
		// Only what the key decision and the counts read is kept.
		live = append(live, &content.Record{Owner: r.Owner, SigningKeyID: r.SigningKeyID, Source: r.Source, CreatedAt: r.CreatedAt,
			AnchoredAt: r.AnchoredAt, BlockchainStatus: r.BlockchainStatus})
	})
	if err != nil {
		return OrgCounts{}, fmt.Errorf("badges: org counts: %w", err)
	}
	c.Truncated = truncated
	// A record its signing key's revocation invalidates counts as
	// revoked, as verify decides it; each key is read once.
	decide := s.cfg.Records.KeyRevocations()
	for _, r := range live {
		if !decide(ctx, r).Valid() {
			continue
		}
		c.Signed++
		if r.BlockchainStatus == wire.StatusAnchored {
			c.Anchored++
		}
	}
	if c.OrgName == "" {
		return OrgCounts{}, content.ErrNotFound
	}
	if len(owners) == 1 {
		s.cfg.Records.Identify(ctx, newest)
		if !newest.Signer.NameShared {
			c.VerifiedDomain = newest.Signer.VerifiedDomain
		}
	}
	return c, nil
}
