// Package facts computes what verification needs from a file before any
// lookup: its SHA-256, its perceptual hashes and the watermark it carries.
// [Analyze] is the one entry point every host calls (the origin, the edge,
// the browser's WebAssembly module), so that the facts a browser sends to
// the lookup are the ones the origin would have computed itself.
package facts

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"math"
	"time"

	"github.com/provenant/provenant/shared/digest"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/shared/wire"
)

// Facts are what verification computes from a file.
type Facts struct {
	SHA256    [32]byte
	PHash     phash.Hash
	Watermark verdict.Watermark
	Format    imagex.Format
	Width     int
	Height    int
	// Local is the probe for the local-signature comparison, set when a
	// watermark was found (it places the picture on the signed grid). It
	// has no JSON form: a host that sends facts elsewhere to decide
	// (the browser module) compares on its side or gets no content match.
	Local *localsig.Probe
	// C2PA is the C2PA manifest the file carries (see [C2PA]), nil when
	// none.
	C2PA *wire.C2PAFacts
	// detection is the watermark decoder's, kept to orient the chroma.
	detection watermark.Detection
}

// Verdict returns the facts [verdict.Decide] scores.
func (f Facts) Verdict() verdict.Facts {
	return verdict.Facts{SHA256: f.SHA256, PHash: f.PHash, Watermark: f.Watermark, Local: f.Local}
}

// VerifyShortSide is the shortest side, in pixels, of the luminance
// plane [Analyze] hands to the checks: a JPEG is decoded at the largest
// reduction (1/2, 1/4, 1/8) that keeps at least this many pixels on its
// short side (imagex.DecodeLuma). The checks read less: the perceptual
// hash area-averages to 256×256, the watermark works on a 256-pixel short
// side (crops it undoes enlarge that by up to 1.52), the local-signature
// probe on 128. Twice the watermark's grid keeps every embedding pixel at
// least two decoded pixels wide whatever the crop or resize, and left the
// watermark's recoveries and the hash thresholds as they were on the
// development set (bench/README.md, "Reduced-resolution verify decode").
const VerifyShortSide = 512

// Analyze decodes file once under lim and derives the SHA-256, both
// perceptual hashes and the watermark from the same luminance plane, which
// for a JPEG is decoded at reduced size (see [VerifyShortSide]). Width and
// Height are the file's own (oriented) dimensions. Images too small to
// carry a watermark simply have none. The C2PA manifest's credentials
// are judged at the time at (see [C2PA]): the host's clock, passed in so
// that the same bytes and time give the same facts on every host. Errors
// are imagex's (unsupported format, limits exceeded, corrupt data) or
// wrap a perceptual-hash or watermark failure.
func Analyze(file []byte, lim limits.Limits, at time.Time) (Facts, error) {
	return AnalyzeSum(file, digest.Sum256(file), lim, at)
}

// AnalyzeSum is [Analyze] for a file whose SHA-256 the caller has already
// computed (a host hashing natively what a WebAssembly guest would hash
// several times slower). sum is taken as given and becomes the facts'
// SHA-256, which the lookup matches exactly: a caller that passes a
// digest that is not the file's gets facts for another file, so only a
// caller that computed sum over these very bytes may use it.
func AnalyzeSum(file []byte, sum [32]byte, lim limits.Limits, at time.Time) (Facts, error) {
	img, err := imagex.DecodeLuma(file, lim, VerifyShortSide)
	if err != nil {
		return Facts{}, err
	}
	f, err := FromLumaImage(img, sum)
	if err != nil {
		return Facts{}, err
	}
	f.C2PA = readC2PA(file, at)
	return f, nil
}

