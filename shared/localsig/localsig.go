// Package localsig binds a signature to the content of a picture locally:
// a compact grid of perceptual block signatures on the watermark's
// canonical grid, computed at sign time from the signed picture, and the
// comparison that tells, once the watermark decoder has placed an examined
// picture on that grid, whether the picture is the signed one re-encoded,
// a crop of it, the signed picture inside a larger file, an edited copy
// (and which blocks changed) or, only on the evidence of its block
// structure, another picture carrying a copied mark.
//
// The grid lives on the watermark's canonical working plane (short side
// [WorkShort], aspect kept). Two formats: the luminance format
// ([FormatVersion]: about 32×32 working pixels per block, at most
// [MaxBlocks], 4 bytes each: mean luminance, detail, and the signs of the
// 15 AC coefficients of the 4×4 DCT of its 16 sub-cell means) and the
// colour format ([FormatColour]: about 16×16 working pixels per block, at
// most [MaxBlocksColour], 6 bytes each: the same and the block's mean Cb
// and Cr). The comparison fits global tone and colour changes first and
// judges each block on what the fit leaves. The examined side never needs
// the grid's pixels: [NewProbe] keeps a small downscaled luminance plane
// of the examined picture ([Probe.WithChroma] adds its chroma) and
// [Compare] samples it under the alignment. Everything is pure Go with
// deterministic arithmetic.
package localsig

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/provenant/provenant/shared/imagex"
)

// Grid format constants.
const (
	// FormatVersion is the first byte of an encoded grid of the first
	// format: luminance only, blocks of about BlockSide working pixels.
	FormatVersion = 1
	// FormatColour is the first byte of an encoded grid of the colour
	// format: blocks of about BlockSideColour working pixels, each with
	// its chroma means as well ([Block.Cb], [Block.Cr]).
	FormatColour = 2
	// BlockSideColour is the nominal block side, in working pixels, of
	// the colour format: a 4:3 picture gets 21×16 blocks of 0.3 % of its
	// area each.
	BlockSideColour = 16
	// MaxBlocksColour bounds the blocks of a colour grid (a 16:9 picture
	// has 28×16; a record with the largest grid and every text field full
	// stays within limits.MaxRecordBytes).
	MaxBlocksColour = 512
	// BlockBytesColour is the encoded size of one colour block.
	BlockBytesColour = 6
	// WorkShort is the short side of the canonical working plane (the
	// watermark's).
	WorkShort = 256
	// ProbeShort is the short side of the examined picture's probe plane
	// when the signed picture fills it (alignment scale 1 or more).
	ProbeShort = 128
	// ProbeMaxShort bounds the probe's short side: when the signed
	// picture fills only part of the examined one (padding, a caption, a
	// screenshot), the probe grows by the inverse of the alignment's
	// scale, up to this, so that the signed picture keeps about
	// ProbeShort probe pixels on its short side (see [ProbeSide]).
	ProbeMaxShort = 4 * ProbeShort
	// BlockSide is the nominal block side in working pixels.
	BlockSide = 32
	// MaxBlocks bounds the blocks of a grid (panoramas get larger blocks).
	MaxBlocks = 256
	// BlockBytes is the encoded size of one block.
	BlockBytes  = 4
	headerBytes = 7
	// MaxEncoded is the largest encoded grid (of either format).
	MaxEncoded  = headerBytes + 2 + MaxBlocksColour*BlockBytesColour
	maxWorkLong = WorkShort * 64
)

// ErrMalformed is returned by [Parse] for bytes that are not a canonical
// grid encoding.
var ErrMalformed = errors.New("localsig: malformed grid")

// Block is the signature of one block.
type Block struct {
	// Mean is the block's mean luminance (0..255).
	Mean uint8
	// Detail is 32·log2(1+d), d the mean absolute luminance gradient of
	// the probe plane over the block, capped at 255.
	Detail uint8
	// Signs holds the signs of the 15 AC coefficients of the 4×4 DCT of
	// the block's sub-cell means (bit k-1 for coefficient k in row-major
	// order, 1 for positive); bit 15 is zero.
	Signs uint16
	// Cb and Cr are the block's mean chroma (BT.601, offset 128), in
	// grids of FormatColour only.
	Cb, Cr uint8
}

