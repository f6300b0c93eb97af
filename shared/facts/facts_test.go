package facts

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/internal/phototest"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/wire"
)

func TestLumaMatchesToLuma(t *testing.T) {
	ycc := image.NewYCbCr(image.Rect(0, 0, 37, 21), image.YCbCrSubsampleRatio420)
	for i := range ycc.Y {
		ycc.Y[i] = uint8(i * 7)
	}
	gray := image.NewGray(image.Rect(0, 0, 9, 5))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 3)
	}
	rgba := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for _, m := range []image.Image{ycc, gray, rgba, ycc.SubImage(image.Rect(3, 3, 20, 20))} {
		got, want := Luma(m), imagex.ToLuma(m)
		if got.Width != want.Width || got.Height != want.Height {
			t.Fatalf("%T: size %dx%d, want %dx%d", m, got.Width, got.Height, want.Width, want.Height)
		}
		for y := 0; y < got.Height; y++ {
			for x := 0; x < got.Width; x++ {
				if got.At(x, y) != want.At(x, y) {
					t.Fatalf("%T: luma(%d,%d) = %d, want %d", m, x, y, got.At(x, y), want.At(x, y))
				}
			}
		}
	}
}

func TestAnalyze(t *testing.T) {
	for _, tt := range []struct {
		name    string
		file    string
		format  imagex.Format
		wantErr error
	}{
		{"jpeg", "../testdata/images/photo.jpg", imagex.JPEG, nil},
		{"png", "../testdata/images/photo.png", imagex.PNG, nil},
		{"tiny webp has no watermark room", "../testdata/images/tiny.webp", imagex.WebP, nil},
		{"not an image", "facts.go", "", imagex.ErrUnsupportedFormat},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Analyze(b, limits.Default(), time.Now())
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if f.Format != tt.format || f.Width == 0 || f.Height == 0 {
				t.Errorf("format %q %dx%d, want %q with a size", f.Format, f.Width, f.Height, tt.format)
			}
			if f.Watermark.Found {
				t.Errorf("an unmarked image has a watermark %x", f.Watermark.Payload)
			}
			back, err := FromWire(f.Wire())
			if err != nil {
				t.Fatal(err)
			}
			if back.Wire() != f.Wire() {
				t.Errorf("wire round trip: got %+v, want %+v", back.Wire(), f.Wire())
			}
		})
	}
}

