package watermark

import (
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
	"strconv"

	"github.com/provenant/provenant/shared/imagex"
)

// Payload is the 64-bit identifier a watermark carries.
type Payload uint64

// String returns the payload as 16 lower-case hex digits.
func (p Payload) String() string { return fmt.Sprintf("%016x", uint64(p)) }

// ParsePayload parses 1 to 16 hex digits into a Payload.
func ParsePayload(s string) (Payload, error) {
	if len(s) == 0 || len(s) > 16 {
		return 0, fmt.Errorf("watermark: payload %q: want 1 to 16 hex digits", s)
	}
	u, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("watermark: payload %q: %w", s, err)
	}
	return Payload(u), nil
}

// CurrentVersion is the format version Embed writes by default.
const CurrentVersion = 2

// Detection describes what Extract found. When Found is false the payload
// returned alongside is zero and must be ignored.
type Detection struct {
	// Found is true only when a codeword decoded and its CRC and version
	// matched.
	Found bool
	// Version is the format version of the decoded watermark (0 if none):
	// 1, 2, or 3 (format 2's signal with more amplitude on dark regions).
	Version int
	// Strength is the z-score of the synchronisation peak: 3 to 5.5 on
	// unmarked images, 7 and above on recovered marks.
	Strength float64
	// BitErrors is the number of coded bits whose hard decision disagrees
	// with the decoded codeword (out of CodedBits); set only when Found.
	BitErrors int
	// CodedBits is the length of the codeword (0 when not Found).
	CodedBits int
	// Scale is the working-scale factor the decoder synchronised on (1 means
	// the image was not cropped relative to its short side).
	Scale float64
	// Angle is the rotation, in degrees, the decoder synchronised on.
	Angle float64
	// OffsetX, OffsetY, WorkWidth, WorkHeight and Period place the
	// examined picture on the signed picture's canonical grid (set only
	// when Found): a point (x, y) of the examined picture's working plane
	// (WorkWidth×WorkHeight, short side the format's canonical size, pixel
	// edges at integers) lies at R(Angle)·(x, y)/Scale + (OffsetX, OffsetY)
	// on the signed picture's working plane, up to a whole multiple of
	// Period in each axis (the mark is tiled, so the decoder knows the
	// translation only modulo one tile). R(a) maps (x, y) to
	// (x·cos a + y·sin a, y·cos a − x·sin a). When the picture's aspect
	// ratio was changed, WorkWidth×WorkHeight is its working plane with
	// the long axis rescaled back (Scale is then 1): mapping the picture
	// onto that plane per axis undoes the stretch.
	OffsetX, OffsetY      float64
	WorkWidth, WorkHeight int
	Period                int
	// Flipped and Quarter say the examined picture is the signed one
	// mirrored horizontally (first) and then turned Quarter times 90°
	// clockwise; the offsets above then place [Orient] of the examined
	// picture, not the picture itself.
	Flipped bool
	Quarter int
	// Region is where the mark was found, in the examined picture's pixel
	// coordinates (before Orient; set only when Found): the whole picture,
	// or, when the picture sits inside a larger frame (padding, a border,
	// a phone or desktop screenshot's interface), the box the decoder
	// located it in. The box follows the picture's detailed rows and
	// columns to about one pixel of the working plane (a few pixels of a
	// screenshot); a flat band at the picture's own edge is left out of it.
	Region image.Rectangle
}

// TooSmallError reports an image whose short side is below the minimum the
// watermark needs. Callers branch on it with errors.As.
type TooSmallError struct {
	Width, Height int
	MinShortSide  int
}

// Error describes the size and the minimum.
func (e *TooSmallError) Error() string {
	return fmt.Sprintf("watermark: image %dx%d too small: short side must be at least %d px", e.Width, e.Height, e.MinShortSide)
}

// ErrInvalidLuma is returned by Extract for a nil or inconsistent plane.
var ErrInvalidLuma = errors.New("watermark: invalid luminance plane")

// MinEmbedShortSide is the smallest short side, in pixels, Embed marks
// (format version 2; version 1 needs 256): the smallest size measured at
// which the mark on the 256-px canonical grid (chips of 1.3 px) still
// survives PNG, resizes and JPEG 90 on at least 90 % of the development
// photos; JPEG 75 already removes it from most pictures under 256 px
// (bench/README.md, "Small pictures").
const MinEmbedShortSide = 168

