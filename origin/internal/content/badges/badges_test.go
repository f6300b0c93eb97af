package badges

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/shared/wire"
)

// records is content as badges see it: stored records, the keys whose
// revocation makes their records not authentic (or only awaiting their
// anchoring), and the verified domain of each account.
type records struct {
	recs []*content.Record
	// revoked and awaiting name keys "owner/key id".
	revoked, awaiting map[string]bool
	domains           map[string]string
}

func (f records) Find(_ context.Context, id string) (*content.Record, error) {
	for _, r := range f.recs {
		if r.ID == id {
			return r, nil
		}
	}
	return nil, content.ErrNotFound
}

func (f records) KeyRevocationOf(_ context.Context, r *content.Record) *wire.KeyRevocation {
	k := r.Owner + "/" + r.SigningKeyID
	switch {
	case f.revoked[k]:
		return &wire.KeyRevocation{Decision: wire.KeyDecisionNotAuthentic}
	case f.awaiting[k]:
		return &wire.KeyRevocation{Decision: wire.KeyDecisionNotAuthentic, AwaitingAnchor: true}
	}
	return nil
}

func (f records) KeyRevocations() func(context.Context, *content.Record) *wire.KeyRevocation {
	return func(ctx context.Context, r *content.Record) *wire.KeyRevocation { return f.KeyRevocationOf(ctx, r) }
}

func (f records) EachOrgRecord(_ context.Context, org string, max int, fn func(*content.Record)) (bool, error) {
	n := 0
	for _, r := range f.recs {
		if !strings.EqualFold(r.Signer.OrgName, org) {
			continue
		}
		if n == max {
			return true, nil
		}
		n++
		fn(r)
	}
	return false, nil
}

func (f records) Identify(_ context.Context, rs ...*content.Record) {
	for _, r := range rs {
		r.Signer.VerifiedDomain = f.domains[r.Owner]
		r.Signer.OrgVerified = r.Signer.VerifiedDomain != ""
	}
}

func rec(id, owner, key, org, status, chain string) *content.Record {
	return &content.Record{ID: id, Owner: owner, SigningKeyID: key, Signer: wire.Signer{OrgName: org}, Status: status,
		BlockchainStatus: chain, Source: content.SourceSign, CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
}

func TestBadge(t *testing.T) {
	recs := records{
		recs: []*content.Record{
			rec("anchored", "a", "k1", "Example News", content.StatusActive, wire.StatusAnchored),
			rec("pending", "a", "k1", "Example News", content.StatusActive, wire.StatusPending),
			rec("revoked", "a", "k1", "Example News", content.StatusRevoked, wire.StatusAnchored),
			rec("key-revoked", "a", "k2", "Example News", content.StatusActive, wire.StatusAnchored),
			rec("awaiting", "a", "k3", "Example News", content.StatusActive, wire.StatusPending),
		},
		revoked:  map[string]bool{"a/k2": true},
		awaiting: map[string]bool{"a/k3": true},
	}
	network := &wire.Network{Name: "testnet"}
	s, err := New(Config{Records: recs, Network: network})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id                            string
		revoked, keyRevoked, anchored bool
	}{
		{"anchored", false, false, true},
		{"pending", false, false, false},
		// Revocation wins over anchoring.
		{"revoked", true, false, true},
		{"key-revoked", true, true, true},
		// A key decision only awaiting the record's anchoring reads as
		// pending, not revoked.
		{"awaiting", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			st, err := s.Badge(context.Background(), tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if st.RecordID != tt.id || st.OrgName != "Example News" || st.Revoked != tt.revoked || st.KeyRevoked != tt.keyRevoked ||
				st.Anchored != tt.anchored || st.Network != network {
				t.Errorf("Badge(%s) = %+v, want revoked %v, key revoked %v, anchored %v", tt.id, st, tt.revoked, tt.keyRevoked, tt.anchored)
			}
		})
	}
	if _, err := s.Badge(context.Background(), "unknown"); !errors.Is(err, content.ErrNotFound) {
		t.Errorf("Badge(unknown): %v, want content.ErrNotFound", err)
	}
}

func TestOrgCounts(t *testing.T) {
	news := []*content.Record{
		rec("1", "a", "k1", "Example News", content.StatusActive, wire.StatusAnchored),
		rec("2", "a", "k1", "example news", content.StatusActive, wire.StatusPending),
		rec("3", "a", "k1", "Example News", content.StatusRevoked, wire.StatusAnchored),
		rec("4", "a", "k2", "Example News", content.StatusActive, wire.StatusAnchored),
		rec("5", "a", "k2", "Example News", content.StatusActive, wire.StatusAnchored),
	}
	shared := append([]*content.Record{rec("6", "b", "k9", "Example News", content.StatusActive, wire.StatusAnchored)}, news...)
	allRevoked := []*content.Record{rec("7", "c", "k1", "Gone", content.StatusRevoked, wire.StatusAnchored)}
	tests := []struct {
		name string
		recs []*content.Record
		org  string
		// want is the counts, with err for an organisation not found.
		want OrgCounts
		err  error
	}{
		// Revoked records and those their key's revocation invalidates
		// (key k2) are not counted; the name is matched case-blind and
		// shown as the newest record spells it.
		{"one account with a domain", news, "EXAMPLE NEWS",
			OrgCounts{OrgName: "Example News", Signed: 2, Anchored: 1, VerifiedDomain: "example.com"}, nil},
		// Two accounts under one name: no domain is shown.
		{"a name two accounts use", shared, "Example News",
			OrgCounts{OrgName: "Example News", Signed: 3, Anchored: 2}, nil},
		{"every record revoked", allRevoked, "Gone", OrgCounts{OrgName: "Gone"}, nil},
		{"no record", news, "Nobody", OrgCounts{}, content.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Config{Records: records{recs: tt.recs, revoked: map[string]bool{"a/k2": true},
				domains: map[string]string{"a": "example.com"}}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := s.OrgCounts(context.Background(), tt.org)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("OrgCounts: %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c != tt.want {
				t.Errorf("OrgCounts = %+v, want %+v", c, tt.want)
			}
		})
	}
}

func TestOrgCountsTruncated(t *testing.T) {
	var rs []*content.Record
	for i := 0; i <= MaxOrgScan; i++ {
		rs = append(rs, &content.Record{Owner: "a", Signer: wire.Signer{OrgName: "Big"}, Status: content.StatusActive})
	}
	s, err := New(Config{Records: records{recs: rs}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.OrgCounts(context.Background(), "Big")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Truncated || c.Signed != MaxOrgScan {
		t.Errorf("OrgCounts over %d records = %+v, want truncated at %d", len(rs), c, MaxOrgScan)
	}
}
