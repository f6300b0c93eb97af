package receipt_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/internal/seedtest"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/receipt"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// fakeChain is a chain holding one anchoring transaction.
type fakeChain struct {
	id     uint64
	tx     [32]byte
	mined  receipt.ChainTx
	blocks map[uint64][32]byte
	err    error
}

func (c *fakeChain) ChainID(context.Context) (uint64, error) { return c.id, c.err }

func (c *fakeChain) Transaction(_ context.Context, h [32]byte) (receipt.ChainTx, error) {
	if c.err != nil {
		return receipt.ChainTx{}, c.err
	}
	if h != c.tx {
		return receipt.ChainTx{}, receipt.ErrTxNotFound
	}
	return c.mined, nil
}

func (c *fakeChain) CanonicalBlockHash(_ context.Context, n uint64) ([32]byte, error) {
	if c.err != nil {
		return [32]byte{}, c.err
	}
	return c.blocks[n], nil
}

// fixture signs a record, anchors it as leaf 2 of a 5-leaf batch, and
// returns its receipt with a chain that holds the batch root.
func fixture(t testing.TB) (*receipt.Receipt, *fakeChain) {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	id, _ := record.ParseID("0190f3a1-7b2c-7d4e-8f00-123456789abc")
	r := &record.Record{ID: id, SHA256: sha256.Sum256([]byte("signed file")), SignerPublicKey: priv.Public().(ed25519.PublicKey),
		Timestamp: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), OriginType: "camera_image", Org: "Example News",
		WatermarkPayload: []byte{1, 2, 3, 4, 5, 6, 7, 8}}
	s, err := record.Sign(priv, r)
	if err != nil {
		t.Fatal(err)
	}
	leaves := make([]merkle.Hash, 5)
	for i := range leaves {
		leaves[i] = merkle.LeafHash([]byte{byte(i)})
	}
	leaves[2] = s.LeafHash()
	tree := merkle.Build(leaves)
	path, err := tree.InclusionProof(2)
	if err != nil {
		t.Fatal(err)
	}
	tx := sha256.Sum256([]byte("tx"))
	block := sha256.Sum256([]byte("block"))
	rc, err := receipt.New(s, receipt.Inclusion{LeafIndex: 2, TreeSize: 5, AuditPath: path, Root: tree.Root(),
		ChainID: 1337, TxHash: tx, BlockNumber: 42, BlockHash: block})
	if err != nil {
		t.Fatal(err)
	}
	root := tree.Root()
	chain := &fakeChain{id: 1337, tx: tx, mined: receipt.ChainTx{Input: append([]byte("PVN1"), root[:]...), BlockNumber: 42, BlockHash: block},
		blocks: map[uint64][32]byte{42: block}}
	return rc, chain
}

func TestReceiptVerifies(t *testing.T) {
	rc, chain := fixture(t)
	b, err := rc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := receipt.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	res, err := got.Verify()
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if res.Record.Org != "Example News" || res.Record.ID.String() != rc.RecordID {
		t.Fatalf("verified record %+v", res.Record)
	}
	if err := got.CheckChain(context.Background(), chain); err != nil {
		t.Fatalf("CheckChain: %v", err)
	}
}

// flipHex changes the last hex digit of s.
func flipHex(s string) string {
	last := s[len(s)-1]
	repl := byte('0')
	if last == '0' {
		repl = '1'
	}
	return s[:len(s)-1] + string(repl)
}