// MinExtractShortSide is the smallest short side Extract examines; smaller
// planes get a *TooSmallError.
const MinExtractShortSide = 64

// EmbedOption adjusts Embed.
type EmbedOption func(*embedConfig) error

type embedConfig struct {
	version    int
	targetPSNR float64
	minShort   int // 0: the format's minimum
}

// WithMinShortSide lets Embed mark pictures whose short side is at least
// px (64 or more), below the format's minimum. It exists to measure how
// the mark fares on small pictures; the service never uses it.
func WithMinShortSide(px int) EmbedOption {
	return func(c *embedConfig) error {
		if px < MinExtractShortSide {
			return fmt.Errorf("watermark: minimum short side %d below %d", px, MinExtractShortSide)
		}
		c.minShort = px
		return nil
	}
}

// WithVersion selects the format version to write (default CurrentVersion):
// 1, 2, or 3, which is format 2's signal (the same search finds it) with
// the mark raised on dark regions to survive JPEG 20–30 and re-shares
// there, at the same PSNR target.
func WithVersion(v int) EmbedOption {
	return func(c *embedConfig) error {
		if schemeFor(v) == nil {
			return fmt.Errorf("watermark: unknown format version %d", v)
		}
		c.version = v
		return nil
	}
}

// WithTargetPSNR sets the luminance PSNR, in dB, the embedder aims for
// (default 42.2; allowed 36 to 60). Lower means stronger and more visible.
func WithTargetPSNR(db float64) EmbedOption {
	return func(c *embedConfig) error {
		if !(db >= 36 && db <= 60) {
			return fmt.Errorf("watermark: target PSNR %.1f dB outside [36, 60]", db)
		}
		c.targetPSNR = db
		return nil
	}
}

func schemeFor(v int) *scheme {
	for _, s := range append(schemes()[:len(schemes()):len(schemes())], markOnly...) {
		if int(s.version) == v {
			return s
		}
	}
	return nil
}

// Embed returns a copy of img carrying payload p in its luminance. Chroma is
// kept: YCbCr images keep their Cb/Cr planes bit for bit and RGB images get
// the same offset on R, G and B. The luminance PSNR of the result against
// img is at least the target minus rounding (about 0.1 dB). The result is a
// *image.YCbCr, *image.Gray, *image.RGBA or *image.NRGBA. Images whose short
// side is below the format's minimum get a *TooSmallError.
func Embed(img image.Image, p Payload, opts ...EmbedOption) (image.Image, error) {
	cfg := embedConfig{version: CurrentVersion, targetPSNR: 42.2}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	s := schemeFor(cfg.version)
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	minShort := s.minShort
	if cfg.minShort > 0 {
		minShort = cfg.minShort
	}
	if min(W, H) < minShort {
		return nil, &TooSmallError{Width: W, Height: H, MinShortSide: minShort}
	}
	l := lumaView(img)
	ww, wh := s.workDims(W, H)
	work := resampleLuma(l, ww, wh)
	cw := convEncode(message(p, s.version))
	mask := perceptualMask(work, ww, wh)
	if s.darkBoost {
		darkBoostMask(mask, work, ww, wh)
	}
	res := s.residual(mask, ww, wh, cw, nil)

	// The working residual is enlarged to full resolution (bilinear),
	// scaled to the target PSNR and added to the luminance. Each step below
	// that measures or writes it is one pass over every pixel.
	delta := make([]float32, W)
	target := 255 * 255 / math.Pow(10, cfg.targetPSNR/10)
	scaleFor := func() (alpha float32) {
		if mse := newUpsampler(res, ww, wh, W, H).energy(delta) / float64(W*H); mse > 0 {
			alpha = float32(math.Sqrt(target / mse))
		}
		return alpha
	}
	alpha := scaleFor()
	if s.informed && alpha > 0 {
		res = s.informedResidual(work, mask, ww, wh, cw, res, alpha)
		alpha = scaleFor()
	}
	// The mask is in luminance levels: never amplify it, only scale it down
	// to meet the PSNR target. Clipping and the dithered rounding move the
	// error off the continuous prediction: correct on the rounded luminance.
	alpha = min(alpha, 1)
	if alpha < 1 && alpha > 0 {
		res = capTexture(mask, res, alpha)
		alpha = min(scaleFor(), 1)
	}
	e := &embedPass{l: l, u: newUpsampler(res, ww, wh, W, H), delta: delta, m: newMarker(img)}
	// Each rounding check also writes the output at the scale it checks,
	// which is the one kept when the check passes: usually the first.
	if s.darkBoost && alpha > 0 {
		e.darkGain(res, darkWeight(work, ww, wh), alpha, cfg.targetPSNR)
	}
	applied, written := float32(-1), int64(-1)
	for iter := 0; iter < 3 && alpha > 0; iter++ {
		predicted, w := e.pass(alpha, true, true)
		applied, written = alpha, w
		got := psnrOf(predicted, W*H)
		if got >= cfg.targetPSNR-0.1 && (alpha == 1 || got < cfg.targetPSNR+0.1) {
			break
		}
		alpha = min(1, alpha*float32(math.Pow(10, (got-cfg.targetPSNR)/20)))
	}
	if applied != alpha {
		_, written = e.pass(alpha, false, true)
	}
	// Rounding of R, G and B separately and clipping move the luminance
	// error off the prediction; correct once if the result misses the target.
	got := psnrOf(written, W*H)
	if written < 0 {
		got, _ = PSNR(l, imagex.ToLuma(e.m.img))
	}
	if got < cfg.targetPSNR-0.1 {
		e.pass(alpha*float32(math.Pow(10, (got-cfg.targetPSNR-0.05)/20)), false, true)
	}
	return e.m.img, nil
}