// FromLumaImage is [AnalyzeSum] after its decode: img is what
// imagex.DecodeLuma returned for the file (with [VerifyShortSide]) and sum
// the file's SHA-256. It runs the very checks AnalyzeSum runs on that
// decode, so a host that decodes the file with imagex.DecodeLuma and hands
// the result to a WebAssembly module calling this gets the facts the
// module's own analyze computes, bit for bit; only the C2PA manifest,
// which needs the file, is left unset.
func FromLumaImage(img *imagex.LumaImage, sum [32]byte) (Facts, error) {
	w, h := img.OrientedSize()
	var hashPlane *imagex.Luma
	if img.Scale > 1 {
		// The hash's 256×256 blocks, averaged as over the full decode.
		hashPlane = img.DownscaleAs(phash.Side256, phash.Side256)
	}
	f, err := fromLuma(img.Luma, hashPlane, img.Format, w, h, sum)
	if err != nil {
		return Facts{}, err
	}
	if f.Local != nil {
		// Only a found watermark's probe reads the chroma: it is made
		// for it alone.
		f.WithChroma(img.Chroma())
	}
	return f, nil
}

// WithChroma gives the local-signature probe the picture's chroma (planes
// of any size covering the picture, oriented as the file is shown), turned
// back like the luminance when the watermark was found flipped or turned,
// so that colour grids compare colour too.
func (f *Facts) WithChroma(cb, cr *imagex.Luma) {
	if f.Local == nil || cb == nil || cr == nil {
		return
	}
	d := f.detection
	f.Local.WithChroma(watermark.Orient(cb, d), watermark.Orient(cr, d))
}

// FromImage is [Analyze] for an image already decoded at full size
// (signing reuses its decode) whose file has SHA-256 sum. The perceptual
// hash and the watermark extraction run concurrently when the host has
// threads.
func FromImage(img *imagex.Image, sum [32]byte) (Facts, error) {
	b := img.Image.Bounds()
	f, err := fromLuma(Luma(img.Image), nil, img.Format, b.Dx(), b.Dy(), sum)
	if err != nil {
		return Facts{}, err
	}
	if f.Local != nil {
		f.WithChroma(imagex.Chroma(img.Image))
	}
	return f, nil
}

// fromLuma computes the facts from the luminance l of a w×h image in
// the given format (l may be smaller than w×h); the perceptual hash is
// taken from hashPlane when it is not nil.
func fromLuma(l, hashPlane *imagex.Luma, format imagex.Format, w, h int, sum [32]byte) (Facts, error) {
	if hashPlane == nil {
		hashPlane = l
	}
	f := Facts{SHA256: sum}
	f.Format, f.Width, f.Height = format, w, h
	type wmOut struct {
		p   watermark.Payload
		d   watermark.Detection
		err error
	}
	ch := make(chan wmOut, 1)
	go func() {
		p, d, err := watermark.Extract(l)
		ch <- wmOut{p, d, err}
	}()
	ph, phErr := phash.Compute(hashPlane)
	wm := <-ch
	if phErr != nil {
		return Facts{}, fmt.Errorf("facts: phash: %w", phErr)
	}
	f.PHash = ph
	switch {
	case wm.err == nil:
		f.Watermark = verdict.Watermark{Found: wm.d.Found, Strength: wm.d.Strength, BitErrors: wm.d.BitErrors}
		if wm.d.Found {
			f.Watermark.Payload = binary.BigEndian.AppendUint64(nil, uint64(wm.p))
			// A flipped or turned copy is compared upright: the
			// alignment refers to the picture turned back.
			f.Local = localsig.NewProbe(watermark.Orient(l, wm.d), Alignment(wm.d))
			f.detection = wm.d
		}
	case tooSmall(wm.err):
	default:
		return Facts{}, fmt.Errorf("facts: watermark: %w", wm.err)
	}
	return f, nil
}

