// Package phash computes the perceptual hashes of an image's luminance plane
// with github.com/corona10/goimagehash: a 64-bit DCT pHash used as the index
// key, and a 256-bit extended pHash (16×16 DCT coefficients) whose Hamming
// distance decides a near match.
//
// goimagehash v1.1.0 resizes its input itself (nfnt/resize, bilinear) to
// 64×64 for PerceptionHash and to 256×256 for ExtPerceptionHash(16, 16), which
// on a full photo costs as much as decoding it. This package area-averages the
// luminance to exactly those sizes first ([imagex.Downscale]), so the library's
// resize is the identity and returns its input unchanged. The 64-bit hash is
// goimagehash.PerceptionHash's own steps (its DCT and median, without the
// root package, which links encoding/gob); the 256-bit hash is a bit-identical
// re-implementation of goimagehash.ExtPerceptionHash(img, 16, 16) on the
// 256×256 plane that transforms only the 16 DCT columns the hash reads
// (goimagehash's version costs ~15% of a JPEG decode on its own), checked
// against the library by a differential test. The hash is a
// function of the luminance plane alone: decode once, share the plane with
// the watermark.
//
// A perceptual hash is a lookup key and a similarity measure, never a proof of
// origin: distinct images can collide and adversaries can move a hash.
package phash

import (
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"math/bits"

	"github.com/corona10/goimagehash/etcs"
	"github.com/corona10/goimagehash/transforms"

	"github.com/provenant/provenant/shared/imagex"
)

const (
	// Side64 is the working size goimagehash.PerceptionHash resizes to.
	Side64 = 64
	// Side256 is the working size goimagehash.ExtPerceptionHash(16, 16) resizes to.
	Side256 = 256

	// Bits64 and Bits256 are the lengths of the two hashes.
	Bits64  = 64
	Bits256 = 256

	// HexLen is the length of [Hash.String]: 16 hex digits of the 64-bit hash
	// followed by 64 of the 256-bit hash.
	HexLen = 2 * (8 + 32)
)

// Thresholds, chosen from `go run ./bench phash` on the 94-image development
// set (bench/README.md and docs/verification.md hold the distributions).
const (
	// NearDistance256 is the largest Hamming distance between two 256-bit
	// hashes that counts as the same picture. At 64 it accepted every JPEG
	// q50..q90 re-encode, 0.5× and 1080-px resize and ±10% brightness edit
	// (max 40) and 93 of 94 crops of 2.5% per side, while the closest of
	// 4326 unrelated pairs was at 92 (median 128).
	NearDistance256 = 64
	// CandidateDistance64 is the largest Hamming distance between 64-bit
	// hashes at which an index lookup should return a candidate for the
	// 256-bit comparison: every edit accepted by NearDistance256 above was
	// within 14 on the 64-bit hash (2 of 4326 unrelated pairs were too; the
	// 256-bit check rejects them).
	CandidateDistance64 = 14
)

// Hash is the pair of perceptual hashes of one image. Bit i of the 256-bit
// hash is bit 63-(i%64) of P256[i/64], as goimagehash lays it out.
type Hash struct {
	P64  uint64
	P256 [4]uint64
}

// ErrEmpty is returned for a luminance plane with no pixels.
var ErrEmpty = errors.New("phash: empty image")

// ErrMalformed is wrapped by [Parse] errors.
var ErrMalformed = errors.New("phash: malformed hash")

// Compute returns both hashes of l. It does not modify l and is deterministic
// across platforms (native and WebAssembly give the same bits).
func Compute(l *imagex.Luma) (Hash, error) {
	if l == nil || l.Width <= 0 || l.Height <= 0 {
		return Hash{}, ErrEmpty
	}
	s256 := imagex.Downscale(l, Side256, Side256)
	s64 := imagex.Downscale(s256, Side64, Side64)
	return Hash{P64: hash64(s64), P256: ext256(s256)}, nil
}