// informedResidual reallocates the data chips' energy between coded bits
// (informed embedding, in the spirit of Malvar and Florêncio's improved
// spread spectrum): it runs the decoder's per-bit statistic on the working
// image with and without the mark and gives more amplitude to bits the host
// image works against, less to bits the host already favours (gains within
// [0.7, 1.8]). The gains are tuned on the whole image; a crop sees a
// different host, where a bit starved to 0.4 (the earlier bound) is weak: on
// the densest texture of the development set the narrower range cut a 90 %
// crop from 61 to 37 coded-bit errors. The pilot and the total energy of res
// are kept.
func (s *scheme) informedResidual(work, mask []float32, w, h int, cw []uint8, res []float32, amp float32) []float32 {
	// Energy of the data part of res.
	T, C, G := s.tile, s.chip, s.grid
	chipOf := func(x, y int) int { return ((y%T)/C)*G + (x%T)/C }
	var eData float64
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if v := float64(res[y*w+x]); s.bitOf[chipOf(x, y)] >= 0 {
				eData += v * v
			}
		}
	}
	if eData == 0 {
		return res
	}
	// stat is the decoder's statistic on work plus a×r, where r goes through
	// what bilinear upsampling followed by area averaging does to it (about
	// a [1/8 3/4 1/8] kernel on each axis).
	stat := func(r []float32, a float32) []float64 {
		x := work
		if r != nil {
			x = make([]float32, len(work))
			rb := blur131(r, w, h)
			for i, v := range work {
				x[i] = v + a*rb[i]
			}
		}
		hp := s.highpass(x, w, h)
		return s.soft(s.fold(hp, w, 1, 0, 0, w, h), 0, 0)
	}
	host := stat(nil, 0)
	gains := make([]float64, codedBits)
	for i := range gains {
		gains[i] = 1
	}
	chipGains := make([]float32, len(s.bitOf))
	for iter := 0; iter < 2; iter++ {
		tot := stat(res, amp)
		unit := make([]float64, codedBits)
		resp := make([]float64, codedBits)
		for b := range unit {
			c := float64(2*int(cw[b]) - 1)
			unit[b] = c * (tot[b] - host[b]) / gains[b]
			resp[b] = unit[b]
		}
		sortFloats(resp)
		m := resp[codedBits/2]
		for b := range gains {
			c := float64(2*int(cw[b]) - 1)
			g := 3.0
			if unit[b] > 0 {
				g = (m - c*host[b]) / unit[b]
			}
			gains[b] = min(max(g, 0.7), 1.8)
		}
		// Scale the data gains so the data energy is unchanged.
		var e float64
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if b := s.bitOf[chipOf(x, y)]; b >= 0 {
					v := float64(mask[y*w+x]) * gains[b]
					e += v * v
				}
			}
		}
		f := math.Sqrt(eData / e)
		for b := range gains {
			gains[b] *= f
		}
		for k, b := range s.bitOf {
			chipGains[k] = 1
			if b >= 0 {
				chipGains[k] = float32(gains[b])
			}
		}
		res = s.residual(mask, w, h, cw, chipGains)
	}
	return res
}