// TestEveryTamperingFails changes each member of a valid receipt in turn,
// keeping it well-formed where possible, and requires Parse, Verify or
// CheckChain to refuse it.
func TestEveryTamperingFails(t *testing.T) {
	rc, chain := fixture(t)
	tamper := map[string][]func(r *receipt.Receipt){
		"format":    {func(r *receipt.Receipt) { r.Format = "provenant-receipt/v2" }},
		"record_id": {func(r *receipt.Receipt) { r.RecordID = flipHex(r.RecordID) }},
		"record": {
			func(r *receipt.Receipt) { // a byte of the signed content (the SHA-256)
				b, _ := base64.StdEncoding.DecodeString(r.Record)
				b[30] ^= 1
				r.Record = base64.StdEncoding.EncodeToString(b)
			},
			func(r *receipt.Receipt) { // the last byte (the watermark payload)
				b, _ := base64.StdEncoding.DecodeString(r.Record)
				b[len(b)-1] ^= 1
				r.Record = base64.StdEncoding.EncodeToString(b)
			},
		},
		"signature_hex":     {func(r *receipt.Receipt) { r.SignatureHex = flipHex(r.SignatureHex) }},
		"signer_public_key": {func(r *receipt.Receipt) { r.SignerPublicKey = flipHex(r.SignerPublicKey) }},
		"leaf_hash":         {func(r *receipt.Receipt) { r.LeafHash = flipHex(r.LeafHash) }},
		"leaf_index": {
			func(r *receipt.Receipt) { r.LeafIndex++ },
			func(r *receipt.Receipt) { r.LeafIndex-- },
		},
		"tree_size": {
			func(r *receipt.Receipt) { r.TreeSize++ },
			func(r *receipt.Receipt) { r.TreeSize-- },
		},
		"audit_path": {
			func(r *receipt.Receipt) { r.AuditPath[0] = flipHex(r.AuditPath[0]) },
			func(r *receipt.Receipt) { r.AuditPath = r.AuditPath[:len(r.AuditPath)-1] },
			func(r *receipt.Receipt) { r.AuditPath = append(r.AuditPath, r.AuditPath[0]) },
			func(r *receipt.Receipt) { r.AuditPath[0], r.AuditPath[1] = r.AuditPath[1], r.AuditPath[0] },
		},
		"merkle_root":  {func(r *receipt.Receipt) { r.MerkleRoot = flipHex(r.MerkleRoot) }},
		"chain_id":     {func(r *receipt.Receipt) { r.ChainID++ }},
		"tx_hash":      {func(r *receipt.Receipt) { r.TxHash = flipHex(r.TxHash) }},
		"block_number": {func(r *receipt.Receipt) { r.BlockNumber++ }},
		"block_hash":   {func(r *receipt.Receipt) { r.BlockHash = flipHex(r.BlockHash) }},
	}
	var fields map[string]any
	b, _ := rc.Marshal()
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	for name := range fields {
		if len(tamper[name]) == 0 {
			t.Errorf("member %s has no tampering case", name)
		}
	}
	for name, fns := range tamper {
		for i, fn := range fns {
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				cp := *rc
				cp.AuditPath = append([]string(nil), rc.AuditPath...)
				fn(&cp)
				b, err := json.Marshal(&cp)
				if err != nil {
					t.Fatal(err)
				}
				got, err := receipt.Parse(b)
				if err != nil {
					return
				}
				if _, err := got.Verify(); err != nil {
					return
				}
				if err := got.CheckChain(context.Background(), chain); err == nil {
					// An RFC 9162 root does not commit to the tree size: a
					// larger size whose proof has the same shape leads to the
					// same root. Such a receipt states nothing new (same leaf
					// under the same anchored root); anything else must fail.
					res, _ := got.Verify()
					orig, _ := rc.Verify()
					if name == "tree_size" && res.Root == orig.Root && res.Leaf == orig.Leaf {
						return
					}
					t.Fatalf("tampered %s still checks out", name)
				} else if !errors.Is(err, receipt.ErrChain) {
					t.Fatalf("tampered %s: %v, want ErrChain", name, err)
				}
			})
		}
	}
}

