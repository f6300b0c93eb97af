package lookup

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/wire"
)

var fileFacts = facts.Facts{SHA256: [32]byte{0xaa}, PHash: phash.Hash{P64: 7, P256: [4]uint64{1, 2, 3, 4}},
	Watermark: verdict.Watermark{Found: true, Payload: []byte{1, 2, 3, 4, 5, 6, 7, 8}, Strength: 9}}

// candidate returns a signed candidate for a record whose SHA-256 is
// sha, anchored as leaf 0 of 3 with a confirmed root.
func candidate(t *testing.T, id string, sha [32]byte, source string) wire.LookupCandidate {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, 32))
	rid, err := record.ParseID(id)
	if err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{ID: rid, SHA256: sha, PerceptualHash: fileFacts.PHash, SignerPublicKey: priv.Public().(ed25519.PublicKey),
		Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), OriginType: "camera_image", Org: "Org", WatermarkPayload: fileFacts.Watermark.Payload}
	sg, err := record.Sign(priv, rec)
	if err != nil {
		t.Fatal(err)
	}
	tree := merkle.Build([]merkle.Hash{sg.LeafHash(), merkle.LeafHash([]byte("x")), merkle.LeafHash([]byte("y"))})
	path, _ := tree.InclusionProof(0)
	a := &wire.Anchor{TreeSize: 3, MerkleRoot: tree.Root().String(), TxHash: "0xfeed", BlockNumber: 9}
	for _, h := range path {
		a.AuditPath = append(a.AuditPath, h.String())
	}
	return wire.LookupCandidate{RecordID: rid.String(), Record: base64.StdEncoding.EncodeToString(sg.Bytes),
		SignatureHex: hex.EncodeToString(sg.Signature), SignerPublicKey: hex.EncodeToString(rec.SignerPublicKey), Source: source,
		Signer: wire.Signer{OrgName: "Org", KeyName: "desk"}, Origin: wire.Origin{Code: "camera_image", Label: "Camera image"},
		Status: wire.RecordActive, CreatedAt: "2026-01-02T03:04:05.123456789Z", Anchor: a, AnchorState: wire.AnchorVerified,
		RootConfirmed: true}
}

