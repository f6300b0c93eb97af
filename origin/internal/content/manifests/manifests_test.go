package manifests

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/phash"
)

// authority signs with a fresh test CA, as c2pacert does with the
// origin's.
type authority struct{ ca *c2patest.CA }

func (a authority) Signer(_ context.Context, _, org string) (c2pa.Signer, error) {
	return a.ca.GenerateSigner(c2patest.CertOptions{Org: org})
}

func (a authority) CAPEM(context.Context) ([]byte, error) {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.ca.Cert.Raw}), nil
}

func meadow(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../../../shared/watermark/testdata/meadow.jpg")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func actions(r *c2pa.Report) []string {
	var out []string
	for _, a := range r.Actions {
		out = append(out, a.Action+" "+a.DigitalSourceType)
	}
	return out
}

func TestEmbed(t *testing.T) {
	ctx := context.Background()
	auth := authority{c2patest.NewCA(t, "Provenant test CA")}
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	jpg := meadow(t)
	camera, _, _, err := c2pa.Embed(jpg, c2pa.Manifest{ClaimGenerator: "Camera/1.0", Format: "image/jpeg"},
		c2patest.NewSigner(t, c2patest.CertOptions{Org: "Third Party Camera"}))
	if err != nil {
		t.Fatal(err)
	}
	broken := bytes.Clone(camera)
	j := bytes.Index(broken, []byte("jumb"))
	broken[j-1] ^= 0x40 // the store's box claims more bytes than it has

	in := Input{Owner: "acct", OrgName: "Example News", OriginType: "camera_image", RecordID: "rec-1",
		Out: jpg, Format: imagex.JPEG, Payload: 0x0102030405060708, Marked: true, PHash: phash.Hash{P64: 5}, When: when}
	created := "c2pa.created " + DigitalSourceType("camera_image")
	tests := []struct {
		name   string
		a      Authority
		edit   func(*Input)
		err    error
		stored bool
		// actions the manifest lists, in order.
		actions []string
	}{
		{"no authority", nil, nil, nil, false, nil},
		{"not JPEG or PNG", auth, func(in *Input) { in.Format = imagex.GIF }, nil, false, nil},
		{"fresh upload, marked", auth, func(in *Input) { in.Upload = jpg }, nil, true, []string{created, "c2pa.watermarked "}},
		{"fresh upload, too small to mark", auth, func(in *Input) { in.Upload, in.Marked = jpg, false }, nil, true, []string{created}},
		{"upload with credentials", auth, func(in *Input) { in.Upload = camera }, nil, true, []string{"c2pa.opened ", "c2pa.watermarked "}},
		{"upload with an unreadable store", auth, func(in *Input) { in.Upload = broken }, ErrUnreadable, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := in
			if tt.edit != nil {
				tt.edit(&in)
			}
			out, err := Embed(ctx, tt.a, in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Embed: %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.stored {
				if !bytes.Equal(out.File, in.Out) || out.ID != "" || out.Store != nil {
					t.Fatalf("Embed changed the output: id %q, %d bytes of store", out.ID, len(out.Store))
				}
				return
			}
			st, err := c2pa.Extract(out.File)
			if err != nil || !bytes.Equal(st, out.Store) || out.ID == "" {
				t.Fatalf("the file carries %d bytes of store (%v), Output %d bytes, id %q", len(st), err, len(out.Store), out.ID)
			}
			rep, err := c2pa.Read(out.File, when)
			if err != nil {
				t.Fatal(err)
			}
			if rep.State != "valid" || rep.ClaimGenerator != ClaimGenerator || rep.ActiveManifest != out.ID {
				t.Errorf("report: state %s %v, generator %q, active %q, want valid, %q, %q", rep.State, rep.Codes, rep.ClaimGenerator, rep.ActiveManifest, ClaimGenerator, out.ID)
			}
			if got := actions(rep); !slices.Equal(got, tt.actions) {
				t.Errorf("actions %q, want %q", got, tt.actions)
			}
			// Our soft bindings: the watermark first when marked, then the
			// perceptual hash.
			var algs []string
			for _, b := range rep.SoftBindings {
				algs = append(algs, b.Alg)
			}
			want := []string{facts.AlgPHash}
			if in.Marked {
				want = []string{facts.AlgWatermark, facts.AlgPHash}
			}
			if !slices.Equal(algs, want) {
				t.Errorf("soft bindings %q, want %q", algs, want)
			}
			if (len(rep.Ingredients) > 0) != bytes.Equal(in.Upload, camera) {
				t.Errorf("ingredients %+v: the upload's credentials must be the parent exactly when it carried some", rep.Ingredients)
			}
		})
	}
}

// records is the candidate search as the resolver sees it.
type records []Candidate

func (r records) ManifestCandidates(_ context.Context, f facts.Facts, byHash bool) ([]Candidate, error) {
	var out []Candidate
	for _, c := range r {
		// What the search would link: the SHA-256, the payload, and (by
		// hash only) every other candidate as a perceptual neighbour.
		if byHash || c.SHA256 == hex.EncodeToString(f.SHA256[:]) || (f.Watermark.Found && c.WatermarkPayloadHex == hex.EncodeToString(f.Watermark.Payload)) {
			out = append(out, c)
		}
	}
	return out, nil
}

