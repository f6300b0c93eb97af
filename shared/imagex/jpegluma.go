package imagex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The luminance decoder below is written from ITU-T T.81 (the JPEG
// specification): Annex B for the syntax, Annex C and F.2.2 for Huffman
// decoding, Annex G for progressive scans. It decodes only the first
// component (Y of a YCbCr or the grey of a one-component image) and runs
// its inverse DCT at 1/1, 1/2, 1/4 or 1/8 of the size (idct.go), so that
// verification pays neither the colour planes nor the pixels its checks
// never read. Whatever it does not implement (arithmetic coding, lossless
// and hierarchical frames, 12-bit samples, four-component or RGB-coded
// files, a luminance component that is itself subsampled) is refused with
// errLumaUnsupported and left to image/jpeg by the caller.

// errLumaUnsupported: the file uses a JPEG feature the luminance decoder
// does not implement; the caller decodes it with image/jpeg instead.
var errLumaUnsupported = errors.New("imagex: jpeg feature not handled by the luminance decoder")

// errLumaData: the file is malformed for the luminance decoder; the caller
// lets image/jpeg have the final word on it.
var errLumaData = errors.New("imagex: malformed jpeg")

func lumaErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errLumaData}, a...)...)
}

// zigzag maps the position of a coefficient in the coded order (T.81
// figure A.6) to its row-major index in the 8×8 block.
var zigzag = [64]uint8{
	0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
}

// zigzagCols[k] is the number of leading columns of a block whose
// coefficients are all zero after coded position k: a block whose last
// coefficient is at k has nonzero values in columns 0..zigzagCols[k]-1
// only, and the inverse DCTs skip the rest.
var zigzagCols = [64]uint8{
	1, 2, 2, 2, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 8, 8, 8, 8,
	8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
	8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
}

// lastNeeded[n] is the last coded position whose coefficient the n×n
// inverse DCT reads (at 1/8, the DC alone); the rest of a block is decoded
// for its bits only.
var lastNeeded = [9]int{1: 0, 2: 63, 4: 63, 8: 63}

// lutBits is the width of the Huffman lookahead: every code of at most this
// many bits decodes with one table read. Photographs' AC codes are mostly
// shorter.
const lutBits = 9

// huffTable is one decoding table (T.81 C.2 and F.2.2.3), with a lookahead
// table for short codes and the maxcode/valptr walk for the rest.
type huffTable struct {
	// lut[peek] is length<<8 | symbol for a code of at most lutBits bits
	// that is a prefix of peek, or 0.
	lut [1 << lutBits]uint16
	// fast[peek], AC tables only: when a code and its magnitude bits fit in
	// lutBits, the coefficient value (int8 range), its run and the bits
	// used, packed as value<<16 | run<<8 | bits; 0 when not applicable.
	fast    [1 << lutBits]int32
	maxcode [18]int32 // largest code of each length, -1 when none
	valptr  [17]int32 // index in vals of a length's first code, minus that code
	vals    [256]uint8
	defined bool
}

// build fills t from the 16 code counts and the symbols of a DHT segment.
func (t *huffTable) build(counts []byte, syms []byte, ac bool) error {
	*t = huffTable{}
	copy(t.vals[:], syms)
	code, k := int32(0), 0
	for l := 1; l <= 16; l++ {
		n := int32(counts[l-1])
		if code+n > 1<<l {
			return lumaErr("huffman table has too many codes of length %d", l)
		}
		if n == 0 {
			t.maxcode[l] = -1
		} else {
			t.valptr[l] = int32(k) - code
			for i := int32(0); i < n; i++ {
				if l <= lutBits {
					sh := uint(lutBits - l)
					base := (code + i) << sh
					for j := int32(0); j < 1<<sh; j++ {
						t.lut[base+j] = uint16(l)<<8 | uint16(syms[k+int(i)])
					}
				}
			}
			code += n
			k += int(n)
			t.maxcode[l] = code - 1
		}
		code <<= 1
	}
	t.maxcode[17] = 0x7FFFFFFF
	if ac {
		for p := range t.lut {
			e := t.lut[p]
			if e == 0 {
				continue
			}
			l := int(e >> 8)
			rs := int(e & 0xFF)
			run, s := rs>>4, rs&15
			if s == 0 || l+s > lutBits {
				continue
			}
			v := int32(p>>(lutBits-l-s)) & (1<<s - 1)
			if v < 1<<(s-1) {
				v += -1<<s + 1
			}
			t.fast[p] = v<<16 | int32(run)<<8 | int32(l+s)
		}
	}
	t.defined = true
	return nil
}

// bitReader reads the entropy-coded data of a scan (T.81 F.2.2.5): it
// removes the stuffed zero after each 0xFF and stops at a marker, after
// which it feeds zero bits and counts them, so a scan that reads past its
// data is an error rather than garbage.
type bitReader struct {
	data []byte
	pos  int    // next byte of data to load
	acc  uint64 // the low n bits are the next bits of the stream
	n    uint
	// pad counts the zero bytes fed after a marker or the end of data.
	pad int
}

