package phash

import (
	"bytes"
	"image"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// transformLuma applies t to l's pixels the way Transform documents it:
// transpose, then mirror left-right, then flip top-bottom.
func transformLuma(l *imagex.Luma, t Transform) *imagex.Luma {
	w, h := l.Width, l.Height
	if t&Transpose != 0 {
		w, h = h, w
	}
	out := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			sx, sy := x, y
			if t&MirrorX != 0 {
				sx = w - 1 - sx
			}
			if t&FlipY != 0 {
				sy = h - 1 - sy
			}
			if t&Transpose != 0 {
				sx, sy = sy, sx
			}
			out.Pix[y*w+x] = l.Pix[sy*l.Stride+sx]
		}
	}
	return out
}

// TestDihedralMatchesTransformedPixels: each variant derived from one DCT
// is the hash of the transformed picture (within rounding), the identity
// is Compute's exactly, and the variants are far from the identity (a
// mirror is a different hash: that is why the variants are needed).
func TestDihedralMatchesTransformedPixels(t *testing.T) {
	for _, name := range []string{"photo.jpg", "other.jpg", "gray.jpg", "photo.png"} {
		l := lumaOf(t, name)
		vs, err := Dihedral(l)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := Compute(l)
		if vs[Identity] != h {
			t.Fatalf("%s: identity variant %v != Compute %v", name, vs[Identity], h)
		}
		for tr := Transform(1); tr < Transforms; tr++ {
			want, err := Compute(transformLuma(l, tr))
			if err != nil {
				t.Fatal(err)
			}
			// Not 0: the area-averaging bins of a width that is not a
			// multiple of 256 are not symmetric, a sub-pixel shift.
			if d := Distance256(vs[tr].P256, want.P256); d > 24 {
				t.Errorf("%s %v: derived 256-bit variant %d bits from the transformed picture's hash", name, tr, d)
			}
			if d := Distance64(vs[tr].P64, want.P64); d > 8 {
				t.Errorf("%s %v: derived 64-bit variant %d bits from the transformed picture's hash", name, tr, d)
			}
			if got, d := NearestVariant(vs, want); got != tr || d > 24 {
				t.Errorf("%s %v: nearest variant %v at %d", name, tr, got, d)
			}
			if d := Distance256(h.P256, want.P256); d <= NearDistance256 && tr&^Transpose != 0 {
				t.Logf("%s %v: plain hash already near (%d)", name, tr, d)
			}
			approx := h.Dihedral()[tr]
			t.Logf("%s %v: plain %d, from bits %d/256 %d/64", name, tr, Distance256(h.P256, want.P256),
				Distance256(approx.P256, want.P256), Distance64(approx.P64, want.P64))
			if d := Distance256(approx.P256, want.P256); d > NearDistance256/2 {
				t.Errorf("%s %v: variant from bits %d bits from the transformed picture's hash", name, tr, d)
			}
		}
	}
}

// TestDihedralBitsIsAGroupAction: transforms from bits compose like the
// group (applying MirrorX twice, or Transpose twice, is the identity).
func TestDihedralBitsIsAGroupAction(t *testing.T) {
	h := Hash{P64: 0x0123456789abcdef, P256: [4]uint64{1, 0xfedcba9876543210, 3, 0x5555aaaa5555aaaa}}
	for _, tr := range []Transform{MirrorX, FlipY, Transpose, MirrorX | FlipY} {
		if got := h.Dihedral()[tr].Dihedral()[tr]; got != h {
			t.Errorf("%v twice = %v, want %v", tr, got, h)
		}
	}
	if h.Dihedral()[Identity] != h {
		t.Error("identity changed the hash")
	}
}

// TestTransformInverse: every transform composed with its inverse is the
// identity on a hash's bits.
func TestTransformInverse(t *testing.T) {
	h := Hash{P64: 0x0123456789abcdef, P256: [4]uint64{1, 0xfedcba9876543210, 3, 0x5555aaaa5555aaaa}}
	for tr := Transform(0); tr < Transforms; tr++ {
		if got := h.Dihedral()[tr].Dihedral()[tr.Inverse()]; got != h {
			t.Errorf("%v then its inverse %v changed the hash", tr, tr.Inverse())
		}
	}
}

// TestEXIFOrientation: imagex.Orient with t's EXIF orientation is the
// pixel transform t documents.
func TestEXIFOrientation(t *testing.T) {
	l := plane(5, 3, func(x, y int) uint8 { return uint8(10*y + x) })
	g := &image.Gray{Pix: l.Pix, Stride: l.Stride, Rect: image.Rect(0, 0, l.Width, l.Height)}
	for tr := Transform(0); tr < Transforms; tr++ {
		want := transformLuma(l, tr)
		got, ok := imagex.Orient(g, tr.EXIFOrientation()).(*image.Gray)
		if !ok || got.Rect.Dx() != want.Width || got.Rect.Dy() != want.Height || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%v: Orient(%d) = %v, want %v", tr, tr.EXIFOrientation(), got.Pix, want.Pix)
		}
	}
}