// blur131 filters r with the separable kernel [1/8 3/4 1/8] (edges
// clamped).
func blur131(r []float32, w, h int) []float32 {
	tmp := make([]float32, len(r))
	out := make([]float32, len(r))
	for y := 0; y < h; y++ {
		row, dst := r[y*w:(y+1)*w], tmp[y*w:(y+1)*w]
		for x := range dst {
			dst[x] = 0.75*row[x] + 0.125*(row[max(x-1, 0)]+row[min(x+1, w-1)])
		}
	}
	for y := 0; y < h; y++ {
		up, mid, dn := tmp[max(y-1, 0)*w:], tmp[y*w:], tmp[min(y+1, h-1)*w:]
		dst := out[y*w : (y+1)*w]
		for x := range dst {
			dst[x] = 0.75*mid[x] + 0.125*(up[x]+dn[x])
		}
	}
	return out
}

// capTexture meets a PSNR budget that the full mask exceeds by shrinking
// only the part of the amplitude above maskFlat, instead of scaling the
// whole residual by alpha. The decoder weighs a pixel by the inverse of the
// host's local power, so a level of mark on a flat region is worth far more
// than one in texture; the flat amplitude is what a flat image gets anyway.
// The energy on the working grid is kept at alpha² times that of res (the
// full-resolution PSNR scales with it up to the upsampling's small change).
func capTexture(mask, res []float32, alpha float32) []float32 {
	flat := make([]float32, len(res))
	tex := make([]float32, len(res))
	var eff, eft, ett float64
	for i, r := range res {
		f := r * (maskFlat / mask[i])
		flat[i], tex[i] = f, r-f
		eff += float64(f) * float64(f)
		eft += float64(f) * float64(tex[i])
		ett += float64(tex[i]) * float64(tex[i])
	}
	target := float64(alpha) * float64(alpha) * (eff + 2*eft + ett)
	beta := 0.0
	if d := eft*eft - ett*(eff-target); ett > 0 && eff < target && d >= 0 {
		beta = min(1, (-eft+math.Sqrt(d))/ett)
	}
	for i := range res {
		flat[i] += float32(beta) * tex[i]
	}
	return flat
}

// residual returns the ±1 chip pattern for codeword cw times mask (the
// perceptual mask of the w×h working image) and the per-chip gains, before
// global scaling.
func (s *scheme) residual(mask []float32, w, h int, cw []uint8, gains []float32) []float32 {
	signs := s.chipSigns(cw)
	for k, g := range gains {
		signs[k] *= g
	}
	T, C, G := s.tile, s.chip, s.grid
	res := make([]float32, w*h)
	for y := 0; y < h; y++ {
		cy := ((y % T) / C) * G
		for x := 0; x < w; x++ {
			res[y*w+x] = mask[y*w+x] * signs[cy+(x%T)/C]
		}
	}
	return res
}

// Perceptual mask constants, in 8-bit luminance levels: the mark's
// amplitude is maskFlat on flat regions (sky, studio backgrounds, gradients)
// and grows with the square root of the local activity up to maskMax.
const (
	maskFlat  = 0.9
	maskSlope = 0.8
	maskMax   = 6.0
)