// fill tops acc up to at least 57 bits.
func (r *bitReader) fill() {
	// Eight bytes at once when none of them is 0xFF (the common case).
	if r.pad == 0 && r.pos+8 <= len(r.data) {
		v := be64(r.data[r.pos : r.pos+8 : r.pos+8])
		// A byte of v is 0xFF exactly when the same byte of ^v is zero.
		x := ^v
		if (x-0x0101010101010101)&^x&0x8080808080808080 == 0 {
			k := (64 - r.n) / 8
			r.acc = r.acc<<(8*k) | v>>(64-8*k)
			r.n += 8 * k
			r.pos += int(k)
			return
		}
	}
	for r.n <= 56 {
		if r.pad > 0 || r.pos >= len(r.data) {
			r.acc <<= 8
			r.n += 8
			r.pad++
			continue
		}
		b := r.data[r.pos]
		if b == 0xFF {
			if r.pos+1 < len(r.data) && r.data[r.pos+1] == 0 {
				r.pos += 2
			} else {
				// A marker (or the end of data): leave pos on it.
				r.acc <<= 8
				r.n += 8
				r.pad++
				continue
			}
		} else {
			r.pos++
		}
		r.acc = r.acc<<8 | uint64(b)
		r.n += 8
	}
}

// be64 is binary.BigEndian.Uint64, which the WebAssembly build does not
// inline (its standard library is compiled without inlining).
func be64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

// overrun reports whether bits fed after the data were consumed.
func (r *bitReader) overrun() bool { return uint(r.pad)*8 > r.n }

// bits returns the next s (0..16) bits.
func (r *bitReader) bits(s uint) int32 {
	if r.n < s {
		r.fill()
	}
	r.n -= s
	return int32(r.acc>>r.n) & (1<<s - 1)
}

// take returns the next s (0..16) bits, which the caller knows are in
// acc (bits without its refill, so that it inlines).
func (r *bitReader) take(s uint) int32 {
	r.n -= s
	return int32(r.acc>>r.n) & (1<<s - 1)
}

// bit returns the next bit.
func (r *bitReader) bit() int32 {
	if r.n == 0 {
		r.fill()
	}
	r.n--
	return int32(r.acc>>r.n) & 1
}

// extend turns s magnitude bits v into the signed value (T.81 F.2.2.1).
func extend(v int32, s uint) int32 {
	if v < 1<<(s-1) {
		v += -1<<s + 1
	}
	return v
}

// peek is the next lutBits bits, the lookahead index (at least lutBits
// bits are in acc).
func (r *bitReader) peek() uint64 {
	return (r.acc >> (r.n - lutBits)) & (1<<lutBits - 1)
}

// refillPeek is peek after a refill to at least 32 bits, enough for a
// code and its magnitude bits.
func (r *bitReader) refillPeek() uint64 {
	if r.n < 32 {
		r.fill()
	}
	return r.peek()
}

// decode returns the next Huffman symbol of t, peek being the lookahead
// index (r.peek, which a caller may have tried on a fast table first).
// The caller has made sure that at least 16 bits are in acc. Codes longer
// than the lookahead go to decodeLong.
// ok is false for a bit pattern that is no code of t (errBadCode).
func (r *bitReader) decode(t *huffTable, peek uint64) (sym uint8, ok bool) {
	if e := t.lut[peek]; e != 0 {
		r.n -= uint(e >> 8)
		return uint8(e), true
	}
	return r.decodeLong(t)
}

// dcDiff adds the next DC difference (T.81 F.2.2.1), coded with t, to
// c.pred. The caller has made sure that at least 32 bits are in acc: a
// code and its magnitude bits.
func (r *bitReader) dcDiff(c *lumaComponent, t *huffTable) error {
	s, ok := r.decode(t, r.peek())
	if !ok {
		return errBadCode
	}
	if s > 11 {
		return lumaErr("bad DC magnitude")
	}
	if s > 0 {
		c.pred += extend(r.take(uint(s)), uint(s))
	}
	return nil
}

// errBadCode: the entropy-coded data holds a bit pattern that is no code
// of the scan's Huffman table.
var errBadCode = fmt.Errorf("%w: bad huffman code", errLumaData)

// decodeLong is decode for a code longer than lutBits (or none), kept
// out of line so that decode inlines.
//
//go:noinline
func (r *bitReader) decodeLong(t *huffTable) (sym uint8, ok bool) {
	for l := lutBits + 1; l <= 16; l++ {
		code := int32(r.acc>>(r.n-uint(l))) & (1<<l - 1)
		if code <= t.maxcode[l] {
			r.n -= uint(l)
			return t.vals[(t.valptr[l]+code)&0xFF], true
		}
	}
	return 0, false
}

type lumaComponent struct {
	idx    int // index in the frame: 0 is Y
	id     uint8
	h, v   int
	tq     int
	td, ta int // table selectors of the current scan
	pred   int32
}