func TestCheckChainErrors(t *testing.T) {
	rc, chain := fixture(t)
	ctx := context.Background()
	wrongChain := *chain
	wrongChain.id = 1
	if err := rc.CheckChain(ctx, &wrongChain); !errors.Is(err, receipt.ErrChain) {
		t.Errorf("other chain: %v, want ErrChain", err)
	}
	reorged := *chain
	reorged.blocks = map[uint64][32]byte{42: sha256.Sum256([]byte("other block"))}
	if err := rc.CheckChain(ctx, &reorged); !errors.Is(err, receipt.ErrChain) {
		t.Errorf("block no longer canonical: %v, want ErrChain", err)
	}
	// The transaction is at the receipt's block number but in a sibling
	// block, while the receipt's block is still canonical there: only
	// the transaction's own block hash tells them apart.
	sibling := *chain
	sibling.mined.BlockHash = sha256.Sum256([]byte("sibling block"))
	if err := rc.CheckChain(ctx, &sibling); !errors.Is(err, receipt.ErrChain) {
		t.Errorf("tx in a sibling block: %v, want ErrChain", err)
	}
	otherData := *chain
	otherData.mined.Input = append([]byte("PVN1"), make([]byte, 32)...)
	if err := rc.CheckChain(ctx, &otherData); !errors.Is(err, receipt.ErrChain) {
		t.Errorf("other calldata: %v, want ErrChain", err)
	}
	down := *chain
	down.err = errors.New("connection refused")
	if err := rc.CheckChain(ctx, &down); !errors.Is(err, receipt.ErrChainUnavailable) || errors.Is(err, receipt.ErrChain) {
		t.Errorf("unreachable node: %v, want ErrChainUnavailable only", err)
	}
}

func TestParseRefuses(t *testing.T) {
	rc, _ := fixture(t)
	good, _ := rc.Marshal()
	var m map[string]any
	_ = json.Unmarshal(good, &m)
	with := func(k string, v any) []byte {
		cp := map[string]any{}
		for kk, vv := range m {
			cp[kk] = vv
		}
		if v == nil {
			delete(cp, k)
		} else {
			cp[k] = v
		}
		b, _ := json.Marshal(cp)
		return b
	}
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"not JSON", []byte("{"), receipt.ErrMalformed},
		{"array", []byte("[]"), receipt.ErrMalformed},
		{"other format", with("format", "provenant-receipt/v9"), receipt.ErrUnsupportedFormat},
		{"no format", with("format", nil), receipt.ErrMalformed},
		{"missing member", with("leaf_index", nil), receipt.ErrMalformed},
		{"unknown member", with("extra", 1), receipt.ErrMalformed},
		{"uppercase hex", with("merkle_root", strings.ToUpper(rc.MerkleRoot)), receipt.ErrMalformed},
		{"tx hash without 0x", with("tx_hash", rc.TxHash[2:]), receipt.ErrMalformed},
		{"negative number", with("tree_size", -1), receipt.ErrMalformed},
		{"fraction", with("block_number", 1.5), receipt.ErrMalformed},
		{"index past size", with("leaf_index", 5), receipt.ErrMalformed},
		{"null path", with("audit_path", []any(nil)), receipt.ErrMalformed},
		{"trailing data", append(append([]byte{}, good...), "{}"...), receipt.ErrMalformed},
		{"too large", append(append([]byte{}, good...), make([]byte, receipt.MaxSize)...), receipt.ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := receipt.Parse(tc.in); !errors.Is(err, tc.want) {
				t.Fatalf("Parse: %v, want %v", err, tc.want)
			}
		})
	}
}

// TestSeedCorpus keeps the fuzz corpus's valid seed a valid receipt.
func TestSeedCorpus(t *testing.T) {
	rc, _ := fixture(t)
	b, _ := rc.Marshal()
	if seed := seedtest.ReadSeed(t, "FuzzParse", "valid"); string(seed) != string(b) {
		t.Fatalf("testdata/fuzz/FuzzParse/valid is stale; want:\n%s", seedtest.Seed(b))
	}
}

// FuzzParse: Parse never panics, and whatever it accepts marshals back to
// a receipt it accepts with the same members.
func FuzzParse(f *testing.F) {
	rc, _ := fixture(f)
	b, _ := rc.Marshal()
	f.Add(b)
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := receipt.Parse(in)
		if err != nil {
			return
		}
		out, err := r.Marshal()
		if err != nil {
			t.Fatalf("accepted receipt does not marshal: %v", err)
		}
		r2, err := receipt.Parse(out)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		out2, _ := r2.Marshal()
		if string(out) != string(out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
		_, _ = r.Verify()
	})
}

