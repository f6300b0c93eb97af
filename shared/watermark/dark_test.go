package watermark

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// TestFormat3KeepsTheMarkThroughJPEGOnDarkPictures: on a dark smooth
// picture format 2's flat amplitude (0.9 levels, half of it clipped at
// black) does not survive JPEG 30; format 3's dark floor does, within the
// PSNR target, and Extract reports version 3.
func TestFormat3KeepsTheMarkThroughJPEGOnDarkPictures(t *testing.T) {
	img := darkSmooth(1920, 1200)
	p := Payload(0x0fedcba987654321)
	for _, tc := range []struct {
		version int
		want    bool
	}{{2, false}, {3, true}} {
		marked, err := Embed(img, p, WithVersion(tc.version))
		if err != nil {
			t.Fatal(err)
		}
		psnr, err := PSNR(imagex.ToLuma(img), imagex.ToLuma(marked))
		if err != nil {
			t.Fatal(err)
		}
		if psnr < 42.1 {
			t.Errorf("v%d: luma PSNR %.2f dB, want ≥ 42.1", tc.version, psnr)
		}
		// Format 3 spends the budget that clipping at black leaves:
		// the result lands at the target, not above it.
		if tc.version == 3 && psnr > 42.6 {
			t.Errorf("v3: luma PSNR %.2f dB, want the 42.2 dB target met", psnr)
		}
		got, d, err := Extract(imagex.ToLuma(reencode(t, marked, "jpeg", 30)))
		if err != nil {
			t.Fatal(err)
		}
		found := d.Found && got == p
		t.Logf("v%d: PSNR %.2f dB, after JPEG 30 found %v z %.1f bit errors %d", tc.version, psnr, found, d.Strength, d.BitErrors)
		if found != tc.want {
			t.Errorf("v%d after JPEG 30: found %v (%+v), want %v", tc.version, found, d, tc.want)
		}
		if found && d.Version != tc.version {
			t.Errorf("v%d: Detection.Version %d", tc.version, d.Version)
		}
	}
}

// TestFormat3LeavesBrightPicturesAlone: the dark floor and its gain touch
// only dark regions, so a bright flat picture under budget gets format 2's
// amplitude (a sky at 47 dB stays there instead of being raised to the
// 42.2 dB target).
func TestFormat3LeavesBrightPicturesAlone(t *testing.T) {
	img := brightGradient(900, 600)
	var psnr [2]float64
	for i, v := range []int{2, 3} {
		marked, err := Embed(img, Payload(0x1122334455667788), WithVersion(v))
		if err != nil {
			t.Fatal(err)
		}
		if psnr[i], err = PSNR(imagex.ToLuma(img), imagex.ToLuma(marked)); err != nil {
			t.Fatal(err)
		}
	}
	if psnr[0] < 44 || math.Abs(psnr[1]-psnr[0]) > 0.1 {
		t.Errorf("bright gradient: PSNR v2 %.2f dB, v3 %.2f dB; want the same, above the target", psnr[0], psnr[1])
	}
}

// TestDarkWeight pins the ramp the dark floor follows.
func TestDarkWeight(t *testing.T) {
	const w, h = 16, 16
	for _, tc := range []struct{ level, want float32 }{{0, 1}, {darkFull, 1}, {40, 0.5}, {darkEnd, 0}, {200, 0}} {
		work := make([]float32, w*h)
		for i := range work {
			work[i] = tc.level
		}
		if got := darkWeight(work, w, h)[w*h/2+w/2]; math.Abs(float64(got-tc.want)) > 1e-6 {
			t.Errorf("darkWeight(%v) = %v, want %v", tc.level, got, tc.want)
		}
	}
}

// TestDarkBoostMask: the mask's floor is darkFloor on black, format 2's
// mask on bright regions, and never lowered.
func TestDarkBoostMask(t *testing.T) {
	const w, h = 16, 16
	for _, tc := range []struct{ level, mask, want float32 }{
		{0, maskFlat, darkFloor}, {40, maskFlat, (maskFlat + darkFloor) / 2}, {128, maskFlat, maskFlat}, {0, 4, 4},
	} {
		work := make([]float32, w*h)
		mask := make([]float32, w*h)
		for i := range work {
			work[i], mask[i] = tc.level, tc.mask
		}
		darkBoostMask(mask, work, w, h)
		if got := mask[w*h/2+w/2]; math.Abs(float64(got-tc.want)) > 1e-5 {
			t.Errorf("level %v, mask %v: %v, want %v", tc.level, tc.mask, got, tc.want)
		}
	}
}

// TestFormat2DecoderReadsFormat3: the two formats share the signal, so the
// format-2 decoder checks the CRC of either version and reports which;
// format 1's decoder accepts neither.
func TestFormat2DecoderReadsFormat3(t *testing.T) {
	v2, v1 := schemeFor(2), schemeFor(1)
	for _, ver := range []uint8{1, 2, 3, 4} {
		cw := convEncode(message(0xabcdef, ver))
		soft := make([]float64, len(cw))
		for i, b := range cw {
			soft[i] = float64(2*int(b) - 1)
		}
		p, got, _, ok := v2.decodeSoft(soft)
		if want := ver == 2 || ver == 3; ok != want || (ok && (got != ver || p != 0xabcdef)) {
			t.Errorf("v2 decoder, message v%d: ok %v version %d payload %v", ver, ok, got, p)
		}
		if _, _, _, ok := v1.decodeSoft(soft); ok != (ver == 1) {
			t.Errorf("v1 decoder, message v%d: ok %v", ver, ok)
		}
	}
	if schemeFor(3) == nil || !schemeFor(3).darkBoost || schemeFor(2).darkBoost {
		t.Error("format 3 must be format 2's signal with the dark floor")
	}
}

// BenchmarkEmbedDark: the embedding cost of each format on a dark picture
// (format 3 measures and rescales its dark part: up to four more passes).
func BenchmarkEmbedDark(b *testing.B) {
	img := darkSmooth(1920, 1200)
	for _, v := range []int{2, 3} {
		b.Run(fmt.Sprintf("v%d", v), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Embed(img, Payload(1), WithVersion(v)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// darkSmooth is like the translucent wallpapers flattened over black:
// luminance 0 over most of the picture, faint thin rings (up to 12 levels)
// over its right third.
func darkSmooth(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 3; i < len(m.Pix); i += 4 {
		m.Pix[i] = 255
	}
	for k := 0; k < 40; k++ {
		cx := float64(w)*2/3 + float64((k*7919)%(w/3))
		cy := float64((k * 104729) % h)
		r := 20 + float64((k*31)%90)
		for y := max(0, int(cy-r-3)); y < min(h, int(cy+r+3)); y++ {
			for x := max(0, int(cx-r-3)); x < min(w, int(cx+r+3)); x++ {
				d := math.Abs(math.Hypot(float64(x)-cx, float64(y)-cy) - r)
				if d < 1.5 {
					o := m.RGBAAt(x, y).R + uint8(12*(1.5-d)/1.5)
					m.SetRGBA(x, y, color.RGBA{o, o, o, 255})
				}
			}
		}
	}
	return m
}

// brightGradient is a flat, bright sky-like gradient (no dark region).
func brightGradient(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			u := uint8(150 + 80*y/h)
			m.SetRGBA(x, y, color.RGBA{u - 20, u, 255, 255})
		}
	}
	return m
}