// lumaDecoder holds the state of one decode.
type lumaDecoder struct {
	data        []byte
	width       int
	height      int
	progressive bool
	comps       []lumaComponent
	hmax, vmax  int
	mcusX       int
	mcusY       int
	quant       [4][64]int32 // in zigzag order
	quantSet    [4]bool
	dc, ac      [4]huffTable
	restart     int
	jfif        bool
	adobe       bool
	adobeXform  uint8
	// n is the reduced block side (8, 4, 2 or 1).
	n int
	// Y component geometry in blocks: padded to whole MCUs (bw×bh) and as
	// coded in a scan of Y alone (cw×ch).
	bw, bh, cw, ch int
	// coef holds Y's quantised coefficients of a progressive frame
	// (row-major, 64 per block).
	coef      []int16
	out       *Luma
	eobrun    int
	seenFrame bool
	// scans counts the scans that coded Y data.
	scans int
	// cdc holds the quantised DC coefficients of the two chroma
	// components (cbw×cbh blocks each) as they are decoded alongside Y;
	// cdcSeen says a scan coded them.
	cdc      [2][]int32
	cbw, cbh [2]int
	cdcSeen  bool
	// idctTmp is the WebAssembly inverse DCTs' scratch (idct8Fast,
	// idct4Fast), here so that no call clears one.
	idctTmp [64]int32
	// goBlocks makes WebAssembly decode sequential blocks with
	// baselineBlockGo instead of the kernel (for the tests that hold
	// the two to each other).
	goBlocks bool
	// kernel is the WebAssembly MCU kernel's slots and position
	// (baselineMCUs); empty elsewhere.
	kernel kernelState
}

// decodeJPEGLuma decodes the luminance of the JPEG b at 1/s of its size,
// s one of 1, 2, 4, 8: a plane of ceil(w/s)×ceil(h/s) for a w×h image,
// before EXIF orientation. maxBytes bounds the memory it allocates.
func decodeJPEGLuma(b []byte, s int, maxBytes int64) (*Luma, error) {
	l, _, _, err := decodeJPEGLumaChroma(b, s, maxBytes)
	return l, err
}

// decodeJPEGLumaChroma is decodeJPEGLuma that also returns the chroma
// means of the file's 8×8 chroma blocks (BT.601 Cb and Cr, offset 128,
// before EXIF orientation): what the DC coefficients, decoded anyway,
// say. They are nil for a one-component file and when no scan that
// codes Y codes the chroma DC too (a progressive file whose chroma DC
// scans are separate).
func decodeJPEGLumaChroma(b []byte, s int, maxBytes int64) (l, cb, cr *Luma, err error) {
	d, err := decodeJPEGLumaDecoder(b, s, maxBytes)
	if err != nil {
		return nil, nil, nil, err
	}
	cb, cr = d.chromaPlanes()
	return d.out, cb, cr, nil
}

// decodeJPEGLumaDecoder runs the decode of decodeJPEGLumaChroma and
// returns the decoder, whose out is the plane and whose chromaPlanes
// makes the chroma means when they are wanted.
func decodeJPEGLumaDecoder(b []byte, s int, maxBytes int64) (*lumaDecoder, error) {
	if s != 1 && s != 2 && s != 4 && s != 8 {
		return nil, fmt.Errorf("imagex: luminance scale 1/%d", s)
	}
	return decodeJPEGLumaWith(&lumaDecoder{data: b, n: 8 / s}, maxBytes)
}

// decodeJPEGLumaWith runs the decode d is set up for (the tests set
// goBlocks).
func decodeJPEGLumaWith(d *lumaDecoder, maxBytes int64) (*lumaDecoder, error) {
	if err := d.run(maxBytes); err != nil {
		return nil, err
	}
	return d, nil
}

// chromaPlanes turns the chroma DC coefficients into planes of block
// means covering exactly the picture: a chroma block spans 8·hmax/h ×
// 8·vmax/v pixels and the last ones run past the picture's edge, so the
// blocks are resampled (area-weighted) onto as many samples as the
// picture holds whole blocks, rounded up, each covering an equal share of
// the picture.
func (d *lumaDecoder) chromaPlanes() (cb, cr *Luma) {
	if !d.cdcSeen || d.cdc[0] == nil {
		return nil, nil
	}
	var out [2]*Luma
	for k := 0; k < 2; k++ {
		c := d.comps[k+1]
		bpx, bpy := 8*d.hmax/c.h, 8*d.vmax/c.v // pixels per block
		ow, oh := (d.width+bpx-1)/bpx, (d.height+bpy-1)/bpy
		ow, oh = min(ow, d.cbw[k]), min(oh, d.cbh[k])
		q := float64(d.quant[c.tq][0])
		wx := areaWeights(d.width, ow, bpx)
		wy := areaWeights(d.height, oh, bpy)
		l := &Luma{Width: ow, Height: oh, Stride: ow, Pix: make([]uint8, ow*oh)}
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				var sum, wsum float64
				for _, a := range wy[y] {
					for _, b := range wx[x] {
						w := a.w * b.w
						sum += w * float64(d.cdc[k][a.i*d.cbw[k]+b.i])
						wsum += w
					}
				}
				// The DC of the level-shifted 8×8 DCT is 8 × the mean.
				l.Pix[y*ow+x] = roundLevel(128 + roundHalfAway(sum/wsum*q/8))
			}
		}
		out[k] = l
	}
	return out[0], out[1]
}

// roundHalfAway is math.Round for a finite x (and ±0, NaN and the
// infinities as well), written with math.Trunc, which the WebAssembly
// build computes with one instruction, where math.Round is a call.
func roundHalfAway(x float64) float64 {
	t := math.Trunc(x)
	if math.Abs(x-t) >= 0.5 {
		t += math.Copysign(1, x)
	}
	return t
}

// roundLevel is uint8(min(max(v, 0), 255)) for a v that is not NaN,
// without the min and max builtins, whose float64 forms the WebAssembly
// build calls out of line.
func roundLevel(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v)
}