// Grid is the local signature of a signed picture.
type Grid struct {
	// Format is FormatVersion or FormatColour (0 means FormatVersion).
	Format int
	// Width and Height are the working plane's size (short side WorkShort).
	Width, Height int
	// Cols and Rows are the block layout, [Layout](Width, Height) or
	// [LayoutColour].
	Cols, Rows int
	// Blocks are row-major, Cols×Rows.
	Blocks []Block
}

// WorkDims returns the canonical working plane size of a w×h picture:
// the short side becomes WorkShort, the aspect ratio is kept (rounded),
// the same rule as the watermark's.
func WorkDims(w, h int) (int, int) { return dimsFor(w, h, WorkShort) }

func dimsFor(w, h, short int) (int, int) {
	s := min(w, h)
	f := float64(short) / float64(s)
	return max(1, int(math.Round(float64(w)*f))), max(1, int(math.Round(float64(h)*f)))
}

// Layout returns the block columns and rows of a w×h working plane in
// the first format: blocks of about BlockSide pixels, grown by 1.25×
// steps until there are at most MaxBlocks.
func Layout(w, h int) (cols, rows int) { return layoutFor(w, h, BlockSide, MaxBlocks) }

// LayoutColour is [Layout] for the colour format (BlockSideColour,
// MaxBlocksColour).
func LayoutColour(w, h int) (cols, rows int) {
	return layoutFor(w, h, BlockSideColour, MaxBlocksColour)
}

func layoutFor(w, h, side, maxBlocks int) (cols, rows int) {
	b := float64(side)
	for {
		cols = max(1, int(math.Round(float64(w)/b)))
		rows = max(1, int(math.Round(float64(h)/b)))
		if cols*rows <= maxBlocks {
			return cols, rows
		}
		b *= 1.25
	}
}

func (g *Grid) format() int {
	if g.Format == 0 {
		return FormatVersion
	}
	return g.Format
}

// layout is the grid's expected layout by its format.
func (g *Grid) layout() (int, int) {
	if g.format() == FormatColour {
		return LayoutColour(g.Width, g.Height)
	}
	return Layout(g.Width, g.Height)
}

// Encode returns the canonical encoding: format, width and height
// (uint16 big-endian), then for the first format cols, rows (one byte
// each) and 4 bytes per block (mean, detail, signs big-endian); for the
// colour format cols, rows (uint16 big-endian each) and 6 bytes per block
// (mean, detail, signs, Cb, Cr).
func (g *Grid) Encode() ([]byte, error) {
	if err := g.validate(); err != nil {
		return nil, err
	}
	colour := g.format() == FormatColour
	b := make([]byte, 0, headerBytes+2+len(g.Blocks)*BlockBytesColour)
	b = append(b, byte(g.format()))
	b = binary.BigEndian.AppendUint16(b, uint16(g.Width))
	b = binary.BigEndian.AppendUint16(b, uint16(g.Height))
	if colour {
		b = binary.BigEndian.AppendUint16(b, uint16(g.Cols))
		b = binary.BigEndian.AppendUint16(b, uint16(g.Rows))
	} else {
		b = append(b, byte(g.Cols), byte(g.Rows))
	}
	for _, k := range g.Blocks {
		b = append(b, k.Mean, k.Detail)
		b = binary.BigEndian.AppendUint16(b, k.Signs)
		if colour {
			b = append(b, k.Cb, k.Cr)
		}
	}
	return b, nil
}

func (g *Grid) validate() error {
	if min(g.Width, g.Height) != WorkShort || max(g.Width, g.Height) > maxWorkLong {
		return fmt.Errorf("%w: working plane %d×%d", ErrMalformed, g.Width, g.Height)
	}
	if f := g.format(); f != FormatVersion && f != FormatColour {
		return fmt.Errorf("%w: format %d", ErrMalformed, f)
	}
	if c, r := g.layout(); c != g.Cols || r != g.Rows {
		return fmt.Errorf("%w: layout %d×%d, want %d×%d", ErrMalformed, g.Cols, g.Rows, c, r)
	}
	if len(g.Blocks) != g.Cols*g.Rows {
		return fmt.Errorf("%w: %d blocks, want %d", ErrMalformed, len(g.Blocks), g.Cols*g.Rows)
	}
	for i, k := range g.Blocks {
		if k.Signs&0x8000 != 0 {
			return fmt.Errorf("%w: block %d has the spare sign bit set", ErrMalformed, i)
		}
		if g.format() == FormatVersion && (k.Cb != 0 || k.Cr != 0) {
			return fmt.Errorf("%w: block %d has chroma in a luminance grid", ErrMalformed, i)
		}
	}
	return nil
}

