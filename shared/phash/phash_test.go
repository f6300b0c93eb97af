package phash

import (
	"errors"
	"image"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/corona10/goimagehash"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/internal/phototest"
	"github.com/provenant/provenant/shared/limits"
)

func lumaOf(t testing.TB, name string) *imagex.Luma {
	t.Helper()
	return imagex.ToLuma(phototest.Decode(t, name))
}

func plane(w, h int, f func(x, y int) uint8) *imagex.Luma {
	l := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			l.Pix[y*w+x] = f(x, y)
		}
	}
	return l
}

// TestExt256MatchesGoimagehash is the differential test that lets ext256
// stand in for goimagehash.ExtPerceptionHash(img, 16, 16).
func TestExt256MatchesGoimagehash(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	planes := map[string]*imagex.Luma{
		"flat0":    plane(256, 256, func(x, y int) uint8 { return 0 }),
		"flat128":  plane(256, 256, func(x, y int) uint8 { return 128 }),
		"gradient": plane(256, 256, func(x, y int) uint8 { return uint8(x) }),
		"diagonal": plane(256, 256, func(x, y int) uint8 { return uint8((x + y) / 2) }),
		"checker":  plane(256, 256, func(x, y int) uint8 { return uint8(255 * ((x/8 + y/8) % 2)) }),
		"noise":    plane(256, 256, func(x, y int) uint8 { return uint8(r.IntN(256)) }),
	}
	for _, f := range []string{"photo.jpg", "other.jpg", "photo.png", "photo.gif", "photo.webp", "gray.jpg"} {
		planes[f] = imagex.Downscale(lumaOf(t, f), Side256, Side256)
	}
	for i := 0; i < 20; i++ {
		planes["random-smooth-"+string(rune('a'+i))] = imagex.Downscale(plane(64, 40, func(x, y int) uint8 { return uint8(r.IntN(256)) }), Side256, Side256)
	}
	for name, p := range planes {
		want, err := goimagehash.ExtPerceptionHash(gray(p), 16, 16)
		if err != nil {
			t.Fatal(err)
		}
		got := ext256(p)
		if w := want.GetHash(); len(w) != 4 || got != [4]uint64(w) {
			t.Errorf("ext256(%s) = %x, goimagehash = %x", name, got, w)
		}
	}
}

// TestCompute64IsGoimagehash is the differential test that lets hash64
// stand in for goimagehash.PerceptionHash on a 64×64 plane.
func TestCompute64IsGoimagehash(t *testing.T) {
	l := lumaOf(t, "photo.jpg")
	h, err := Compute(l)
	if err != nil {
		t.Fatal(err)
	}
	s64 := imagex.Downscale(imagex.Downscale(l, Side256, Side256), Side64, Side64)
	want, err := goimagehash.PerceptionHash(gray(s64))
	if err != nil {
		t.Fatal(err)
	}
	if h.P64 != want.GetHash() {
		t.Errorf("Compute().P64 = %016x, goimagehash = %016x", h.P64, want.GetHash())
	}

	r := rand.New(rand.NewPCG(9, 9))
	planes := map[string]*imagex.Luma{
		"flat0":    plane(64, 64, func(x, y int) uint8 { return 0 }),
		"flat255":  plane(64, 64, func(x, y int) uint8 { return 255 }),
		"gradient": plane(64, 64, func(x, y int) uint8 { return uint8(4 * x) }),
		"checker":  plane(64, 64, func(x, y int) uint8 { return uint8(255 * ((x/4 + y/4) % 2)) }),
		"noise":    plane(64, 64, func(x, y int) uint8 { return uint8(r.IntN(256)) }),
		// A strided view: hash64 must honour Stride.
		"strided": func() *imagex.Luma {
			p := plane(80, 64, func(x, y int) uint8 { return uint8(x*y + r.IntN(9)) })
			return &imagex.Luma{Width: 64, Height: 64, Stride: p.Stride, Pix: p.Pix}
		}(),
	}
	for _, f := range []string{"photo.jpg", "other.jpg", "photo.png", "photo.gif", "photo.webp", "gray.jpg"} {
		planes[f] = imagex.Downscale(imagex.Downscale(lumaOf(t, f), Side256, Side256), Side64, Side64)
	}
	for i := 0; i < 30; i++ {
		planes["random-smooth-"+string(rune('a'+i))] = imagex.Downscale(plane(24, 17, func(x, y int) uint8 { return uint8(r.IntN(256)) }), Side64, Side64)
	}
	for name, p := range planes {
		want, err := goimagehash.PerceptionHash(gray(p))
		if err != nil {
			t.Fatal(err)
		}
		if got := hash64(p); got != want.GetHash() {
			t.Errorf("hash64(%s) = %016x, goimagehash = %016x", name, got, want.GetHash())
		}
	}
}