// perceptualMask returns the per-pixel amplitude of the mark on the working
// grid: maskFlat + maskSlope×sqrt(activity), at most maskMax, where activity
// is the mean absolute deviation from the 3×3 mean, averaged over 5×5.
func perceptualMask(work []float32, w, h int) []float32 {
	m := boxBlur(work, w, h, 1)
	for i, v := range work {
		m[i] = float32(math.Abs(float64(v - m[i])))
	}
	act := boxBlur(m, w, h, 2)
	for i, v := range act {
		act[i] = min(maskFlat+maskSlope*float32(math.Sqrt(math.Max(float64(v), 0))), maskMax)
	}
	return act
}

// dither returns a deterministic value in [-0.5, 0.5) for pixel (x, y).
// Adding it before rounding makes the rounding unbiased, so marks smaller
// than one level on flat regions survive on average instead of vanishing.
func dither(x, y int) float32 {
	return ditherMix(uint32(x)*ditherX ^ uint32(y)*ditherY)
}

// The dither's seed multipliers for x and y.
const (
	ditherX = 0x9E3779B1
	ditherY = 0x85EBCA77
)

// ditherMix is dither given the seed x×ditherX ^ y×ditherY, which a row
// sweep updates by adding ditherX per pixel instead of multiplying.
func ditherMix(h uint32) float32 {
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	h *= 0x297A2D39
	h ^= h >> 15
	return float32(h>>8)/(1<<24) - 0.5
}

func clamp8(v float32) uint8 {
	v += 0.5
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v)
}

// rgbRows adds the luminance offset to R, G and B alike, which leaves the
// BT.601 chroma unchanged (the luma weights sum to one).
func rgbRows(src, dst []uint8, stride, origin int) func(int, []float32) {
	return func(y int, d []float32) {
		in, out := src[origin+y*stride:], dst[origin+y*stride:]
		for x, v := range d {
			p, q := in[4*x:4*x+3:4*x+3], out[4*x:4*x+3:4*x+3]
			q[0] = clamp8(float32(p[0]) + v)
			q[1] = clamp8(float32(p[1]) + v)
			q[2] = clamp8(float32(p[2]) + v)
		}
	}
}

// nrgbaRows is rgbRows for non-premultiplied colour: the luminance that
// imagex.ToLuma sees is composited over black, so the offset is divided by
// the opacity (up to 4×) to change the composited luminance by the intended
// amount; fully transparent pixels cannot carry the mark.
func nrgbaRows(src, dst []uint8, stride, origin int) func(int, []float32) {
	return func(y int, d []float32) {
		in, out := src[origin+y*stride:], dst[origin+y*stride:]
		for x, v := range d {
			p, q := in[4*x:4*x+4:4*x+4], out[4*x:4*x+3:4*x+3]
			if a := p[3]; a == 0 {
				continue
			} else if a < 255 {
				v *= min(255/float32(a), 4)
			}
			q[0] = clamp8(float32(p[0]) + v)
			q[1] = clamp8(float32(p[1]) + v)
			q[2] = clamp8(float32(p[2]) + v)
		}
	}
}

// Extract looks for a watermark in the luminance plane l, trying the newest
// format first. It returns Found=false (and a zero payload) when no codeword
// decodes with a valid CRC and version; a wrong payload requires a CRC
// collision, which the package documentation bounds. It returns
// ErrInvalidLuma for an inconsistent plane and a *TooSmallError for planes
// whose short side is under MinExtractShortSide.
func Extract(l *imagex.Luma) (Payload, Detection, error) {
	if l == nil || l.Width <= 0 || l.Height <= 0 || l.Stride < l.Width || len(l.Pix) < (l.Height-1)*l.Stride+l.Width {
		return 0, Detection{}, ErrInvalidLuma
	}
	if min(l.Width, l.Height) < MinExtractShortSide {
		return 0, Detection{}, &TooSmallError{Width: l.Width, Height: l.Height, MinShortSide: MinExtractShortSide}
	}
	var best Detection
	var gate foldGate
	works := map[[2]int][]float32{}
	for _, s := range schemes() {
		ww, wh := s.workDims(l.Width, l.Height)
		work, ok := works[[2]int{ww, wh}]
		if !ok {
			work = resampleLuma(l, ww, wh)
			works[[2]int{ww, wh}] = work
		}
		p, d := s.detect(l, work, ww, wh, &gate)
		if d.Found {
			if d.Region.Empty() {
				d.Region = image.Rect(0, 0, l.Width, l.Height)
			}
			return p, d, nil
		}
		if d.Strength > best.Strength {
			best = d
		}
	}
	return 0, best, nil
}