const id1 = "0190f3a1-7b2c-7d4e-8f00-000000000001"

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name     string
		mut      func(c *wire.LookupCandidate)
		wantErr  bool
		proofErr bool
	}{
		{"valid", func(*wire.LookupCandidate) {}, false, false},
		{"signature flipped", func(c *wire.LookupCandidate) { c.SignatureHex = "00" + c.SignatureHex[2:] }, true, false},
		{"record id not the signed one", func(c *wire.LookupCandidate) { c.RecordID = "0190f3a1-7b2c-7d4e-8f00-000000000002" }, true, false},
		{"key not the signed one", func(c *wire.LookupCandidate) { c.SignerPublicKey = strings.Repeat("00", 32) }, true, false},
		{"record not base64", func(c *wire.LookupCandidate) { c.Record = "!" }, true, false},
		{"unknown status", func(c *wire.LookupCandidate) { c.Status = "deleted" }, true, false},
		{"bad time", func(c *wire.LookupCandidate) { c.CreatedAt = "yesterday" }, true, false},
		{"audit path over the limit", func(c *wire.LookupCandidate) {
			c.Anchor.AuditPath = make([]string, limits.DefaultMaxProofLen+1)
		}, true, false},
		{"proof for another leaf", func(c *wire.LookupCandidate) { c.Anchor.LeafIndex = 1 }, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := candidate(t, id1, fileFacts.SHA256, "sign")
			tt.mut(&w)
			c, err := Check(fileFacts, &w, limits.Default())
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrCandidate) {
					t.Errorf("err = %v, want ErrCandidate", err)
				}
				return
			}
			if (c.ProofErr != nil) != tt.proofErr {
				t.Errorf("ProofErr = %v, want %v", c.ProofErr, tt.proofErr)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	lim := limits.Default()
	exact := candidate(t, id1, fileFacts.SHA256, "sign")
	other := candidate(t, "0190f3a1-7b2c-7d4e-8f00-000000000003", [32]byte{0xbb}, "register")
	bad := exact
	bad.SignatureHex = "00" + bad.SignatureHex[2:]
	revoked := exact
	revoked.Status, revoked.RevokedAt, revoked.RevokedReason = wire.RecordRevoked, "2026-02-01T00:00:00Z", "mistake"
	pending := exact
	pending.Anchor, pending.AnchorState, pending.AnchorDetail, pending.RootConfirmed = nil, wire.AnchorPending, "pending: queued for the next batch", false
	invalid := exact
	invalid.AnchorState, invalid.AnchorDetail, invalid.RootConfirmed = wire.AnchorInvalid, "the root is not in tx 0xfeed", false
	for _, tt := range []struct {
		name      string
		cands     []wire.LookupCandidate
		authentic bool
		match     verdict.Match
		anchored  bool
		rejected  int
		detail    string // in the blockchain or watermark check
	}{
		{"no candidates", nil, false, verdict.MatchNone, false, 0, ""},
		{"exact signed output, anchored", []wire.LookupCandidate{exact}, true, verdict.MatchExact, true, 0, "embedded by the service in this exact file"},
		{"bad signature dropped", []wire.LookupCandidate{bad}, false, verdict.MatchNone, false, 1, ""},
		{"revoked", []wire.LookupCandidate{revoked}, false, verdict.MatchExact, false, 0, "was revoked"},
		{"invalid anchoring disowns the record", []wire.LookupCandidate{invalid}, false, verdict.MatchExact, false, 0, "anchoring proof invalid: the root is not in tx 0xfeed"},
		{"pending keeps the origin's sentence", []wire.LookupCandidate{pending}, true, verdict.MatchExact, false, 0, "pending: queued for the next batch"},
		{"signed output beats a registered look-alike", []wire.LookupCandidate{other, exact}, true, verdict.MatchExact, true, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Decide(fileFacts, wire.LookupResponse{Candidates: tt.cands}, lim)
			if r.Response.Authentic != tt.authentic || r.Match != tt.match || r.Anchored != tt.anchored || len(r.Rejected) != tt.rejected {
				t.Fatalf("authentic %v match %v anchored %v rejected %v; want %v %v %v %d (%+v)",
					r.Response.Authentic, r.Match, r.Anchored, r.Rejected, tt.authentic, tt.match, tt.anchored, tt.rejected, r.Response)
			}
			ch := r.Response.Checks
			// The service embedded the payload in its exact output: the
			// watermark check passes exactly when that output is authentic.
			if r.Match == verdict.MatchExact && ch.Watermark.Passed != tt.authentic {
				t.Errorf("watermark check %+v of the exact signed output, want passed=%v", ch.Watermark, tt.authentic)
			}
			if tt.detail != "" && !strings.Contains(ch.Blockchain.Details+ch.Watermark.Details+ch.SHA256.Details, tt.detail) {
				t.Errorf("checks = %+v, want %q in a detail", ch, tt.detail)
			}
			switch {
			case tt.authentic && (r.Response.Signer == nil || r.Response.Signer.KeyName != "desk"):
				t.Errorf("signer = %+v, want the candidate's display fields", r.Response.Signer)
			case !tt.authentic && r.Response.Signer != nil:
				t.Errorf("signer = %+v, want none on a not-authentic answer", r.Response.Signer)
			case !tt.authentic && tt.match != verdict.MatchNone && (r.Response.Resembles == nil || r.Response.Resembles.ClaimedBy == ""):
				t.Errorf("resembles = %+v, want the record found, claimed by its signer", r.Response.Resembles)
			}
		})
	}
}

