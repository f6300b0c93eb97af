package content

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/phash"
)

// Tests of what content gives the packages above it (badges, receipts)
// and the C2PA resolver.

// TestEachOrgRecord: the organisation index yields the records signed
// under a name, matched case-blind, and none of a name that only shares
// its index prefix; max stops the scan and says so.
func TestEachOrgRecord(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.newOwner("a@example.com", "Example News")
	b := e.newOwner("b@example.com", "Example News/Desk")
	for i, reg := range []RegisterInput{
		e.registration(a, "Example News", 1, ""), e.registration(a, "Example News", 2, ""), e.registration(b, "Example News/Desk", 3, ""),
	} {
		if _, err := e.svc.Register(ctx, reg); err != nil {
			t.Fatalf("register %d: %v", i, err)
		}
	}
	for _, tt := range []struct {
		max       int
		want      int
		truncated bool
	}{{10, 2, false}, {1, 1, true}} {
		var owners []string
		truncated, err := e.svc.EachOrgRecord(ctx, "EXAMPLE NEWS", tt.max, func(r *Record) { owners = append(owners, r.Owner) })
		if err != nil {
			t.Fatal(err)
		}
		if len(owners) != tt.want || truncated != tt.truncated || strings.Join(owners, "") != strings.Repeat(a.id, len(owners)) {
			t.Errorf("max %d: owners %v truncated %v, want %d of %s, truncated %v", tt.max, owners, truncated, tt.want, a.id, tt.truncated)
		}
	}
}

// TestManifestCandidates: the candidate search behind C2PA resolution
// links a record by its SHA-256 and its payload always, by its perceptual
// hash only when asked to, and says when it is revoked.
func TestManifestCandidates(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	o := e.newOwner("m@example.com", "Example News")
	r, err := e.svc.Register(ctx, e.registration(o, "Example News", 1, "0102030405060708"))
	if err != nil {
		t.Fatal(err)
	}
	var bySHA, byMark, byHash facts.Facts
	sum, _ := hex.DecodeString(r.SHA256)
	copy(bySHA.SHA256[:], sum)
	byMark.Watermark.Found, byMark.Watermark.Payload = true, []byte{1, 2, 3, 4, 5, 6, 7, 8}
	if byHash.PHash, err = phash.Parse(r.PerceptualHash); err != nil {
		t.Fatal(err)
	}
	want := manifests.Candidate{RecordID: r.ID, SHA256: r.SHA256, WatermarkPayloadHex: r.WatermarkPayloadHex, PerceptualHash: r.PerceptualHash}
	for _, tt := range []struct {
		name   string
		f      facts.Facts
		byHash bool
		found  bool
	}{
		{"sha256", bySHA, false, true},
		{"watermark", byMark, false, true},
		{"perceptual hash, not asked", byHash, false, false},
		{"perceptual hash", byHash, true, true},
	} {
		cs, err := e.svc.ManifestCandidates(ctx, tt.f, tt.byHash)
		if err != nil {
			t.Fatal(err)
		}
		if tt.found != (len(cs) == 1 && cs[0] == want) || (!tt.found && len(cs) != 0) {
			t.Errorf("%s: candidates %+v, found %v, want %+v", tt.name, cs, tt.found, want)
		}
	}
	if _, err := e.svc.Revoke(ctx, o.id, r.ID, ""); err != nil {
		t.Fatal(err)
	}
	if cs, err := e.svc.ManifestCandidates(ctx, bySHA, false); err != nil || len(cs) != 1 || !cs[0].Revoked {
		t.Errorf("revoked record: %+v %v, want it marked revoked", cs, err)
	}
}

// countingKeys counts the signing-key reads.
type countingKeys struct {
	Keys
	reads int
}

func (k *countingKeys) GetSigningKey(ctx context.Context, owner, id string) (keys.SigningKey, error) {
	k.reads++
	return k.Keys.GetSigningKey(ctx, owner, id)
}

// TestKeyRevocations: deciding about many records reads each signing key
// once and decides as KeyRevocationOf does, before and after the key's
// revocation.
func TestKeyRevocations(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	o := e.newOwner("k@example.com", "Example News")
	var rs []*Record
	for seed := byte(1); seed <= 3; seed++ {
		r, err := e.svc.Register(ctx, e.registration(o, "Example News", seed, ""))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	ck := &countingKeys{Keys: e.keys}
	cfg := e.cfg
	cfg.Keys = ck
	svc := e.service(cfg)
	for _, revoked := range []bool{false, true} {
		if revoked {
			since := e.clk.Now().Add(-time.Hour)
			if _, err := e.keys.RevokeSigningKey(ctx, o.id, o.keyID, "lost", &since); err != nil {
				t.Fatal(err)
			}
		}
		ck.reads = 0
		decide := svc.KeyRevocations()
		for _, r := range rs {
			got, want := decide(ctx, r), e.svc.KeyRevocationOf(ctx, r)
			if (got != nil) != revoked || (got != nil && *got != *want) {
				t.Errorf("revoked %v, record %s: decided %+v, KeyRevocationOf %+v", revoked, r.ID, got, want)
			}
		}
		if ck.reads != 1 {
			t.Errorf("revoked %v: %d key reads for %d records of one key, want 1", revoked, ck.reads, len(rs))
		}
	}
}
