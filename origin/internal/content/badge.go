package content

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/provenant/provenant/origin/internal/keys"
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
	// KeyRevoked is set when the record's signing key was revoked and the
	// service's decision (KeyRevocation) is that the record is not
	// authentic; it too wins over anchoring.
	KeyRevoked bool
	Anchored   bool
	// Network is the chain the service anchors on (Config.Network), nil
	// when not configured.
	Network *wire.Network
}

// Badge returns the badge state of record id (any owner), or ErrNotFound.
func (s *Service) Badge(ctx context.Context, id string) (BadgeState, error) {
	r, err := s.lookup(ctx, id)
	if err != nil {
		return BadgeState{}, err
	}
	return BadgeState{RecordID: r.ID, OrgName: r.Signer.OrgName, Revoked: r.Status == StatusRevoked,
		KeyRevoked: !s.keyRevocation(ctx, r).Valid(),
		Anchored:   r.BlockchainStatus == wire.StatusAnchored, Network: s.cfg.Network}, nil
}

// OrgCounts are an organisation's public totals, for its badge.
type OrgCounts struct {
	// OrgName is the name as the newest record spells it.
	OrgName string
	// Signed counts the organisation's records that are not revoked and
	// not made inauthentic by the revocation of their signing key (the
	// KeyRevocation decision); Anchored those of them whose batch is on
	// chain.
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
	// Records signed with a key, judged after the scan: the key service
	// has its own transactions.
	var keyed []*Record
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
			if r.SigningKeyID != "" {
				keyed = append(keyed, r)
				return nil
			}
			c.count(r)
			return nil
		})
	})
	if err != nil {
		return OrgCounts{}, fmt.Errorf("content: org counts: %w", err)
	}
	if c.OrgName == "" {
		return OrgCounts{}, ErrNotFound
	}
	judge := s.keyJudge(ctx)
	for _, r := range keyed {
		if judge(r).Valid() {
			c.count(r)
		}
	}
	if len(owners) == 1 {
		s.Identify(ctx, newest)
		if !newest.Signer.NameShared {
			c.VerifiedDomain = newest.Signer.VerifiedDomain
		}
	}
	return c, nil
}

// count adds one record that stands to the totals.
func (c *OrgCounts) count(r *Record) {
	c.Signed++
	if r.BlockchainStatus == wire.StatusAnchored {
		c.Anchored++
	}
}

// keyJudge returns keyRevocation's decision for many records, reading
// each signing key once (an organisation signs thousands of records with
// a handful of keys); the decision itself is decideKeyRevocation's.
func (s *Service) keyJudge(ctx context.Context) func(*Record) *KeyRevocation {
	type owned struct{ owner, id string }
	cache := map[owned]*keys.SigningKey{}
	return func(r *Record) *KeyRevocation {
		id := owned{r.Owner, r.SigningKeyID}
		k, ok := cache[id]
		if !ok {
			got, err := s.cfg.Keys.GetSigningKey(ctx, r.Owner, r.SigningKeyID)
			switch {
			case errors.Is(err, keys.ErrNotFound):
			case err != nil:
				// Judged as before, as keyRevocation does.
				s.log.Warn("signing key unavailable", "record_id", r.ID, "err", err)
			default:
				k = &got
			}
			cache[id] = k
		}
		if k == nil {
			return nil
		}
		return decideKeyRevocation(*k, r.AnchoredAt)
	}
}