type areaWeight struct {
	i int
	w float64
}

// areaWeights maps n output samples, each covering size/n pixels, onto
// blocks of bp pixels: for each sample, the blocks it overlaps and by how
// many pixels.
func areaWeights(size, n, bp int) [][]areaWeight {
	out := make([][]areaWeight, n)
	for j := range out {
		lo := float64(j) * float64(size) / float64(n)
		hi := float64(j+1) * float64(size) / float64(n)
		for b := int(lo) / bp; b*bp < int(math.Ceil(hi)); b++ {
			o := min(hi, float64((b+1)*bp)) - max(lo, float64(b*bp))
			if o > 0 {
				out[j] = append(out[j], areaWeight{b, o})
			}
		}
	}
	return out
}

func (d *lumaDecoder) run(maxBytes int64) error {
	b := d.data
	if len(b) < 2 || b[0] != 0xFF || b[1] != 0xD8 {
		return lumaErr("no SOI")
	}
	i := 2
	for {
		// Markers may be preceded by any number of 0xFF fill bytes.
		if i >= len(b) {
			return lumaErr("missing EOI")
		}
		if b[i] != 0xFF {
			return lumaErr("expected a marker at %d", i)
		}
		for i < len(b) && b[i] == 0xFF {
			i++
		}
		if i >= len(b) {
			return lumaErr("missing EOI")
		}
		m := b[i]
		i++
		switch {
		case m == 0xD9: // EOI
			if !d.seenFrame || d.out == nil || d.scans == 0 {
				return lumaErr("no scan of the luminance")
			}
			if d.progressive {
				d.reconstruct()
			}
			return nil
		case m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			return errLumaUnsupported
		}
		if i+2 > len(b) {
			return lumaErr("truncated segment")
		}
		n := int(binary.BigEndian.Uint16(b[i:]))
		if n < 2 || i+n > len(b) {
			return lumaErr("truncated segment")
		}
		seg := b[i+2 : i+n]
		i += n
		var err error
		switch {
		case m == 0xC0 || m == 0xC1 || m == 0xC2:
			err = d.frame(seg, m == 0xC2, maxBytes)
		case m >= 0xC3 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			// Lossless, hierarchical and arithmetic-coded frames.
			err = errLumaUnsupported
		case m == 0xCC: // arithmetic conditioning
			err = errLumaUnsupported
		case m == 0xC4:
			err = d.huffman(seg)
		case m == 0xDB:
			err = d.quantTables(seg)
		case m == 0xDD:
			if len(seg) != 2 {
				err = lumaErr("bad DRI")
			} else {
				d.restart = int(binary.BigEndian.Uint16(seg))
			}
		case m == 0xDA:
			var end int
			end, err = d.scan(seg, i)
			i = end
		case m == 0xE0:
			if len(seg) >= 5 && string(seg[:5]) == "JFIF\x00" {
				d.jfif = true
			}
		case m == 0xEE:
			if len(seg) >= 12 && string(seg[:5]) == "Adobe" {
				d.adobe, d.adobeXform = true, seg[11]
			}
		case m >= 0xE1 && m <= 0xEF, m == 0xFE:
		default:
			// DNL, DHP, EXP and reserved markers.
			err = errLumaUnsupported
		}
		if err != nil {
			return err
		}
	}
}

func (d *lumaDecoder) frame(seg []byte, progressive bool, maxBytes int64) error {
	if d.seenFrame {
		return lumaErr("second frame")
	}
	d.seenFrame = true
	if len(seg) < 6 {
		return lumaErr("short SOF")
	}
	if seg[0] != 8 {
		return errLumaUnsupported // 12-bit samples
	}
	d.height = int(binary.BigEndian.Uint16(seg[1:]))
	d.width = int(binary.BigEndian.Uint16(seg[3:]))
	nc := int(seg[5])
	if d.height == 0 {
		return errLumaUnsupported // the height would come in a DNL segment
	}
	if d.width == 0 || nc == 0 || len(seg) != 6+3*nc {
		return lumaErr("bad SOF")
	}
	if nc != 1 && nc != 3 {
		return errLumaUnsupported // CMYK/YCCK, or two components
	}
	d.progressive = progressive
	d.comps = make([]lumaComponent, nc)
	for k := range d.comps {
		c := &d.comps[k]
		c.idx = k
		c.id = seg[6+3*k]
		c.h, c.v = int(seg[7+3*k]>>4), int(seg[7+3*k]&15)
		c.tq = int(seg[8+3*k])
		if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || c.tq > 3 {
			return lumaErr("bad component")
		}
		for j := 0; j < k; j++ {
			if d.comps[j].id == c.id {
				return lumaErr("duplicate component")
			}
		}
		d.hmax, d.vmax = max(d.hmax, c.h), max(d.vmax, c.v)
	}
	if nc == 1 {
		// One component: its scans are never interleaved and its sampling
		// factors do not matter (T.81 A.2.2).
		d.comps[0].h, d.comps[0].v, d.hmax, d.vmax = 1, 1, 1, 1
	} else {
		if d.comps[0].h != d.hmax || d.comps[0].v != d.vmax {
			return errLumaUnsupported // a subsampled luminance
		}
		if d.adobe && d.adobeXform == 0 || !d.jfif && !d.adobe &&
			d.comps[0].id == 'R' && d.comps[1].id == 'G' && d.comps[2].id == 'B' {
			return errLumaUnsupported // RGB-coded: no Y component to read
		}
	}
	d.mcusX = (d.width + 8*d.hmax - 1) / (8 * d.hmax)
	d.mcusY = (d.height + 8*d.vmax - 1) / (8 * d.vmax)
	c := d.comps[0]
	d.bw, d.bh = d.mcusX*c.h, d.mcusY*c.v
	d.cw, d.ch = (d.width+7)/8, (d.height+7)/8
	need := int64(d.bw) * int64(d.bh) * int64(d.n*d.n)
	if progressive {
		need += int64(d.bw) * int64(d.bh) * 128
	}
	if need > maxBytes {
		return lumaErr("needs %d bytes, limit %d", need, maxBytes)
	}
	ow, oh := (d.width*d.n+7)/8, (d.height*d.n+7)/8
	stride := d.bw * d.n
	d.out = &Luma{Width: ow, Height: oh, Stride: stride, Pix: make([]uint8, stride*d.bh*d.n)}
	if progressive {
		d.coef = make([]int16, d.bw*d.bh*64)
	}
	if nc == 3 {
		for k := 0; k < 2; k++ {
			c := d.comps[k+1]
			d.cbw[k], d.cbh[k] = d.mcusX*c.h, d.mcusY*c.v
			d.cdc[k] = make([]int32, d.cbw[k]*d.cbh[k])
		}
	}
	return nil
}