// hash64 is goimagehash.PerceptionHash of a 64×64 plane, step for step,
// through the library's transforms and etcs packages only: its root
// package links encoding/gob, a tenth of the browser module, for hash
// (de)serialisation this package does not use. At 64×64 the library's
// resize returns its input; a grey pixel's value is its pixel2Gray of the
// 16-bit grey (the same expression, so the same bits); then its DCT, the
// 8×8 low frequencies and their median. TestCompute64IsGoimagehash checks
// it against the library.
func hash64(l *imagex.Luma) uint64 { return bits64(coeffs64(l)) }

// coeffs64 returns the 8×8 low-frequency DCT block hash64 thresholds,
// row-major (vertical frequency × 8 + horizontal frequency).
func coeffs64(l *imagex.Luma) []float64 {
	pixels := make([]float64, Side64*Side64)
	for y := 0; y < Side64; y++ {
		for x := 0; x < Side64; x++ {
			v := uint32(l.Pix[y*l.Stride+x]) * 0x101
			pixels[y*Side64+x] = 0.299*float64(v/257) + 0.587*float64(v/257) + 0.114*float64(v/256)
		}
	}
	transforms.DCT2DFast64(&pixels)
	return transforms.FlattenPixelsFast64(pixels, 8, 8)
}

// bits64 thresholds 64 coefficients at their median, as PerceptionHash.
func bits64(flat []float64) uint64 {
	median := etcs.MedianOfPixelsFast64(flat)
	var h uint64
	for i, p := range flat {
		if p > median {
			h |= 1 << uint(63-i)
		}
	}
	return h
}

func gray(l *imagex.Luma) *image.Gray {
	return &image.Gray{Pix: l.Pix, Stride: l.Stride, Rect: image.Rect(0, 0, l.Width, l.Height)}
}

// Distance64 returns the Hamming distance between two 64-bit hashes (0..64).
func Distance64(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Distance256 returns the Hamming distance between two 256-bit hashes (0..256).
func Distance256(a, b [4]uint64) int {
	d := 0
	for i := range a {
		d += bits.OnesCount64(a[i] ^ b[i])
	}
	return d
}

// Near reports whether two hashes are close enough to be the same picture:
// Distance256 <= [NearDistance256].
func Near(a, b Hash) bool { return Distance256(a.P256, b.P256) <= NearDistance256 }

// Hex64 returns the 64-bit hash as 16 lowercase hex digits, big-endian.
func (h Hash) Hex64() string {
	var b [8]byte
	putUint64(b[:], h.P64)
	return hex.EncodeToString(b[:])
}

// Bytes returns the 40-byte big-endian encoding: P64, then P256[0..3].
func (h Hash) Bytes() []byte {
	b := make([]byte, 40)
	putUint64(b, h.P64)
	for i, w := range h.P256 {
		putUint64(b[8+8*i:], w)
	}
	return b
}

// String returns the 80-hex-digit form stored as a record's perceptual_hash:
// hex of [Hash.Bytes].
func (h Hash) String() string { return hex.EncodeToString(h.Bytes()) }

// FromBytes is the inverse of [Hash.Bytes].
func FromBytes(b []byte) (Hash, error) {
	if len(b) != 40 {
		return Hash{}, fmt.Errorf("%w: %d bytes, want 40", ErrMalformed, len(b))
	}
	var h Hash
	h.P64 = getUint64(b)
	for i := range h.P256 {
		h.P256[i] = getUint64(b[8+8*i:])
	}
	return h, nil
}

// Parse is the inverse of [Hash.String]. It accepts lowercase or uppercase hex.
func Parse(s string) (Hash, error) {
	if len(s) != HexLen {
		return Hash{}, fmt.Errorf("%w: %d hex digits, want %d", ErrMalformed, len(s), HexLen)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return Hash{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return FromBytes(b)
}

func putUint64(b []byte, v uint64) {
	_ = b[7]
	for i := 0; i < 8; i++ {
		b[i] = byte(v >> (56 - 8*i))
	}
}

func getUint64(b []byte) uint64 {
	_ = b[7]
	var v uint64
	for i := 0; i < 8; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v
}