// TestKeyRevocationMember: a receipt stating that the signing key's
// revocation leaves the record valid verifies and reports it; one stating
// not_authentic fails with ErrKeyRevoked; a malformed statement does not
// parse.
func TestKeyRevocationMember(t *testing.T) {
	rc, chain := fixture(t)
	for _, tc := range []struct {
		decision string
		want     error
	}{{wire.KeyDecisionValid, nil}, {wire.KeyDecisionNotAuthentic, receipt.ErrKeyRevoked}} {
		cp := *rc
		cp.KeyRevocation = &wire.KeyRevocation{KeyRevokedAt: "2026-11-23T10:00:00.000Z", CompromisedSince: "2026-11-22T00:00:00.000Z",
			Cutoff: "2026-11-22T00:00:00.000Z", Decision: tc.decision, Detail: "the signing key was revoked"}
		b, err := cp.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := receipt.Parse(b)
		if err != nil {
			t.Fatalf("%s: Parse: %v", tc.decision, err)
		}
		res, err := got.Verify()
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: Verify = %v, want %v", tc.decision, err, tc.want)
		}
		if res.KeyRevocation == nil || res.KeyRevocation.Decision != tc.decision {
			t.Errorf("%s: result carries %+v", tc.decision, res.KeyRevocation)
		}
		if err := got.CheckChain(context.Background(), chain); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: CheckChain = %v, want %v", tc.decision, err, tc.want)
		}
	}
	for _, bad := range []wire.KeyRevocation{
		{KeyRevokedAt: "2026-11-23T10:00:00Z", Cutoff: "2026-11-23T10:00:00Z", Decision: "maybe"},
		{KeyRevokedAt: "yesterday", Cutoff: "2026-11-23T10:00:00Z", Decision: wire.KeyDecisionValid},
		{KeyRevokedAt: "2026-11-23T10:00:00Z", Cutoff: "2026-11-23T10:00:00Z", CompromisedSince: "soon", Decision: wire.KeyDecisionValid},
	} {
		cp := *rc
		cp.KeyRevocation = &bad
		b, _ := json.Marshal(&cp)
		if _, err := receipt.Parse(b); !errors.Is(err, receipt.ErrMalformed) {
			t.Errorf("key_revocation %+v: Parse = %v, want ErrMalformed", bad, err)
		}
	}
}

// TestNetworkMember: the optional network member round-trips through
// Marshal and Parse, Verify reports it (a local chain stays labelled as
// such), and a network member that contradicts the receipt or calls a
// local chain's anchor an explorer link is refused.
func TestNetworkMember(t *testing.T) {
	rc, _ := fixture(t)
	local := &wire.Network{Name: "provenant-dev", ChainID: 1337, Public: false,
		Description: "local development chain: proves order and integrity within this service, not a public timestamp"}
	rc.Network = local
	b, err := rc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := receipt.Parse(b)
	if err != nil {
		t.Fatalf("Parse with network: %v", err)
	}
	res, err := back.Verify()
	if err != nil || res.Network == nil || *res.Network != *local || res.Network.Public {
		t.Fatalf("Verify network = %+v, %v; want %+v", res.Network, err, local)
	}
	for _, bad := range []wire.Network{
		{Name: "", ChainID: 1337},
		{Name: "sepolia", ChainID: 11155111},
		{Name: "provenant-dev", ChainID: 1337, ExplorerTxURL: "https://example.com/tx/{tx}"},
		{Name: "x", ChainID: 1337, Public: true, ExplorerTxURL: "http://example.com/tx/{tx}"},
		{Name: "x", ChainID: 1337, Public: true, ExplorerTxURL: "https://example.com/tx/"},
	} {
		c, _ := fixture(t)
		c.Network = &bad
		raw, _ := json.Marshal(c)
		if _, err := receipt.Parse(raw); !errors.Is(err, receipt.ErrMalformed) {
			t.Errorf("network %+v: Parse = %v, want ErrMalformed", bad, err)
		}
	}
}

// TestNetworkSeedParses keeps the committed fuzz seed with a network
// member a valid receipt, so the fuzzer starts from the member's accepted
// form.
func TestNetworkSeedParses(t *testing.T) {
	r, err := receipt.Parse(seedtest.ReadSeed(t, "FuzzParse", "with-network"))
	if err != nil || r.Network == nil || r.Network.Public {
		t.Fatalf("seed: %+v, %v; want a receipt with a network that is not public", r, err)
	}
}