func TestFromWireRefuses(t *testing.T) {
	sha := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	ph := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tt := range []struct {
		name string
		in   wire.Facts
		ok   bool
	}{
		{"valid, no watermark", wire.Facts{SHA256: sha, PerceptualHash: ph}, true},
		{"valid watermark", wire.Facts{SHA256: sha, PerceptualHash: ph, Watermark: wire.WatermarkFacts{Found: true, Payload: "0123456789abcdef"}}, true},
		{"short sha256", wire.Facts{SHA256: sha[:62], PerceptualHash: ph}, false},
		{"bad perceptual hash", wire.Facts{SHA256: sha, PerceptualHash: ph[:70]}, false},
		{"found without payload", wire.Facts{SHA256: sha, PerceptualHash: ph, Watermark: wire.WatermarkFacts{Found: true}}, false},
		{"payload without found", wire.Facts{SHA256: sha, PerceptualHash: ph, Watermark: wire.WatermarkFacts{Payload: "00"}}, false},
		{"negative bit errors", wire.Facts{SHA256: sha, PerceptualHash: ph, Watermark: wire.WatermarkFacts{BitErrors: -1}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromWire(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestAnalyzeReducedMatchesFull: a marked photo large enough to be
// decoded at reduced size gives the same facts through Analyze as through
// the full decode (FromImage): the same payload and size, and perceptual
// hashes a few bits apart at most.
func TestAnalyzeReducedMatchesFull(t *testing.T) {
	file := phototest.JPEG(t, markedPhoto(t, meadowJPEG, 1120, 1030, 0x0123456789abcdef), 85)
	lim := limits.Default()
	red, err := imagex.DecodeLuma(file, lim, VerifyShortSide)
	if err != nil || red.Scale != 2 {
		t.Fatalf("DecodeLuma: scale %v, %v", red, err)
	}
	got, err := Analyze(file, lim, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := fullFacts(t, file, lim)
	if got.Width != want.Width || got.Height != want.Height || got.SHA256 != want.SHA256 || got.Format != want.Format {
		t.Fatalf("Analyze %d×%d %s, full decode %d×%d %s", got.Width, got.Height, got.Format, want.Width, want.Height, want.Format)
	}
	if !got.Watermark.Found || !want.Watermark.Found || !bytes.Equal(got.Watermark.Payload, want.Watermark.Payload) {
		t.Fatalf("watermark: reduced %+v, full %+v", got.Watermark, want.Watermark)
	}
	if got.Local == nil {
		t.Fatal("no local-signature probe")
	}
	if d := phash.Distance256(got.PHash.P256, want.PHash.P256); d > 8 {
		t.Fatalf("256-bit pHash distance %d between the reduced and the full decode", d)
	}
	if d := phash.Distance64(got.PHash.P64, want.PHash.P64); d > 4 {
		t.Fatalf("64-bit pHash distance %d between the reduced and the full decode", d)
	}
}

// TestFromPlaneMatchesAnalyze: the facts of a picture decoded elsewhere
// (here image/jpeg, converted to RGB-derived luminance and area-averaged
// to PlaneSize, as a browser does) are Analyze's: same watermark, same
// SHA-256 and size, perceptual hashes within the reduced decode's own
// tolerance. A plane of another size is refused.
func TestFromPlaneMatchesAnalyze(t *testing.T) {
	lim := limits.Default()
	for _, size := range []image.Point{{480, 600}, {1120, 1030}, {2300, 2100}} {
		t.Run(fmt.Sprintf("%dx%d", size.X, size.Y), func(t *testing.T) {
			file := phototest.JPEG(t, markedPhoto(t, meadowJPEG, size.X, size.Y, 0x0123456789abcdef), 85)
			want, err := Analyze(file, lim, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			dec, err := jpeg.Decode(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			rgba := image.NewRGBA(dec.Bounds())
			draw.Draw(rgba, rgba.Bounds(), dec, image.Point{}, draw.Src)
			pw, ph, s := PlaneSize(size.X, size.Y)
			if wantS := imagex.LumaScale(size.X, size.Y, VerifyShortSide); s != wantS || pw != (size.X+s-1)/s || ph != (size.Y+s-1)/s {
				t.Fatalf("PlaneSize = %d×%d at 1/%d", pw, ph, s)
			}
			plane := imagex.ToLuma(rgba)
			if s > 1 {
				plane = imagex.Downscale(plane, pw, ph)
			}
			got, err := FromPlane(plane, imagex.JPEG, size.X, size.Y, sha256.Sum256(file))
			if err != nil {
				t.Fatal(err)
			}
			if got.SHA256 != want.SHA256 || got.Width != want.Width || got.Height != want.Height || got.Format != want.Format {
				t.Fatalf("FromPlane %d×%d %s, Analyze %d×%d %s", got.Width, got.Height, got.Format, want.Width, want.Height, want.Format)
			}
			if !got.Watermark.Found || !bytes.Equal(got.Watermark.Payload, want.Watermark.Payload) || got.Local == nil {
				t.Fatalf("watermark: from the plane %+v, Analyze %+v", got.Watermark, want.Watermark)
			}
			if d := phash.Distance256(got.PHash.P256, want.PHash.P256); d > 8 {
				t.Errorf("256-bit pHash distance %d between the plane and Analyze", d)
			}
			if d := phash.Distance64(got.PHash.P64, want.PHash.P64); d > 4 {
				t.Errorf("64-bit pHash distance %d between the plane and Analyze", d)
			}
			wrong := imagex.Downscale(plane, pw-1, ph)
			if _, err := FromPlane(wrong, imagex.JPEG, size.X, size.Y, sha256.Sum256(file)); !errors.Is(err, ErrPlaneSize) {
				t.Errorf("a %d×%d plane for %d×%d: %v, want ErrPlaneSize", pw-1, ph, size.X, size.Y, err)
			}
		})
	}
}

// TestAnalyzeProbeHasChroma: a watermarked photo verified as a JPEG (the
// reduced decode's chroma DC) and as a PNG (a full decode) gives the
// local-signature probe the picture's chroma at the probe's size, close
// to what the signed picture's chroma resamples to.
func TestAnalyzeProbeHasChroma(t *testing.T) {
	marked := markedPhoto(t, photoJPEG, 1600, 1000, 0x42)
	var pb bytes.Buffer
	if err := png.Encode(&pb, marked); err != nil {
		t.Fatal(err)
	}
	wantCb, _ := imagex.Chroma(marked)
	for name, file := range map[string][]byte{"jpeg": phototest.JPEG(t, marked, 90), "png": pb.Bytes()} {
		t.Run(name, func(t *testing.T) {
			f, err := Analyze(file, limits.Default(), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			p := f.Local
			if p == nil || p.Cb == nil || p.Cr == nil {
				t.Fatalf("probe %v without chroma", p != nil)
			}
			if p.Cb.Width != p.Plane.Width || p.Cb.Height != p.Plane.Height {
				t.Fatalf("chroma %d×%d, probe %d×%d", p.Cb.Width, p.Cb.Height, p.Plane.Width, p.Plane.Height)
			}
			want := imagex.Downscale(wantCb, p.Plane.Width, p.Plane.Height)
			var sum float64
			for i := range want.Pix {
				d := float64(want.Pix[i]) - float64(p.Cb.Pix[i])
				sum += max(d, -d)
			}
			if m := sum / float64(len(want.Pix)); m > 3 {
				t.Errorf("probe Cb differs from the picture's by %.2f levels on average", m)
			}
			// The JSON form carries the chroma, so a host that decides
			// from it (the module, the edge) compares colour too.
			back, err := ProbeFromWire(f.WireProbe())
			if err != nil {
				t.Fatal(err)
			}
			if back.Cb == nil || back.Cr == nil || !bytes.Equal(back.Cb.Pix, packedPlane(p.Cb, p.Plane.Width, p.Plane.Height)) ||
				!bytes.Equal(back.Cr.Pix, packedPlane(p.Cr, p.Plane.Width, p.Plane.Height)) {
				t.Error("chroma lost or changed through the probe's JSON form")
			}
			w := f.WireProbe()
			w.Cr = w.Cr[1:]
			if _, err := ProbeFromWire(w); err == nil {
				t.Error("a chroma plane of the wrong size was accepted")
			}
		})
	}
}

// TestProbeFromWirePlaneSize: the probe's plane is accepted with a short
// side from localsig.ProbeShort to localsig.ProbeMaxShort (it grows when
// the signed picture covers part of the file), and refused outside.
func TestProbeFromWirePlaneSize(t *testing.T) {
	for _, c := range []struct {
		w, h int
		ok   bool
	}{
		{localsig.ProbeShort, 2 * localsig.ProbeShort, true},
		{localsig.ProbeMaxShort, localsig.ProbeMaxShort, true},
		{3 * localsig.ProbeShort, localsig.ProbeMaxShort, true},
		{localsig.ProbeShort - 1, 2 * localsig.ProbeShort, false},
		{localsig.ProbeMaxShort + 1, localsig.ProbeMaxShort + 1, false},
		{localsig.ProbeShort, 65 * localsig.ProbeShort, false},
	} {
		w := &wire.Probe{Width: c.w, Height: c.h, Pix: make([]byte, c.w*c.h), Scale: 0.5, WorkWidth: 256, WorkHeight: 512, Period: 64}
		if _, err := ProbeFromWire(w); (err == nil) != c.ok {
			t.Errorf("%d×%d: err %v, want ok %v", c.w, c.h, err, c.ok)
		}
	}
}

// TestAnalyzeSum: with the file's own SHA-256 AnalyzeSum is Analyze; with
// another digest the facts carry that digest as given and nothing else
// changes (the caller answers for it).
func TestAnalyzeSum(t *testing.T) {
	file, err := os.ReadFile("../testdata/images/photo.jpg")
	if err != nil {
		t.Fatal(err)
	}
	lim, at := limits.Default(), time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	want, err := Analyze(file, lim, at)
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range [][32]byte{sha256.Sum256(file), sha256.Sum256([]byte("another file"))} {
		got, err := AnalyzeSum(file, sum, lim, at)
		if err != nil {
			t.Fatal(err)
		}
		w := want.Wire()
		w.SHA256 = fmt.Sprintf("%x", sum)
		if got.SHA256 != sum || got.Wire() != w || fmt.Sprint(got.WireProbe()) != fmt.Sprint(want.WireProbe()) {
			t.Errorf("sum %x: facts %+v, want %+v", sum, got.Wire(), w)
		}
	}
}

// fullFacts is what the signer computes of file: the facts of its full
// decode (FromImage), which Analyze's reduced decode is measured against.
func fullFacts(tb testing.TB, file []byte, lim limits.Limits) Facts {
	tb.Helper()
	img, err := imagex.Decode(file, lim)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := FromImage(img, sha256.Sum256(file))
	if err != nil {
		tb.Fatal(err)
	}
	return f
}