// TestDecideNamesNetwork: the verify response names the origin's network
// in its network object and in the blockchain check; an anchor on a local
// chain passes the check but says it is no public timestamp and adds no
// confidence, one on a public chain does.
func TestDecideNamesNetwork(t *testing.T) {
	local := &wire.Network{Name: "provenant-dev", ChainID: 1337, Description: wire.LocalChainDescription}
	public := &wire.Network{Name: "sepolia", ChainID: 11155111, Public: true, Description: "public network",
		ExplorerTxURL: "https://sepolia.etherscan.io/tx/{tx}"}
	for _, tt := range []struct {
		name       string
		net        *wire.Network
		state      string
		confidence float64
		wantNet    bool
		detail     string
		notDetail  string
	}{
		{"local chain", local, wire.AnchorVerified, 0.98, true, "provenant-dev (chain id 1337), a " + wire.LocalChainDescription, "public network"},
		{"public chain", public, wire.AnchorVerified, 1, true, "sepolia (chain id 11155111), a public network", "not a public timestamp"},
		{"unknown network counts as not public", nil, wire.AnchorVerified, 0.98, false, "anchored in tx 0xfeed", "network:"},
		{"unavailable says nothing of the network", local, wire.AnchorUnavailable, 0.98, false, "", "network:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := candidate(t, id1, fileFacts.SHA256, "sign")
			c.Network, c.AnchorState = tt.net, tt.state
			r := Decide(fileFacts, wire.LookupResponse{Candidates: []wire.LookupCandidate{c}}, limits.Default())
			resp := r.Response
			if !resp.Authentic || resp.Confidence != tt.confidence {
				t.Fatalf("authentic %v confidence %v, want true %v", resp.Authentic, resp.Confidence, tt.confidence)
			}
			if (resp.Network != nil) != tt.wantNet || (tt.wantNet && *resp.Network != *tt.net) {
				t.Errorf("network = %+v, want %+v (present %v)", resp.Network, tt.net, tt.wantNet)
			}
			d := resp.Checks.Blockchain.Details
			if !strings.Contains(d, tt.detail) || strings.Contains(d, tt.notDetail) {
				t.Errorf("blockchain details %q: want %q, not %q", d, tt.detail, tt.notDetail)
			}
		})
	}
	if got := public.ExplorerTx("0xab"); got != "https://sepolia.etherscan.io/tx/0xab" {
		t.Errorf("ExplorerTx = %q", got)
	}
	if got := local.ExplorerTx("0xab"); got != "" {
		t.Errorf("local ExplorerTx = %q, want none", got)
	}
}

// TestDecideTakesOwnC2PA: the answer's c2pa member (the service's reading
// of its own signed output) becomes the response's only for a file that
// is, by a candidate whose signature checked, byte for byte the output of
// a record the service signed, and only when the client read no manifest
// itself.
func TestDecideTakesOwnC2PA(t *testing.T) {
	lim := limits.Default()
	exact := candidate(t, id1, fileFacts.SHA256, "sign")
	bad := exact
	bad.SignatureHex = "00" + bad.SignatureHex[2:]
	registered := candidate(t, id1, fileFacts.SHA256, "register")
	elsewhere := candidate(t, id1, [32]byte{0xbb}, "sign")
	own := &wire.C2PA{C2PAManifest: wire.C2PAManifest{ValidationState: "valid", RecordID: id1}, Ours: true, Trusted: true, Details: "the service's reading"}
	read := &wire.C2PAFacts{C2PAManifest: wire.C2PAManifest{ValidationState: "invalid"}}
	for _, tt := range []struct {
		name  string
		cand  wire.LookupCandidate
		c2pa  *wire.C2PAFacts // what the client read itself
		taken bool
	}{
		{"signed output", exact, nil, true},
		{"bad signature", bad, nil, false},
		{"registered record of these bytes", registered, nil, false},
		{"signed record of other bytes", elsewhere, nil, false},
		{"the client read the manifest", exact, read, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := fileFacts
			f.C2PA = tt.c2pa
			r := Decide(f, wire.LookupResponse{Candidates: []wire.LookupCandidate{tt.cand}, C2PA: own}, lim)
			got := r.Response.C2PA != nil && r.Response.C2PA.Details == own.Details
			if got != tt.taken || (r.ExactSigned == id1) != (tt.cand.Source == "sign" && tt.cand.SignatureHex == exact.SignatureHex && tt.cand.Record == exact.Record) {
				t.Errorf("c2pa %+v, exact_signed %q; want the answer's member taken: %v", r.Response.C2PA, r.ExactSigned, tt.taken)
			}
			if tt.c2pa != nil && (r.Response.C2PA == nil || r.Response.C2PA.Trusted) {
				t.Errorf("c2pa %+v, want the member of the manifest the client read (not valid, not trusted)", r.Response.C2PA)
			}
		})
	}
}
