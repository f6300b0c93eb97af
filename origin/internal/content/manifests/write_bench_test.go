package manifests

import (
	"bytes"
	"context"
	"crypto/rand"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/c2pacert"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/phash"
)

// BenchmarkC2PAManifest is what the manifest step adds to a sign: the
// output's JPEG encode at quality 90 (the floor, a step sign always pays) and the
// manifest step (certificate unsealed from the store, claim built,
// signed ES256, embedded), medians, with manifest/encode-x their ratio.
//
//	go test ./origin/internal/content/manifests -run '^$' -bench C2PAManifest -benchtime 20x -count 3
func BenchmarkC2PAManifest(b *testing.B) {
	raw := testkit.ReadFile(b, "../../../../shared/watermark/testdata/meadow.jpg")
	img := testkit.Decode(b, raw)
	st := storetest.Badger(b)
	clk := clock.NewFake(time.Now())
	ks, err := keys.New(keys.Config{Store: st, Clock: clk, Rand: rand.Reader, MasterKey: make([]byte, keys.MasterKeySize)})
	if err != nil {
		b.Fatal(err)
	}
	auth, err := c2pacert.New(c2pacert.Config{Store: st, Sealer: ks, Clock: clk, Rand: rand.Reader})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var enc, man []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		var buf bytes.Buffer
		if err := (imagex.StdJPEG{}).EncodeJPEG(&buf, img.Image, 90); err != nil {
			b.Fatal(err)
		}
		out, f := buf.Bytes(), imagex.JPEG
		t1 := time.Now()
		if _, err := Embed(ctx, auth, Input{Owner: "acct", OrgName: "Example News", OriginType: "camera_image", RecordID: "r",
			Title: "meadow.jpg", Upload: raw, Out: out, Format: f, Payload: 1, Marked: true, PHash: phash.Hash{}, When: t0}); err != nil {
			b.Fatal(err)
		}
		enc, man = append(enc, t1.Sub(t0)), append(man, time.Since(t1))
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 { slices.Sort(d); return float64(d[len(d)/2]) }
	e, m := med(enc), med(man)
	b.ReportMetric(e/1e6, "encode-ms")
	b.ReportMetric(m/1e6, "manifest-ms")
	b.ReportMetric(m/e, "manifest/encode-x")
}