// tooSmall reports whether err's tree holds a *watermark.TooSmallError,
// as errors.As with a target of that type would: err and what it wraps
// (Unwrap, depth first), each by its type or its As method. It is
// written out because errors.As links internal/reflectlite's
// assignability checks into the WebAssembly verifier module, where this
// was their only caller (docs/widget.md, "Size").
func tooSmall(err error) bool {
	for err != nil {
		if _, ok := err.(*watermark.TooSmallError); ok {
			return true
		}
		if a, ok := err.(interface{ As(any) bool }); ok {
			var small *watermark.TooSmallError
			if a.As(&small) {
				return true
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if tooSmall(e) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// Alignment is the placement of a picture on the signed grid that the
// watermark decoder found.
func Alignment(d watermark.Detection) localsig.Alignment {
	return localsig.Alignment{Scale: d.Scale, Angle: d.Angle, OffsetX: d.OffsetX, OffsetY: d.OffsetY,
		WorkWidth: d.WorkWidth, WorkHeight: d.WorkHeight, Period: d.Period}
}

// Luma returns the luminance plane of m: for a decoded JPEG
// (*image.YCbCr, or *image.Gray) a view of its Y plane without copying
// (neither phash nor watermark modifies the plane), otherwise
// imagex.ToLuma.
func Luma(m image.Image) *imagex.Luma {
	switch t := m.(type) {
	case *image.YCbCr:
		if t.Rect.Min == (image.Point{}) {
			return &imagex.Luma{Width: t.Rect.Dx(), Height: t.Rect.Dy(), Stride: t.YStride, Pix: t.Y}
		}
	case *image.Gray:
		if t.Rect.Min == (image.Point{}) {
			return &imagex.Luma{Width: t.Rect.Dx(), Height: t.Rect.Dy(), Stride: t.Stride, Pix: t.Pix}
		}
	}
	return imagex.ToLuma(m)
}

// Wire returns the JSON form (lowercase hex hashes and payload).
func (f Facts) Wire() wire.Facts {
	w := wire.Facts{
		SHA256:         hex.EncodeToString(f.SHA256[:]),
		PerceptualHash: f.PHash.String(),
		Watermark: wire.WatermarkFacts{Found: f.Watermark.Found, Strength: f.Watermark.Strength,
			BitErrors: f.Watermark.BitErrors},
		Format: string(f.Format),
		Width:  f.Width,
		Height: f.Height,
		C2PA:   f.C2PA,
	}
	if f.Watermark.Found {
		w.Watermark.Payload = hex.EncodeToString(f.Watermark.Payload)
	}
	return w
}

// ErrInvalid is wrapped by [FromWire] errors.
var ErrInvalid = errors.New("facts: invalid")

// FieldError is a [FromWire] error naming the JSON member at fault
// (sha256, perceptual_hash or watermark). It unwraps to [ErrInvalid].
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return "facts: invalid " + e.Field + ": " + e.Reason }

// Unwrap returns [ErrInvalid].
func (e *FieldError) Unwrap() error { return ErrInvalid }

// FromWire parses the JSON form. The watermark payload, when found, is 1
// to [limits.MaxRecordField] bytes of hex; a watermark not found carries
// no payload.
func FromWire(w wire.Facts) (Facts, error) {
	var f Facts
	if b, err := hex.DecodeString(w.SHA256); err != nil || len(b) != len(f.SHA256) {
		return Facts{}, &FieldError{"sha256", "must be 64 hex digits"}
	} else {
		copy(f.SHA256[:], b)
	}
	ph, err := phash.Parse(w.PerceptualHash)
	if err != nil {
		return Facts{}, &FieldError{"perceptual_hash", "must be " + fmt.Sprint(phash.HexLen) + " hex digits"}
	}
	f.PHash = ph
	wm := w.Watermark
	if wm.BitErrors < 0 || wm.Strength != wm.Strength {
		return Facts{}, &FieldError{"watermark", "strength or bit_errors out of range"}
	}
	f.Watermark = verdict.Watermark{Found: wm.Found, Strength: wm.Strength, BitErrors: wm.BitErrors}
	switch {
	case wm.Found:
		p, err := hex.DecodeString(wm.Payload)
		if err != nil || len(p) == 0 || len(p) > limits.MaxRecordField {
			return Facts{}, &FieldError{"watermark", "payload must be 1 to " + fmt.Sprint(limits.MaxRecordField) + " bytes of hex when found"}
		}
		f.Watermark.Payload = p
	case wm.Payload != "":
		return Facts{}, &FieldError{"watermark", "payload given but found is false"}
	}
	f.Format, f.Width, f.Height = imagex.Format(w.Format), w.Width, w.Height
	f.C2PA = w.C2PA
	return f, nil
}

// WireProbe returns the JSON form of f.Local, nil when there is none.
func (f Facts) WireProbe() *wire.Probe {
	p := f.Local
	if p == nil || p.Plane == nil {
		return nil
	}
	l := p.Plane
	pix := make([]byte, 0, l.Width*l.Height)
	for y := 0; y < l.Height; y++ {
		pix = append(pix, l.Pix[y*l.Stride:y*l.Stride+l.Width]...)
	}
	a := p.Align
	w := &wire.Probe{Width: l.Width, Height: l.Height, Pix: pix, Scale: a.Scale, Angle: a.Angle, OffsetX: a.OffsetX, OffsetY: a.OffsetY,
		WorkWidth: a.WorkWidth, WorkHeight: a.WorkHeight, Period: a.Period}
	if p.Cb != nil && p.Cr != nil {
		w.Cb, w.Cr = packedPlane(p.Cb, l.Width, l.Height), packedPlane(p.Cr, l.Width, l.Height)
		if w.Cb == nil || w.Cr == nil {
			w.Cb, w.Cr = nil, nil
		}
	}
	return w
}

// packedPlane returns c's pixels without stride padding, or nil when c is
// not w×h.
func packedPlane(c *imagex.Luma, w, h int) []byte {
	if c.Width != w || c.Height != h {
		return nil
	}
	out := make([]byte, 0, w*h)
	for y := 0; y < h; y++ {
		out = append(out, c.Pix[y*c.Stride:y*c.Stride+w]...)
	}
	return out
}

// ProbeFromWire parses the JSON form of a probe: a plane of short side
// localsig.ProbeShort to localsig.ProbeMaxShort with one byte per pixel, and an alignment with a
// finite positive scale, an angle within ±45°, finite offsets and
// working dimensions and period within bounds, and chroma planes, when
// present, of the plane's size. nil gives nil.
func ProbeFromWire(w *wire.Probe) (*localsig.Probe, error) {
	if w == nil {
		return nil, nil
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case min(w.Width, w.Height) < localsig.ProbeShort || min(w.Width, w.Height) > localsig.ProbeMaxShort ||
		max(w.Width, w.Height) > 64*min(w.Width, w.Height) || len(w.Pix) != w.Width*w.Height:
		return nil, &FieldError{"local", fmt.Sprintf("plane must have a short side of %d to %d and width×height bytes", localsig.ProbeShort, localsig.ProbeMaxShort)}
	case !finite(w.Scale) || w.Scale <= 0 || w.Scale > 16 || !finite(w.Angle) || math.Abs(w.Angle) > 45 ||
		!finite(w.OffsetX) || !finite(w.OffsetY) || math.Abs(w.OffsetX) > 1<<16 || math.Abs(w.OffsetY) > 1<<16:
		return nil, &FieldError{"local", "alignment out of range"}
	case w.WorkWidth <= 0 || w.WorkHeight <= 0 || w.WorkWidth > 1<<16 || w.WorkHeight > 1<<16 || w.Period <= 0 || w.Period > 1024:
		return nil, &FieldError{"local", "working size or period out of range"}
	}
	p := &localsig.Probe{
		Plane: &imagex.Luma{Width: w.Width, Height: w.Height, Stride: w.Width, Pix: w.Pix},
		Align: localsig.Alignment{Scale: w.Scale, Angle: w.Angle, OffsetX: w.OffsetX, OffsetY: w.OffsetY,
			WorkWidth: w.WorkWidth, WorkHeight: w.WorkHeight, Period: w.Period},
	}
	switch {
	case w.Cb == nil && w.Cr == nil:
	case len(w.Cb) != w.Width*w.Height || len(w.Cr) != w.Width*w.Height:
		return nil, &FieldError{"local", "cb and cr must both be width×height bytes"}
	default:
		p.Cb = &imagex.Luma{Width: w.Width, Height: w.Height, Stride: w.Width, Pix: w.Cb}
		p.Cr = &imagex.Luma{Width: w.Width, Height: w.Height, Stride: w.Width, Pix: w.Cr}
	}
	return p, nil
}