func TestResolver(t *testing.T) {
	ctx := context.Background()
	st := storetest.Badger(t)
	near := phash.Hash{P64: 1}
	far := near
	for i := range 20 { // 20 of 256 bits apart
		far.P256[i/64] ^= 1 << (i % 64)
	}
	// Past phash.NearDistance256: another picture.
	other := near
	for i := range phash.NearDistance256 + 1 {
		other.P256[i/64] ^= 1 << (i % 64)
	}
	payload := binary.BigEndian.AppendUint64(nil, 0x1122334455667788)
	cands := records{
		{RecordID: "exact", SHA256: hex.EncodeToString(bytes.Repeat([]byte{1}, 32)), PerceptualHash: far.String()},
		{RecordID: "marked", SHA256: hex.EncodeToString(bytes.Repeat([]byte{2}, 32)), WatermarkPayloadHex: hex.EncodeToString(payload), PerceptualHash: far.String()},
		{RecordID: "near", SHA256: hex.EncodeToString(bytes.Repeat([]byte{3}, 32)), PerceptualHash: near.String()},
		{RecordID: "revoked", SHA256: hex.EncodeToString(bytes.Repeat([]byte{4}, 32)), PerceptualHash: near.String(), Revoked: true},
		{RecordID: "by-original", SHA256: hex.EncodeToString(bytes.Repeat([]byte{5}, 32)), PerceptualHash: near.String(), ByOriginal: true},
		{RecordID: "another-picture", SHA256: hex.EncodeToString(bytes.Repeat([]byte{7}, 32)), PerceptualHash: other.String()},
		{RecordID: "no-manifest", SHA256: hex.EncodeToString(bytes.Repeat([]byte{6}, 32)), PerceptualHash: near.String()},
	}
	err := st.Update(ctx, func(tx store.Txn) error {
		for _, c := range cands {
			if c.RecordID == "no-manifest" {
				continue
			}
			if err := Put(tx, c.RecordID, "urn:c2pa:"+c.RecordID, []byte("store of "+c.RecordID)); err != nil {
				return err
			}
		}
		return Put(tx, "no-manifest", "", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := NewResolver(Config{Store: st, Records: cands, Clock: clock.NewFake(time.Now())})
	if err != nil {
		t.Fatal(err)
	}

	ms, err := rv.ByBinding(ctx, facts.AlgWatermark, payload, 10)
	if err != nil || len(ms) != 1 || ms[0] != (Match{ManifestID: "urn:c2pa:marked", RecordID: "marked", Score: 100}) {
		t.Errorf("by watermark: %+v %v, want the marked record's manifest at 100", ms, err)
	}
	// By perceptual hash: the identical hash scores 100, one 20 bits off
	// less, best first; another picture, revoked records, records matched
	// by their original and records without a manifest resolve to nothing.
	ms, err = rv.ByBinding(ctx, facts.AlgPHash, near.Bytes(), 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.RecordID)
	}
	if want := []string{"near", "exact", "marked"}; !slices.Equal(got, want) || ms[0].Score != 100 || ms[1].Score != 100-(100*20+128)/256 {
		t.Errorf("by perceptual hash: %+v, want %v scored 100, %d, %d", ms, want, 100-(100*20+128)/256, 100-(100*20+128)/256)
	}
	if ms, err := rv.ByBinding(ctx, facts.AlgPHash, near.Bytes(), 1); err != nil || len(ms) != 1 || ms[0].RecordID != "near" {
		t.Errorf("max 1: %+v %v", ms, err)
	}
	for _, tt := range []struct {
		alg   string
		value []byte
		err   error
	}{
		{"com.example.other", payload, ErrUnknownAlgorithm},
		{facts.AlgWatermark, payload[:7], ErrBindingValue},
		{facts.AlgPHash, payload, ErrBindingValue},
	} {
		if _, err := rv.ByBinding(ctx, tt.alg, tt.value, 10); !errors.Is(err, tt.err) {
			t.Errorf("ByBinding(%s, %d bytes): %v, want %v", tt.alg, len(tt.value), err, tt.err)
		}
	}

	body, rec, err := rv.Manifest(ctx, "urn:c2pa:near")
	if err != nil || string(body) != "store of near" || rec != "near" {
		t.Errorf("Manifest: %q %q %v", body, rec, err)
	}
	if _, _, err := rv.Manifest(ctx, "urn:c2pa:none"); !errors.Is(err, ErrNoManifest) {
		t.Errorf("Manifest of an unknown id: %v, want ErrNoManifest", err)
	}
	if id, err := rv.ManifestOf(ctx, "no-manifest"); err != nil || id != "" {
		t.Errorf("ManifestOf a record without one: %q %v", id, err)
	}
	if _, err := rv.CA(ctx); !errors.Is(err, ErrNoManifest) {
		t.Errorf("CA without an authority: %v, want ErrNoManifest", err)
	}
}