// PSNR returns the peak signal-to-noise ratio of b against a in dB (+Inf
// when identical). The planes must have the same size.
func PSNR(a, b *imagex.Luma) (float64, error) {
	if a == nil || b == nil || a.Width != b.Width || a.Height != b.Height {
		return 0, errors.New("watermark: PSNR of planes with different sizes")
	}
	var ss float64
	for y := 0; y < a.Height; y++ {
		ra, rb := a.Pix[y*a.Stride:y*a.Stride+a.Width], b.Pix[y*b.Stride:y*b.Stride+b.Width]
		for x, v := range ra {
			d := float64(v) - float64(rb[x])
			ss += d * d
		}
	}
	if ss == 0 {
		return math.Inf(1), nil
	}
	return 10 * math.Log10(255*255*float64(a.Width*a.Height)/ss), nil
}

// Format 3's raised amplitude on dark regions, in luminance levels: the
// mask's floor is darkFloor where the local mean is at most darkFull and
// falls linearly to maskFlat at darkEnd.
const (
	darkFloor = 2.5
	darkFull  = 16.0
	darkEnd   = 64.0
	// darkMaxGain bounds darkGain: the dark floor reaches at most
	// 2 × 2.5 = 5 levels, where only its positive half is written.
	darkMaxGain = 2.0
)

// darkBoostMask raises mask, in place, to a floor that grows as the local
// mean luminance (5×5 on the working grid) darkens: maskFlat at darkEnd
// levels and above, darkFloor at darkFull and below. Format 2's flat
// amplitude of 0.9 levels is under half a quantisation step of JPEG 30's
// DC term (about 3.3 levels of a block's mean) and of the low AC terms at
// the 720-px re-share's size, so on a dark smooth picture the re-encode
// leaves nothing of it; near black, where the negative half of the chips
// is clipped as well, the raised floor is what survives. Dark regions are
// where a display shows a level's step least (black level and ambient
// light), and the PSNR budget caps the total as for the texture part
// (capTexture shrinks everything above maskFlat).
func darkBoostMask(mask, work []float32, w, h int) {
	for i, t := range darkWeight(work, w, h) {
		if f := maskFlat + t*float32(darkFloor-maskFlat); f > mask[i] {
			mask[i] = f
		}
	}
}

// darkWeight is 1 where the local mean luminance (5×5 on the working grid)
// is at most darkFull, 0 from darkEnd up, linear between.
func darkWeight(work []float32, w, h int) []float32 {
	t := boxBlur(work, w, h, 2)
	for i, m := range t {
		t[i] = float32(min(max((darkEnd-float64(m))/(darkEnd-darkFull), 0), 1))
	}
	return t
}

// darkGain raises the residual res, in place, on dark regions (weight t)
// by a common gain g ≤ darkMaxGain, res×(1+(g−1)t), as far as the rounded
// result at scale alpha stays within the PSNR target. The budget Embed
// met before counts the mark before clipping, and near black the negative
// half of every chip is clipped away: a picture all under 16 levels came
// out at 45.1 dB for a 42.2 dB target. Only the dark part grows, so a
// bright flat picture under budget (a sky at 47 dB) keeps its amplitude.
func (e *embedPass) darkGain(res, t []float32, alpha float32, target float64) {
	if !slices.ContainsFunc(t, func(v float32) bool { return v > 0 }) {
		return // nothing dark: the measuring pass would change nothing
	}
	base := append([]float32(nil), res...)
	n := e.l.Width * e.l.Height
	g := 1.0
	for iter := 0; iter < 4; iter++ {
		predicted, _ := e.pass(alpha, true, false)
		got := psnrOf(predicted, n)
		next := min(max(g*math.Pow(10, (got-target)/20), 1), darkMaxGain)
		if math.Abs(next-g) < 0.02*g {
			break
		}
		g = next
		for i, v := range base {
			res[i] = v * (1 + float32(g-1)*t[i])
		}
	}
}
