package verdict

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/record"
)

// localFixture returns the local signatures of a synthetic 480×320
// picture and a probe of the same picture as the watermark decoder would
// place it (unscaled, unrotated, unshifted): the facts of a file that is
// the signed picture.
func localFixture() ([]byte, *localsig.Probe) {
	const w, h = 480, 320
	l := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := (x*7 + y*3) % 256
			if (x/23+y/17)%3 == 0 {
				v = 255 - v/2
			}
			l.Pix[y*w+x] = uint8(v)
		}
	}
	g, err := localsig.Compute(l).Encode()
	if err != nil {
		panic(err)
	}
	ww, wh := localsig.WorkDims(w, h)
	return g, localsig.NewProbe(l, localsig.Alignment{Scale: 1, WorkWidth: ww, WorkHeight: wh, Period: 64})
}

// fixtureKey is the Ed25519 key whose seed is 32 copies of b: each test
// file signs with its own, and the same one on every run.
func fixtureKey(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
}

// signFixture signs rec with priv, failing t if it cannot. With forge, the
// returned signature has its first bit flipped (in a copy), so that the
// candidate carries a signature that does not verify.
func signFixture(t testing.TB, priv ed25519.PrivateKey, rec *record.Record, forge bool) record.Signed {
	t.Helper()
	signed, err := record.Sign(priv, rec)
	if err != nil {
		t.Fatal(err)
	}
	if forge {
		signed.Signature = bytes.Clone(signed.Signature)
		signed.Signature[0] ^= 1
	}
	return signed
}

// wrongAnswer says how r differs from the answer a test wants (the record
// whose Org is wantOrg, and its authenticity), or is "" when r gives it.
func wrongAnswer(r Result, wantOrg string, wantAuthentic bool) string {
	if r.Record != nil && r.Record.Org == wantOrg && r.Authentic == wantAuthentic {
		return ""
	}
	got := "<nil>"
	if r.Record != nil {
		got = r.Record.Org
	}
	return fmt.Sprintf("Decide() record %s authentic %v, want %s %v", got, r.Authentic, wantOrg, wantAuthentic)
}