func reencode(t testing.TB, l *imagex.Luma, q int, scale float64) *imagex.Luma {
	t.Helper()
	g := gray(l)
	var src image.Image = g
	if scale != 1 {
		src = gray(imagex.Downscale(l, int(float64(l.Width)*scale), int(float64(l.Height)*scale)))
	}
	img, err := imagex.Decode(phototest.JPEG(t, src, q), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return imagex.ToLuma(img.Image)
}

func TestNearMatch(t *testing.T) {
	photo := lumaOf(t, "photo.jpg")
	ph, _ := Compute(photo)
	tests := []struct {
		name string
		l    *imagex.Luma
		near bool
	}{
		{"same", photo, true},
		{"jpeg q50", reencode(t, photo, 50, 1), true},
		{"half size q70", reencode(t, photo, 70, 0.5), true},
		{"png of same", lumaOf(t, "photo.png"), true},
		{"webp of same", lumaOf(t, "photo.webp"), true},
		{"unrelated", lumaOf(t, "other.jpg"), false},
	}
	for _, tt := range tests {
		h, err := Compute(tt.l)
		if err != nil {
			t.Fatal(err)
		}
		d := Distance256(ph.P256, h.P256)
		if got := Near(ph, h); got != tt.near {
			t.Errorf("Near(photo, %s) = %v (distance256 %d, distance64 %d), want %v", tt.name, got, d, Distance64(ph.P64, h.P64), tt.near)
		}
	}
}

func TestComputeEmpty(t *testing.T) {
	if _, err := Compute(&imagex.Luma{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("Compute(empty) error = %v, want ErrEmpty", err)
	}
	if _, err := Compute(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Compute(nil) error = %v, want ErrEmpty", err)
	}
	// Tiny images hash (upsampled) without panicking.
	if _, err := Compute(plane(1, 1, func(int, int) uint8 { return 9 })); err != nil {
		t.Errorf("Compute(1x1) error = %v", err)
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		name string
		a, b [4]uint64
		want int
	}{
		{"equal", [4]uint64{1, 2, 3, 4}, [4]uint64{1, 2, 3, 4}, 0},
		{"one bit", [4]uint64{0, 0, 0, 0}, [4]uint64{0, 0, 1 << 63, 0}, 1},
		{"all", [4]uint64{}, [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, 256},
	}
	for _, tt := range tests {
		if got := Distance256(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance256(%s) = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := Distance64(0xF0, 0x0F); got != 8 {
		t.Errorf("Distance64(0xF0, 0x0F) = %d, want 8", got)
	}
}

func TestStringParse(t *testing.T) {
	h := Hash{P64: 0x0123456789abcdef, P256: [4]uint64{1, 2, 3, 0xffffffffffffffff}}
	s := h.String()
	if len(s) != HexLen || !strings.HasPrefix(s, "0123456789abcdef0000000000000001") || h.Hex64() != "0123456789abcdef" {
		t.Fatalf("String() = %q, Hex64() = %q", s, h.Hex64())
	}
	got, err := Parse(strings.ToUpper(s))
	if err != nil || got != h {
		t.Errorf("Parse(String()) = %v, %v; want %v", got, err, h)
	}
	for _, bad := range []string{"", s[:79], s + "0", "zz" + s[2:]} {
		if _, err := Parse(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q) error = %v, want ErrMalformed", bad, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Hash{P64: 42, P256: [4]uint64{1, 2, 3, 4}}.String())
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := Parse(s)
		if err != nil {
			return
		}
		if got := h.String(); !strings.EqualFold(got, s) {
			t.Fatalf("Parse(%q).String() = %q", s, got)
		}
	})
}