// chromaDC records a chroma component's DC coefficient at block (bx, by).
func (d *lumaDecoder) chromaDC(c *lumaComponent, bx, by int, v int32, refine bool) {
	k := c.idx - 1
	if k < 0 || k > 1 || d.cdc[k] == nil || bx >= d.cbw[k] || by >= d.cbh[k] {
		return
	}
	if refine {
		d.cdc[k][by*d.cbw[k]+bx] |= v
		return
	}
	d.cdc[k][by*d.cbw[k]+bx] = v
	d.cdcSeen = true
}

func (d *lumaDecoder) huffman(seg []byte) error {
	for len(seg) > 0 {
		if len(seg) < 17 {
			return lumaErr("short DHT")
		}
		tc, th := seg[0]>>4, seg[0]&15
		if tc > 1 || th > 3 {
			return lumaErr("bad DHT class or id")
		}
		counts := seg[1:17]
		total := 0
		for _, c := range counts {
			total += int(c)
		}
		if total > 256 || len(seg) < 17+total {
			return lumaErr("bad DHT length")
		}
		t := &d.dc[th]
		if tc == 1 {
			t = &d.ac[th]
		}
		if err := t.build(counts, seg[17:17+total], tc == 1); err != nil {
			return err
		}
		seg = seg[17+total:]
	}
	return nil
}

func (d *lumaDecoder) quantTables(seg []byte) error {
	for len(seg) > 0 {
		pq, tq := seg[0]>>4, seg[0]&15
		if pq > 1 || tq > 3 {
			return lumaErr("bad DQT")
		}
		size := 64 << pq
		if len(seg) < 1+size {
			return lumaErr("short DQT")
		}
		q := &d.quant[tq]
		for k := range q {
			if pq == 0 {
				q[k] = int32(seg[1+k])
			} else {
				q[k] = int32(binary.BigEndian.Uint16(seg[1+2*k:]))
			}
		}
		d.quantSet[tq] = true
		seg = seg[1+size:]
	}
	return nil
}

