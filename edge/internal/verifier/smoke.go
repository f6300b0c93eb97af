package verifier

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"sync"
)

// randReader feeds WASI random_get from the system's CSPRNG.
type randReader struct{}

func (randReader) Read(p []byte) (int, error) { return rand.Read(p) }

// SmokeImage is a small JPEG every working module analyses: a 320×240
// gradient with texture, built once.
var SmokeImage = sync.OnceValue(func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	for y := 0; y < 240; y++ {
		for x := 0; x < 320; x++ {
			v := uint8((x*3 + y*5 + (x*y)%17) & 0xff)
			img.Set(x, y, color.RGBA{v, uint8(255 - int(v)), uint8((x ^ y) & 0xff), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		panic(err) // encoding an in-memory RGBA cannot fail
	}
	return buf.Bytes()
})

// smokeTest runs SmokeImage through analyze and decide (with a lookup
// answer of no candidates) on an instance of g, and requires the verdict
// every module must give: not authentic.
func smokeTest(ctx context.Context, g *generation) error {
	out, err := g.call(ctx, "analyze", SmokeImage())
	if err != nil {
		return err
	}
	a, _, err := parseAnalyze(out)
	if err != nil {
		return err
	}
	if len(a.Facts.SHA256) != 64 {
		return errors.New("analyze returned no sha256")
	}
	w := &Wasm{cfg: *g.cfg}
	w.cur.Store(g)
	v, err := w.Decide(ctx, a, []byte(`{"candidates":[]}`))
	if err != nil {
		return err
	}
	if v.Authentic {
		return fmt.Errorf("decide called a file with no candidates authentic")
	}
	return nil
}

// smokeTestC2PA has the C2PA module read SmokeImage, which carries no
// manifest.
func smokeTestC2PA(ctx context.Context, g *generation) error {
	out, err := g.call(ctx, "c2pa_read", SmokeImage())
	if err != nil {
		return err
	}
	if string(out) != `{"ok":true,"c2pa":null}` {
		return fmt.Errorf("c2pa_read of a file without a manifest answered %.200s", out)
	}
	return nil
}