// Parse decodes a canonical encoding of either format; it accepts
// exactly what [Grid.Encode] produces.
func Parse(b []byte) (*Grid, error) {
	if len(b) < headerBytes || len(b) > MaxEncoded {
		return nil, fmt.Errorf("%w: %d bytes", ErrMalformed, len(b))
	}
	g := &Grid{Format: int(b[0]), Width: int(binary.BigEndian.Uint16(b[1:])), Height: int(binary.BigEndian.Uint16(b[3:]))}
	var p []byte
	bb := BlockBytes
	switch g.Format {
	case FormatVersion:
		g.Cols, g.Rows = int(b[5]), int(b[6])
		p = b[headerBytes:]
	case FormatColour:
		if len(b) < headerBytes+2 {
			return nil, fmt.Errorf("%w: %d bytes", ErrMalformed, len(b))
		}
		g.Cols, g.Rows = int(binary.BigEndian.Uint16(b[5:])), int(binary.BigEndian.Uint16(b[7:]))
		p = b[headerBytes+2:]
		bb = BlockBytesColour
	default:
		return nil, fmt.Errorf("%w: version %d", ErrMalformed, b[0])
	}
	if g.Cols*g.Rows > MaxBlocksColour || len(p) != g.Cols*g.Rows*bb {
		return nil, fmt.Errorf("%w: %d block bytes for %d×%d blocks", ErrMalformed, len(p), g.Cols, g.Rows)
	}
	g.Blocks = make([]Block, g.Cols*g.Rows)
	for i := range g.Blocks {
		q := p[i*bb:]
		g.Blocks[i] = Block{Mean: q[0], Detail: q[1], Signs: binary.BigEndian.Uint16(q[2:])}
		if bb == BlockBytesColour {
			g.Blocks[i].Cb, g.Blocks[i].Cr = q[4], q[5]
		}
	}
	if err := g.validate(); err != nil {
		return nil, err
	}
	return g, nil
}

// Alignment places an examined picture's working plane on the signed
// picture's, as the watermark decoder found it: a point X of the examined
// working plane (WorkWidth×WorkHeight) lies at R(Angle)·X/Scale + Offset
// on the signed picture's working plane, up to whole multiples of Period.
// R(a)·(x, y) = (x·cos a + y·sin a, y·cos a − x·sin a), a in degrees.
type Alignment struct {
	Scale, Angle          float64
	OffsetX, OffsetY      float64
	WorkWidth, WorkHeight int
	Period                int
}

// Probe is what the comparison needs from the examined picture: its
// luminance area-averaged to short side ProbeShort, and the alignment the
// watermark decoder found.
type Probe struct {
	Plane *imagex.Luma
	Align Alignment
	// Cb and Cr, when set, are the examined picture's chroma (BT.601,
	// offset 128) area-averaged to the size of Plane: a colour grid
	// compares them too. Without them only luminance is compared.
	Cb, Cr *imagex.Luma
}

// WithChroma sets the probe's chroma planes from cb and cr, planes of
// the examined picture's chroma at any size covering the whole picture
// (oriented as Plane), resampled to the probe's size; nil planes leave
// the probe without chroma. It returns p.
func (p *Probe) WithChroma(cb, cr *imagex.Luma) *Probe {
	if p == nil || cb == nil || cr == nil || p.Plane == nil {
		return p
	}
	p.Cb = resample(cb, p.Plane.Width, p.Plane.Height)
	p.Cr = resample(cr, p.Plane.Width, p.Plane.Height)
	return p
}