// scan decodes (or, when it does not code Y, skips) the scan whose header
// is seg and whose entropy-coded data starts at b[start]. It returns the
// index of the marker that ends the data.
func (d *lumaDecoder) scan(seg []byte, start int) (int, error) {
	if !d.seenFrame {
		return 0, lumaErr("scan before frame")
	}
	if len(seg) < 1 {
		return 0, lumaErr("short SOS")
	}
	ns := int(seg[0])
	if ns < 1 || ns > len(d.comps) || len(seg) != 4+2*ns {
		return 0, lumaErr("bad SOS")
	}
	var idx []int
	for k := 0; k < ns; k++ {
		id := seg[1+2*k]
		found := -1
		for j := range d.comps {
			if d.comps[j].id == id {
				found = j
			}
		}
		if found < 0 {
			return 0, lumaErr("scan names an unknown component")
		}
		for _, p := range idx {
			if p == found {
				return 0, lumaErr("component twice in a scan")
			}
		}
		idx = append(idx, found)
		d.comps[found].td, d.comps[found].ta = int(seg[2+2*k]>>4), int(seg[2+2*k]&15)
		if d.comps[found].td > 3 || d.comps[found].ta > 3 {
			return 0, lumaErr("bad table selector")
		}
	}
	ss, se := int(seg[1+2*ns]), int(seg[2+2*ns])
	ah, al := int(seg[3+2*ns]>>4), int(seg[3+2*ns]&15)
	if d.progressive {
		if ss > se || se > 63 || al > 13 || ah > 13 || (ss == 0) != (se == 0) || (ss > 0 && ns != 1) {
			return 0, lumaErr("bad progressive scan")
		}
	} else if ss != 0 || se != 63 || ah != 0 || al != 0 {
		return 0, lumaErr("bad sequential scan")
	}
	hasY := false
	for _, k := range idx {
		if k == 0 {
			hasY = true
		}
	}
	if !hasY {
		// A scan without Y has nothing Y needs: skip its data.
		return skipScan(d.data, start), nil
	}
	if !d.quantSet[d.comps[0].tq] && !d.progressive {
		return 0, lumaErr("missing quantisation table")
	}
	for _, k := range idx {
		c := d.comps[k]
		if (ss == 0 && ah == 0 && !d.dc[c.td].defined) || (ss > 0 && !d.ac[c.ta].defined) ||
			(!d.progressive && !d.ac[c.ta].defined) {
			return 0, lumaErr("missing huffman table")
		}
	}
	d.scans++
	r := &bitReader{data: d.data, pos: start}
	for k := range d.comps {
		d.comps[k].pred = 0
	}
	d.eobrun = 0
	// The blocks of the scan: whole MCUs when interleaved, the component's
	// own block grid when not (T.81 A.2).
	var mx, my int
	if ns == 1 {
		c := d.comps[idx[0]]
		cw := (d.width*c.h + d.hmax - 1) / d.hmax
		chh := (d.height*c.v + d.vmax - 1) / d.vmax
		mx, my = (cw+7)/8, (chh+7)/8
	} else {
		mx, my = d.mcusX, d.mcusY
	}
	// The blocks of one MCU in coding order, flattened (T.81 A.2.3): one
	// loop per MCU instead of three nested ones.
	var slotBuf [4 * 16]blockSlot
	slots := slotBuf[:0]
	for _, k := range idx {
		c := &d.comps[k]
		bh, bv := c.h, c.v
		if ns == 1 {
			bh, bv = 1, 1
		}
		for v := 0; v < bv; v++ {
			for h := 0; h < bh; h++ {
				slots = append(slots, blockSlot{c: c, isY: k == 0, h: bh, v: bv, dx: h, dy: v})
			}
		}
	}
	var blk [64]int32
	rst := 0
	total := mx * my
	// mxi, myi: the MCU's column and row (m%mx and m/mx, counted rather
	// than divided).
	mxi, myi := -1, 0
	for m := 0; m < total; m++ {
		if mxi++; mxi == mx {
			mxi, myi = 0, myi+1
		}
		if d.restart > 0 && m > 0 && m%d.restart == 0 {
			if r.overrun() {
				return 0, lumaErr("restart interval overruns its data")
			}
			// Discard the rest of the byte and expect RSTn.
			p := r.pos
			for p < len(d.data) && d.data[p] == 0xFF && p+1 < len(d.data) && d.data[p+1] == 0xFF {
				p++
			}
			if p+1 >= len(d.data) || d.data[p] != 0xFF || d.data[p+1] != 0xD0+uint8(rst) {
				return 0, lumaErr("missing RST%d", rst)
			}
			rst = (rst + 1) & 7
			*r = bitReader{data: d.data, pos: p + 2}
			for k := range d.comps {
				d.comps[k].pred = 0
			}
			d.eobrun = 0
		}
		if kernelMCUs && !d.progressive && !d.goBlocks {
			// The MCUs up to the next restart marker in one call.
			end := total
			if d.restart > 0 {
				end = min(total, (m/d.restart+1)*d.restart)
			}
			if err := d.baselineMCUs(r, slots, m, end, mx, &blk); err != nil {
				return 0, err
			}
			m = end - 1
			mxi, myi = m%mx, m/mx
			continue
		}
		for i := range slots {
			sl := &slots[i]
			bx, by := mxi*sl.h+sl.dx, myi*sl.v+sl.dy
			var err error
			switch {
			case !d.progressive:
				err = d.baselineBlockGo(r, sl.c, sl.isY, bx, by, &blk)
			case ss == 0:
				err = d.dcBlock(r, sl.c, sl.isY, bx, by, ah, al)
			case ah == 0:
				err = d.acFirst(r, sl.c, bx, by, ss, se, al)
			default:
				err = d.acRefine(r, sl.c, bx, by, ss, se, al)
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if r.overrun() {
		return 0, lumaErr("scan overruns its data")
	}
	return skipScan(d.data, r.pos), nil
}

// blockSlot is one block of an MCU: its component, the component's
// blocks per MCU (h×v) and the block's place among them.
type blockSlot struct {
	c            *lumaComponent
	isY          bool
	h, v, dx, dy int
}

// skipScan returns the index of the first marker at or after i that is
// neither a stuffed 0xFF00 nor a restart marker.
func skipScan(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], 0xFF)
		if j < 0 {
			return len(b)
		}
		i += j
		if i+1 >= len(b) {
			return len(b)
		}
		c := b[i+1]
		if c == 0 || (c >= 0xD0 && c <= 0xD7) {
			i += 2
			continue
		}
		if c == 0xFF {
			// Fill bytes before a marker: the marker starts at the last.
			i++
			continue
		}
		return i
	}
}

