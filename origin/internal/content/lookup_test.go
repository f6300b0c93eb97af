package content

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/verdict"
)

// stateProofs answers each record's anchoring state as the test sets it:
// verified with a real inclusion proof (leaf 0 of 2), invalid, or
// unavailable (an error); pending otherwise.
type stateProofs map[string]anchor.Outcome

func (sp stateProofs) AnchorState(_ context.Context, id string, leaf anchor.Hash) (anchor.State, error) {
	other := merkle.LeafHash([]byte("another record"))
	tree := merkle.Build([]merkle.Hash{merkle.Hash(leaf), other})
	path, _ := tree.InclusionProof(0)
	p := &anchor.Proof{RecordID: id, Status: anchor.StatusAnchored, LeafHash: leaf, BatchID: "3", LeafIndex: 0, TreeSize: 2,
		MerkleRoot: anchor.Hash(tree.Root()), Network: "provenant-dev", ChainID: 1337, TxHash: anchor.Hash{0xab}, BlockNumber: 42}
	for _, h := range path {
		p.AuditPath = append(p.AuditPath, anchor.Hash(h))
	}
	switch sp[id] {
	case anchor.Verified:
		return anchor.State{Outcome: anchor.Verified, Detail: "verified", Proof: p}, nil
	case anchor.Invalid:
		p.MerkleRoot = anchor.Hash{1}
		return anchor.State{Outcome: anchor.Invalid, Detail: "the root is not in tx 0xab", Proof: p}, nil
	case anchor.Unavailable:
		return anchor.State{}, errors.New("chain unreachable")
	}
	return anchor.State{Outcome: anchor.Pending, Detail: "pending: queued for batch 3"}, nil
}

// TestLookupDecideEqualsVerify: what a client computes from Lookup with
// shared/lookup.Decide is Verify's response, for every kind of match,
// chains, registered records and each anchoring state. It guards the two
// copies of the steps around verdict.Decide (VerifyFacts and
// lookup.Decide): a change to one without the other fails here.
func TestLookupDecideEqualsVerify(t *testing.T) {
	e := newEnv(t)
	states := stateProofs{}
	e.cfg.Chain.Proofs = states
	e.svc = e.service(e.cfg)
	ctx := context.Background()
	alice := e.newOwner("alice@example.com", "Example News")
	bob := e.newOwner("bob@example.com", "Other Agency")

	plain := e.sign(alice, photo(t, 20, 640, 480), "plain.jpg")
	verified := e.sign(alice, photo(t, 21, 640, 480), "verified.jpg")
	invalid := e.sign(alice, photo(t, 22, 640, 480), "invalid.jpg")
	unavailable := e.sign(alice, photo(t, 23, 640, 480), "unavailable.jpg")
	revoked := e.sign(alice, photo(t, 24, 640, 480), "revoked.jpg")
	if _, err := e.svc.Revoke(ctx, alice.id, revoked.Record.ID, "wrong caption"); err != nil {
		t.Fatal(err)
	}
	// A re-encoded copy of alice's output signed again by alice: linked to
	// its parent, so verifying it answers a chain.
	child := e.sign(alice, reencode(t, plain.File, 85), "child.jpg")
	if child.Record.ParentRecordID != plain.Record.ID {
		t.Fatalf("child parent = %q, want %s", child.Record.ParentRecordID, plain.Record.ID)
	}
	reg := e.registration(bob, "Other Agency", 7, "")
	if _, err := e.svc.Register(ctx, reg); err != nil {
		t.Fatal(err)
	}
	states[verified.Record.ID] = anchor.Verified
	states[invalid.Record.ID] = anchor.Invalid
	states[unavailable.Record.ID] = anchor.Unavailable

	regSum := sha256.Sum256([]byte{7})
	for _, tt := range []struct {
		name  string
		file  []byte   // verified by Verify, analysed for the lookup
		sum   [32]byte // or, without a file, a hash-only check
		match verdict.Match
		// proofFails: the client finds the anchor proof broken itself
		// (reported, not dropped).
		proofFails bool
	}{
		{"signed output, pending", plain.File, [32]byte{}, verdict.MatchExact, false},
		{"signed output, verified on chain", verified.File, [32]byte{}, verdict.MatchExact, false},
		{"re-encoded, verified on chain", reencode(t, verified.File, 75), [32]byte{}, verdict.MatchReencoded, false},
		{"anchoring invalid", invalid.File, [32]byte{}, verdict.MatchExact, true},
		{"anchoring unavailable", unavailable.File, [32]byte{}, verdict.MatchExact, false},
		{"revoked", revoked.File, [32]byte{}, verdict.MatchExact, false},
		{"chain: the child's output", child.File, [32]byte{}, verdict.MatchExact, false},
		{"chain: a copy of the child", reencode(t, child.File, 70), [32]byte{}, verdict.MatchReencoded, false},
		{"original upload", photo(t, 20, 640, 480), [32]byte{}, verdict.MatchExact, false},
		{"unrelated", photo(t, 99, 640, 480), [32]byte{}, verdict.MatchNone, false},
		{"registered record by hash", nil, regSum, verdict.MatchExact, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var want *VerifyResult
			var f Facts
			var err error
			if tt.file != nil {
				if want, err = e.svc.Verify(ctx, tt.file, nil); err != nil {
					t.Fatal(err)
				}
				sf, err := facts.Analyze(tt.file, e.svc.Limits(), time.Now())
				if err != nil {
					t.Fatal(err)
				}
				f = fromFacts(sf)
			} else {
				f = Facts{Facts: facts.Facts{SHA256: tt.sum}}
				if want, err = e.svc.VerifyFacts(ctx, f); err != nil {
					t.Fatal(err)
				}
			}
			resp, err := e.svc.Lookup(ctx, f, false)
			if err != nil {
				t.Fatal(err)
			}
			// Through JSON, as a client receives it.
			b, _ := json.Marshal(resp)
			if err := json.Unmarshal(b, &resp); err != nil {
				t.Fatal(err)
			}
			got := lookup.Decide(facts.Facts{SHA256: f.SHA256, PHash: f.PHash, Watermark: f.Watermark, Local: f.Local}, resp, e.svc.Limits())
			if n := len(got.Rejected); (tt.proofFails && (n != 1 || got.Rejected[0].Dropped)) || (!tt.proofFails && n != 0) {
				t.Errorf("rejected %+v, want the proof failure reported: %v", got.Rejected, tt.proofFails)
			}
			if !reflect.DeepEqual(got.Response, want.Response) {
				gj, _ := json.MarshalIndent(got.Response, "", " ")
				wj, _ := json.MarshalIndent(want.Response, "", " ")
				t.Fatalf("lookup.Decide:\n%s\nVerify:\n%s", gj, wj)
			}
			t.Logf("record %s, chain %d, blockchain %q", want.Response.RecordID, len(want.Response.Chain), want.Response.Checks.Blockchain.Details)
			if got.Match != tt.match || want.Match != tt.match {
				t.Errorf("match: decide %v, verify %v; want %v", got.Match, want.Match, tt.match)
			}
		})
	}
}