// resample area-averages l to w×h when it is larger, and interpolates
// it bilinearly when it is smaller (chroma means of a small file's 8×8
// blocks can be coarser than the probe).
func resample(l *imagex.Luma, w, h int) *imagex.Luma {
	if l.Width >= w && l.Height >= h {
		return imagex.Downscale(l, w, h)
	}
	out := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		fy := min(max((float64(y)+0.5)*float64(l.Height)/float64(h)-0.5, 0), float64(l.Height-1))
		y0 := int(fy)
		y1, ay := min(y0+1, l.Height-1), fy-float64(y0)
		for x := 0; x < w; x++ {
			fx := min(max((float64(x)+0.5)*float64(l.Width)/float64(w)-0.5, 0), float64(l.Width-1))
			x0 := int(fx)
			x1, ax := min(x0+1, l.Width-1), fx-float64(x0)
			a := float64(l.Pix[y0*l.Stride+x0]) + ax*(float64(l.Pix[y0*l.Stride+x1])-float64(l.Pix[y0*l.Stride+x0]))
			b := float64(l.Pix[y1*l.Stride+x0]) + ax*(float64(l.Pix[y1*l.Stride+x1])-float64(l.Pix[y1*l.Stride+x0]))
			out.Pix[y*w+x] = uint8(min(max(math.Round(a+ay*(b-a)), 0), 255))
		}
	}
	return out
}

// NewProbe downscales l to the probe plane (one pass over l), of short
// side [ProbeSide](l's short side, a).
func NewProbe(l *imagex.Luma, a Alignment) *Probe {
	pw, ph := dimsFor(l.Width, l.Height, ProbeSide(min(l.Width, l.Height), a))
	return &Probe{Plane: imagex.Downscale(l, pw, ph), Align: a}
}

// ProbeSide is the probe's short side for an examined picture of short
// side short (pixels) placed by a: ProbeShort divided by the alignment's
// scale when the signed picture appears smaller than the examined
// picture's working plane, so that a padded or screenshotted picture
// keeps the resolution its blocks need, bounded by ProbeMaxShort and by
// short itself (never upsampled beyond the file), never below
// ProbeShort.
func ProbeSide(short int, a Alignment) int {
	s := ProbeShort
	if a.Scale > 0 && a.Scale < 1 {
		s = int(math.Ceil(float64(ProbeShort) / a.Scale))
	}
	return max(ProbeShort, min(s, ProbeMaxShort, short))
}

// Compute returns the grid, in the first format, of the signed picture
// whose luminance is l.
func Compute(l *imagex.Luma) *Grid {
	ww, wh := WorkDims(l.Width, l.Height)
	p := NewProbe(l, Alignment{Scale: 1, WorkWidth: ww, WorkHeight: wh, Period: 1})
	g := &Grid{Format: FormatVersion, Width: ww, Height: wh}
	g.Cols, g.Rows = Layout(ww, wh)
	s := newSampler(p)
	g.Blocks = make([]Block, g.Cols*g.Rows)
	for i := range g.Blocks {
		f, _ := s.block(g, i, 0, 0)
		g.Blocks[i] = f.quantise()
	}
	return g
}

// ComputeColour returns the grid, in the colour format, of the signed
// picture whose luminance is l and whose chroma planes (BT.601, offset
// 128, any size covering the picture, see imagex.Chroma) are cb and cr.
func ComputeColour(l, cb, cr *imagex.Luma) *Grid {
	ww, wh := WorkDims(l.Width, l.Height)
	p := NewProbe(l, Alignment{Scale: 1, WorkWidth: ww, WorkHeight: wh, Period: 1}).WithChroma(cb, cr)
	g := &Grid{Format: FormatColour, Width: ww, Height: wh}
	g.Cols, g.Rows = LayoutColour(ww, wh)
	s := newSampler(p)
	g.Blocks = make([]Block, g.Cols*g.Rows)
	for i := range g.Blocks {
		f, _ := s.block(g, i, 0, 0)
		g.Blocks[i] = f.quantise()
		g.Blocks[i].Cb = uint8(min(max(math.Round(f.cb), 0), 255))
		g.Blocks[i].Cr = uint8(min(max(math.Round(f.cr), 0), 255))
	}
	return g
}