// baselineBlockGo decodes one block of a sequential scan; a Y block goes
// straight through the reduced inverse DCT into the output plane. blk is
// all zeros on entry and is left so. It decodes every sequential block
// but in WebAssembly, where baselineMCUs runs a scan's MCUs between
// restart markers in one assembly kernel (huffMCUsAsm, huff_wasm.s) and
// this is the reference it is tested against (goBlocks).
//
// Its AC decoding is written out rather than called (decode, bits):
// after a refill to at least 32 bits, a code (at most 16 bits) and its
// magnitude bits (at most 15) are in acc, and the calls would cost more
// than the work; the DC, one a block, goes through dcDiff.
func (d *lumaDecoder) baselineBlockGo(r *bitReader, c *lumaComponent, isY bool, bx, by int, blk *[64]int32) error {
	if r.n < 32 {
		r.fill()
	}
	if err := r.dcDiff(c, &d.dc[c.td]); err != nil {
		return err
	}
	ac := &d.ac[c.ta]
	if !isY {
		d.chromaDC(c, bx, by, c.pred, false)
		return skipAC(r, ac)
	}
	if by >= d.bh || bx >= d.bw {
		return lumaErr("block outside the frame")
	}
	q := &d.quant[c.tq]
	blk[0] = c.pred * q[0]
	// kmax is the last coded position written into blk. Every coefficient
	// is stored, also at 1/8 where only the DC is read: idctBlock's 1/8
	// is flatBlock's.
	kmax := 0
	for k := 1; k < 64; {
		peek := r.refillPeek()
		if f := ac.fast[peek]; f != 0 {
			r.n -= uint(f & 0xFF)
			k += int(f >> 8 & 0xFF)
			if k > 63 {
				return lumaErr("coefficient past 63")
			}
			blk[zigzag[k]] = (f >> 16) * q[k]
			kmax = k
			k++
			continue
		}
		var rs uint8
		if e := ac.lut[peek]; e != 0 {
			r.n -= uint(e >> 8)
			rs = uint8(e)
		} else {
			var ok bool
			if rs, ok = r.decodeLong(ac); !ok {
				return errBadCode
			}
		}
		run, sz := int(rs>>4), uint(rs&15)
		if sz == 0 {
			if run != 15 {
				break
			}
			k += 16
			continue
		}
		k += run
		if k > 63 {
			return lumaErr("coefficient past 63")
		}
		blk[zigzag[k]] = extend(r.take(sz), sz) * q[k]
		kmax = k
		k++
	}
	d.finishBlock(blk, kmax, bx, by)
	return nil
}

// finishBlock writes the Y block blk, whose last coded position is kmax,
// into the output plane at (bx, by), and clears what it held.
func (d *lumaDecoder) finishBlock(blk *[64]int32, kmax, bx, by int) {
	if kmax == 0 {
		// A flat block (the most common kind in smooth areas): every
		// output pixel is its mean.
		d.flatBlock(blk[0], bx, by)
		blk[0] = 0
		return
	}
	d.idctBlock(blk, int(zigzagCols[kmax&63]), bx, by)
	blk[0] = 0
	for k := 1; k <= kmax; k++ {
		blk[zigzag[k]] = 0
	}
}

// skipAC reads past the AC coefficients of a block whose values are not
// needed (a chroma block, of which only the DC is kept).
func skipAC(r *bitReader, ac *huffTable) error {
	for k := 1; k < 64; {
		peek := r.refillPeek()
		if f := ac.fast[peek]; f != 0 {
			r.n -= uint(f & 0xFF)
			k += int(f>>8&0xFF) + 1
			continue
		}
		rs, ok := uint8(0), true
		if e := ac.lut[peek]; e != 0 {
			r.n -= uint(e >> 8)
			rs = uint8(e)
		} else if rs, ok = r.decodeLong(ac); !ok {
			return errBadCode
		}
		if rs&15 == 0 && rs != 0xF0 {
			break // end of block
		}
		// The magnitude bits, unread; a ZRL (0xF0) has none and skips
		// 16.
		r.n -= uint(rs & 15)
		k += int(rs>>4) + 1
	}
	return nil
}

// idctBlock writes the reduced inverse DCT of the dequantised block blk
// (row-major) at block position (bx, by) of the output. Only the first
// cols columns of blk may hold nonzero coefficients.
func (d *lumaDecoder) idctBlock(blk *[64]int32, cols, bx, by int) {
	o := d.out
	off := by*d.n*o.Stride + bx*d.n
	switch d.n {
	case 8:
		idct8Fast(blk, o.Pix[off:], o.Stride, cols, &d.idctTmp)
	case 4:
		idct4Fast(blk, o.Pix[off:], o.Stride, cols, &d.idctTmp)
	case 2:
		idct2(blk, o.Pix[off:], o.Stride)
	default:
		o.Pix[off] = idct1(blk[0])
	}
}

// flatBlock writes the block of DC coefficient dc (dequantised) and no AC
// at block position (bx, by): n×n pixels at its mean level.
func (d *lumaDecoder) flatBlock(dc int32, bx, by int) {
	o := d.out
	v := idct1(dc)
	off := by*d.n*o.Stride + bx*d.n
	for y := 0; y < d.n; y++ {
		row := o.Pix[off+y*o.Stride : off+y*o.Stride+d.n]
		for x := range row {
			row[x] = v
		}
	}
}

