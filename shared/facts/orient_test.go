package facts

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
)

// TestMirroredCopyMatchesUpright: a mirrored or quarter-turned re-post of
// a signed picture is compared with the record's local signatures turned
// back, so it matches the signed picture block by block (a re-encoded
// copy, not a transplanted mark).
func TestMirroredCopyMatchesUpright(t *testing.T) {
	marked := markedPhoto(t, meadowJPEG, 0, 0, 0x1122334455667788)
	grid := localsig.Compute(imagex.ToLuma(marked))
	for _, tc := range []struct {
		name string
		fn   func(x, y, w, h int) (int, int, int, int) // source pixel → destination pixel and size
	}{
		{"mirror", func(x, y, w, h int) (int, int, int, int) { return w - 1 - x, y, w, h }},
		{"turn90", func(x, y, w, h int) (int, int, int, int) { return h - 1 - y, x, h, w }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bb := marked.Bounds()
			_, _, ow, oh := tc.fn(0, 0, bb.Dx(), bb.Dy())
			out := image.NewRGBA(image.Rect(0, 0, ow, oh))
			for y := 0; y < bb.Dy(); y++ {
				for x := 0; x < bb.Dx(); x++ {
					dx, dy, _, _ := tc.fn(x, y, bb.Dx(), bb.Dy())
					out.Set(dx, dy, marked.At(bb.Min.X+x, bb.Min.Y+y))
				}
			}
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: 88}); err != nil {
				t.Fatal(err)
			}
			f := fullFacts(t, buf.Bytes(), limits.Default())
			if !f.Watermark.Found || f.Local == nil {
				t.Fatalf("watermark found %v, probe %v: want both", f.Watermark.Found, f.Local != nil)
			}
			if r := localsig.Compare(grid, f.Local); r.Outcome != localsig.Same {
				t.Errorf("local signatures: %v (%d of %d changed), want the signed picture", r.Outcome, r.ChangedCount, r.Compared)
			}
		})
	}
}
