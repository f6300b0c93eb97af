package receipts

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// records is content as receipts see it: one stored record, its
// anchoring state and its key decision.
type records struct {
	rec   *content.Record
	state anchor.State
	kr    *wire.KeyRevocation
}

func (f records) Find(_ context.Context, id string) (*content.Record, error) {
	if f.rec == nil || id != f.rec.ID {
		return nil, content.ErrNotFound
	}
	return f.rec, nil
}

func (f records) AnchorState(context.Context, *content.Record) anchor.State { return f.state }

func (f records) KeyRevocationOf(context.Context, *content.Record) *wire.KeyRevocation { return f.kr }

// signedRecord returns a record signed with a fresh key, as content
// stores it.
func signedRecord(t *testing.T) (*content.Record, record.Signed) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := record.ParseID("0b8f6f3e-6a0e-4b8e-9c1d-2f5a7e9b1c3d")
	if err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{ID: id, SHA256: [32]byte{1}, PerceptualHash: phash.Hash{P64: 7}, SignerPublicKey: pub,
		Timestamp: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), OriginType: "camera_image", Org: "Example News"}
	canon, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	sg := record.Signed{Bytes: canon, Signature: ed25519.Sign(priv, canon)}
	at := time.Date(2026, 3, 1, 12, 10, 0, 0, time.UTC)
	return &content.Record{ID: id.String(), Canonical: canon, SignatureHex: hex.EncodeToString(sg.Signature), AnchoredAt: &at}, sg
}

// verified is the anchoring state of sg as leaf 1 of a batch of three.
func verified(t *testing.T, sg record.Signed) anchor.State {
	t.Helper()
	leaves := []merkle.Hash{merkle.LeafHash([]byte("a")), sg.LeafHash(), merkle.LeafHash([]byte("c"))}
	tree := merkle.Build(leaves)
	path, err := tree.InclusionProof(1)
	if err != nil {
		t.Fatal(err)
	}
	p := &anchor.Proof{LeafIndex: 1, TreeSize: 3, MerkleRoot: anchor.Hash(tree.Root()), ChainID: 31337,
		TxHash: anchor.Hash{9}, BlockNumber: 12, BlockHash: anchor.Hash{8}}
	for _, h := range path {
		p.AuditPath = append(p.AuditPath, anchor.Hash(h))
	}
	return anchor.State{Outcome: anchor.Verified, Detail: "anchored", Proof: p}
}

func TestReceipt(t *testing.T) {
	rec, sg := signedRecord(t)
	ok := verified(t, sg)
	tampered := verified(t, sg)
	tampered.Proof.MerkleRoot[0] ^= 1
	unanchoredTime := *rec
	unanchoredTime.AnchoredAt = nil
	revoked := &wire.KeyRevocation{KeyRevokedAt: "2026-03-01T13:00:00Z", CompromisedSince: "2026-03-01T11:00:00Z",
		Cutoff: "2026-03-01T11:00:00Z", Rule: wire.KeyRuleCompromised, Decision: wire.KeyDecisionNotAuthentic, Detail: "key compromised"}
	network := &wire.Network{Name: "testnet", ChainID: 31337}

	tests := []struct {
		name string
		recs records
		id   string
		// want is the error Receipt returns, nil for a receipt.
		want error
	}{
		{"anchored", records{rec: rec, state: ok}, rec.ID, nil},
		{"anchored, key revoked", records{rec: rec, state: ok, kr: revoked}, rec.ID, nil},
		{"unknown record", records{rec: rec, state: ok}, "00000000-0000-4000-8000-000000000000", content.ErrNotFound},
		{"pending", records{rec: rec, state: anchor.State{Outcome: anchor.Pending, Detail: "pending: queued"}}, rec.ID, ErrNotAnchored},
		{"verified without proof", records{rec: rec, state: anchor.State{Outcome: anchor.Verified}}, rec.ID, ErrNotAnchored},
		{"invalid", records{rec: rec, state: anchor.State{Outcome: anchor.Invalid, Proof: ok.Proof}}, rec.ID, ErrNotAnchored},
		{"anchoring time not recorded yet", records{rec: &unanchoredTime, state: ok}, rec.ID, ErrNotAnchored},
		{"proof that does not lead to its root", records{rec: rec, state: tampered}, rec.ID, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Config{Records: tt.recs, Network: network})
			if err != nil {
				t.Fatal(err)
			}
			rc, err := s.Receipt(context.Background(), tt.id)
			switch {
			case tt.want == errAny:
				if err == nil {
					t.Fatalf("Receipt gave a receipt for a proof that does not verify: %+v", rc)
				}
				return
			case tt.want != nil:
				if !errors.Is(err, tt.want) {
					t.Fatalf("Receipt: %v, want %v", err, tt.want)
				}
				var na *NotAnchoredError
				if errors.Is(tt.want, ErrNotAnchored) && !errors.As(err, &na) {
					t.Fatalf("Receipt: %T, want *NotAnchoredError", err)
				}
				return
			case err != nil:
				t.Fatalf("Receipt: %v", err)
			}
			// A receipt verifies offline; one whose signing key's
			// revocation invalidates the record carries the decision,
			// and offline verification then says so.
			if _, err := rc.Verify(); (err != nil) != (tt.recs.kr != nil) {
				t.Fatalf("offline verification: %v (key revocation %+v)", err, tt.recs.kr)
			}
			if rc.RecordID != rec.ID || rc.LeafIndex != 1 || rc.TreeSize != 3 {
				t.Errorf("receipt names record %s leaf %d of %d", rc.RecordID, rc.LeafIndex, rc.TreeSize)
			}
			if rc.Network == nil || *rc.Network != *network || rc.Network == network {
				t.Errorf("receipt network %+v, want a copy of %+v", rc.Network, network)
			}
			if (rc.KeyRevocation != nil) != (tt.recs.kr != nil) {
				t.Errorf("receipt key revocation %+v, want %+v", rc.KeyRevocation, tt.recs.kr)
			}
		})
	}
}

// errAny stands for any error in the table.
var errAny = errors.New("any error")

func TestNewRequiresRecords(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("New without Records succeeded")
	}
}