// dcBlock decodes the DC of one block in a progressive DC scan (T.81
// G.1.2.1): the first approximation, or one refinement bit.
func (d *lumaDecoder) dcBlock(r *bitReader, c *lumaComponent, isY bool, bx, by, ah, al int) error {
	if r.n < 32 {
		r.fill()
	}
	var cf *int16
	if isY {
		if bx >= d.bw || by >= d.bh {
			return lumaErr("block outside the frame")
		}
		cf = &d.coef[(by*d.bw+bx)*64]
	}
	if ah != 0 {
		if r.bit() != 0 {
			if cf != nil {
				*cf |= 1 << al
			} else if !isY {
				d.chromaDC(c, bx, by, 1<<al, true)
			}
		}
		return nil
	}
	if err := r.dcDiff(c, &d.dc[c.td]); err != nil {
		return err
	}
	if cf != nil {
		*cf = int16(c.pred << al)
	} else if !isY {
		d.chromaDC(c, bx, by, c.pred<<al, false)
	}
	return nil
}

// acFirst decodes the first approximation of a band of Y's AC
// coefficients in one block (T.81 G.1.2.2).
func (d *lumaDecoder) acFirst(r *bitReader, c *lumaComponent, bx, by, ss, se, al int) error {
	if d.eobrun > 0 {
		d.eobrun--
		return nil
	}
	if bx >= d.bw || by >= d.bh {
		return lumaErr("block outside the frame")
	}
	cf := d.coef[(by*d.bw+bx)*64 : (by*d.bw+bx)*64+64 : (by*d.bw+bx)*64+64]
	ac := &d.ac[c.ta]
	for k := ss; k <= se; {
		rs, ok := r.decode(ac, r.refillPeek())
		if !ok {
			return errBadCode
		}
		run, sz := int(rs>>4), uint(rs&15)
		if sz == 0 {
			if run < 15 {
				// The blocks after this one that the run ends too.
				d.eobrun = r.eobRun(run) - 1
				return nil
			}
			k += 16
			continue
		}
		k += run
		if k > se {
			return lumaErr("coefficient past the band")
		}
		cf[zigzag[k]] = int16(extend(r.bits(sz), sz) << al)
		k++
	}
	return nil
}

// eobRun reads the length of an end-of-band run whose symbol has run
// bits (T.81 G.1.2.2): 2^run plus that many extra bits, in blocks, the
// current one included.
func (r *bitReader) eobRun(run int) int {
	n := 1 << run
	if run > 0 {
		n += int(r.bits(uint(run)))
	}
	return n
}

// acRefine decodes one refinement bit of a band of Y's AC coefficients in
// one block (T.81 G.1.2.3): correction bits for coefficients already
// nonzero, and new coefficients of magnitude 1<<al.
func (d *lumaDecoder) acRefine(r *bitReader, c *lumaComponent, bx, by, ss, se, al int) error {
	if bx >= d.bw || by >= d.bh {
		return lumaErr("block outside the frame")
	}
	cf := d.coef[(by*d.bw+bx)*64 : (by*d.bw+bx)*64+64 : (by*d.bw+bx)*64+64]
	p1 := int16(1) << al
	// refine applies a correction bit to a nonzero coefficient.
	refine := func(z uint8) {
		if r.n < 16 {
			r.fill()
		}
		if r.bit() != 0 {
			v := cf[z]
			if v&p1 == 0 {
				if v >= 0 {
					cf[z] = v + p1
				} else {
					cf[z] = v - p1
				}
			}
		}
	}
	k := ss
	if d.eobrun == 0 {
		ac := &d.ac[c.ta]
		for ; k <= se; k++ {
			rs, ok := r.decode(ac, r.refillPeek())
			if !ok {
				return errBadCode
			}
			run, sz := int(rs>>4), int(rs&15)
			var val int16
			switch sz {
			case 0:
				if run < 15 {
					d.eobrun = r.eobRun(run)
					goto eob
				}
				// ZRL: sixteen zero coefficients.
			case 1:
				if r.bit() != 0 {
					val = p1
				} else {
					val = -p1
				}
			default:
				return lumaErr("bad refinement magnitude")
			}
			// Skip run zero-history coefficients, refining the nonzero
			// ones passed on the way; the new value goes in the next zero.
			for ; k <= se; k++ {
				z := zigzag[k]
				if cf[z] != 0 {
					refine(z)
					continue
				}
				if run == 0 {
					if val != 0 {
						cf[z] = val
					}
					break
				}
				run--
			}
		}
		return nil
	}
eob:
	// Inside an EOB run: only correction bits for nonzero coefficients.
	for ; k <= se; k++ {
		z := zigzag[k]
		if cf[z] != 0 {
			refine(z)
		}
	}
	d.eobrun--
	return nil
}

// reconstruct runs the reduced inverse DCT over Y's stored coefficients at
// the end of a progressive frame, with the quantisation table in force
// then.
func (d *lumaDecoder) reconstruct() {
	q := &d.quant[d.comps[0].tq]
	last := lastNeeded[d.n]
	var blk [64]int32
	for by := 0; by < d.bh; by++ {
		for bx := 0; bx < d.bw; bx++ {
			cf := d.coef[(by*d.bw+bx)*64 : (by*d.bw+bx)*64+64]
			blk = [64]int32{}
			hasAC := false
			for k := 0; k <= last; k++ {
				z := zigzag[k]
				blk[z] = int32(cf[z]) * q[k]
				hasAC = hasAC || (k > 0 && cf[z] != 0)
			}
			if !hasAC {
				d.flatBlock(blk[0], bx, by)
				continue
			}
			d.idctBlock(&blk, 8, bx, by)
		}
	}
}