// feat is a block measured on a probe.
type feat struct {
	mean   float64
	detail float64
	ac     [15]float64
	// cb, cr are the chroma means, when the probe has chroma.
	cb, cr float64
}

func (f feat) quantise() Block {
	b := Block{Mean: uint8(min(max(math.Round(f.mean), 0), 255)), Detail: quantDetail(f.detail)}
	for k, c := range f.ac {
		if c > 0 {
			b.Signs |= 1 << k
		}
	}
	return b
}

func quantDetail(d float64) uint8 {
	return uint8(min(max(math.Round(32*math.Log2(1+max(d, 0))), 0), 255))
}

func detailOf(q uint8) float64 { return math.Exp2(float64(q)/32) - 1 }

// sampler reads block features from a probe under its alignment.
type sampler struct {
	p        *Probe
	sat      []float64 // (pw+1)×(ph+1) summed-area table
	cbSAT    []float64 // summed-area tables of the chroma, when the probe has it
	crSAT    []float64
	grad     []float64 // summed-area table of the absolute gradient
	sq       []float64 // summed-area table of squared levels, built on demand
	pw, ph   int
	fx, fy   float64 // probe pixels per examined working pixel
	cos, sin float64
	// clip bounds every box read (probe pixels): the whole probe, or the
	// signed picture's interior when the examined picture adds
	// surroundings, so that the blended pixels of its edge are not read.
	clipX0, clipY0, clipX1, clipY1 float64
}

func newSampler(p *Probe) *sampler {
	l := p.Plane
	s := &sampler{p: p, pw: l.Width, ph: l.Height, clipX1: float64(l.Width), clipY1: float64(l.Height)}
	s.fx = float64(l.Width) / float64(p.Align.WorkWidth)
	s.fy = float64(l.Height) / float64(p.Align.WorkHeight)
	s.sin, s.cos = math.Sincos(p.Align.Angle * math.Pi / 180)
	n := (l.Width + 1) * (l.Height + 1)
	s.sat, s.grad = make([]float64, n), make([]float64, n)
	st := l.Width + 1
	for y := 0; y < l.Height; y++ {
		row := l.Pix[y*l.Stride : y*l.Stride+l.Width]
		var run, grun float64
		for x, v := range row {
			run += float64(v)
			var g float64
			if x+1 < l.Width {
				g += math.Abs(float64(row[x+1]) - float64(v))
			}
			if y+1 < l.Height {
				g += math.Abs(float64(l.Pix[(y+1)*l.Stride+x]) - float64(v))
			}
			grun += g
			s.sat[(y+1)*st+x+1] = s.sat[y*st+x+1] + run
			s.grad[(y+1)*st+x+1] = s.grad[y*st+x+1] + grun
		}
	}
	if p.Cb != nil && p.Cr != nil && p.Cb.Width == l.Width && p.Cb.Height == l.Height && p.Cr.Width == l.Width && p.Cr.Height == l.Height {
		s.cbSAT, s.crSAT = planeSAT(p.Cb), planeSAT(p.Cr)
	}
	return s
}

func planeSAT(l *imagex.Luma) []float64 {
	st := l.Width + 1
	t := make([]float64, st*(l.Height+1))
	for y := 0; y < l.Height; y++ {
		var run float64
		for x, v := range l.Pix[y*l.Stride : y*l.Stride+l.Width] {
			run += float64(v)
			t[(y+1)*st+x+1] = t[y*st+x+1] + run
		}
	}
	return t
}

// at interpolates a summed-area table bilinearly at a fractional corner.
func (s *sampler) at(t []float64, x, y float64) float64 {
	x = min(max(x, 0), float64(s.pw))
	y = min(max(y, 0), float64(s.ph))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, s.pw), min(y0+1, s.ph)
	ax, ay := x-float64(x0), y-float64(y0)
	st := s.pw + 1
	a := t[y0*st+x0] + ax*(t[y0*st+x1]-t[y0*st+x0])
	b := t[y1*st+x0] + ax*(t[y1*st+x1]-t[y1*st+x0])
	return a + ay*(b-a)
}

// boxMean is the mean of table t over the probe box centred at (cx, cy)
// with half-sides (hx, hy).
func (s *sampler) boxMean(t []float64, cx, cy, hx, hy float64) float64 {
	x0, x1 := max(cx-hx, s.clipX0), min(cx+hx, s.clipX1)
	y0, y1 := max(cy-hy, s.clipY0), min(cy+hy, s.clipY1)
	a := (x1 - x0) * (y1 - y0)
	if a <= 1e-9 {
		return 0
	}
	return (s.at(t, x1, y1) - s.at(t, x0, y1) - s.at(t, x1, y0) + s.at(t, x0, y0)) / a
}

// toProbe maps a point of the signed working plane to the probe plane,
// the alignment's translation shifted by (kx, ky) periods.
func (s *sampler) toProbe(u, v float64, kx, ky int) (float64, float64) {
	a := s.p.Align
	u -= a.OffsetX + float64(kx*a.Period)
	v -= a.OffsetY + float64(ky*a.Period)
	// X = Scale·R(−a)·(U − O).
	x := a.Scale * (u*s.cos - v*s.sin)
	y := a.Scale * (v*s.cos + u*s.sin)
	return x * s.fx, y * s.fy
}

// blockRect is block i's rectangle on the signed working plane.
func blockRect(g *Grid, i int) (x0, y0, x1, y1 float64) {
	c, r := i%g.Cols, i/g.Cols
	bw, bh := float64(g.Width)/float64(g.Cols), float64(g.Height)/float64(g.Rows)
	return float64(c) * bw, float64(r) * bh, float64(c+1) * bw, float64(r+1) * bh
}

// block measures block i of g on the probe; inside is false when the
// block's footprint is not wholly inside the probe plane.
func (s *sampler) block(g *Grid, i, kx, ky int) (feat, bool) {
	x0, y0, x1, y1 := blockRect(g, i)
	for _, c := range [4][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		px, py := s.toProbe(c[0], c[1], kx, ky)
		if px < -0.25 || py < -0.25 || px > float64(s.pw)+0.25 || py > float64(s.ph)+0.25 {
			return feat{}, false
		}
	}
	cw, ch := (x1-x0)/4, (y1-y0)/4
	sc := s.p.Align.Scale
	hx, hy := cw*sc*s.fx/2, ch*sc*s.fy/2
	var m [4][4]float64
	var f feat
	for j := 0; j < 4; j++ {
		for k := 0; k < 4; k++ {
			px, py := s.toProbe(x0+(float64(k)+0.5)*cw, y0+(float64(j)+0.5)*ch, kx, ky)
			m[j][k] = s.boxMean(s.sat, px, py, hx, hy)
			f.mean += m[j][k] / 16
		}
	}
	cx, cy := s.toProbe((x0+x1)/2, (y0+y1)/2, kx, ky)
	f.detail = s.boxMean(s.grad, cx, cy, 4*hx, 4*hy)
	if s.cbSAT != nil {
		// The block's chroma over most of the block, a little inside its
		// edges: chroma is coarse (a JPEG's chroma means cover 16×16
		// pixels) and resampled differently at sign and verify time.
		f.cb = s.boxMean(s.cbSAT, cx, cy, 3.5*hx, 3.5*hy)
		f.cr = s.boxMean(s.crSAT, cx, cy, 3.5*hx, 3.5*hy)
	}
	n := 0
	for u := 0; u < 4; u++ {
		for v := 0; v < 4; v++ {
			if u == 0 && v == 0 {
				continue
			}
			var c float64
			for j := 0; j < 4; j++ {
				for k := 0; k < 4; k++ {
					c += m[j][k] * dct4[u][j] * dct4[v][k]
				}
			}
			f.ac[n] = c
			n++
		}
	}
	return f, true
}

// dct4[u][j] = cos((2j+1)uπ/8), written out so every platform uses the
// same constants.
var dct4 = [4][4]float64{
	{1, 1, 1, 1},
	{0.9238795325112867, 0.38268343236508984, -0.38268343236508984, -0.9238795325112867},
	{0.7071067811865476, -0.7071067811865476, -0.7071067811865476, 0.7071067811865476},
	{0.38268343236508984, -0.9238795325112867, 0.9238795325112867, -0.38268343236508984},
}
