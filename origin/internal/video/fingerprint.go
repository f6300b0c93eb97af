package video

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/phash"
)

// FingerprintRate is the sampling rate of fingerprints: one frame a
// second, taken by time, so a different frame rate samples the same
// moments.
const FingerprintRate = 1

// MaxFingerprintFrames bounds a fingerprint (one hour at FingerprintRate).
const MaxFingerprintFrames = 3600

// Fingerprint is the perceptual hashes (shared/phash, 64 and 256 bits) of
// a video's frames sampled at FingerprintRate, in order: Hashes[i] is the
// frame at i seconds, Centre[i] (when present: same length as Hashes) the
// central CentreCrop of that frame, so that a clip cropped to its centre
// still matches the frames it came from.
type Fingerprint struct {
	Hashes []phash.Hash
	Centre []phash.Hash
}

// CentrePercent is the share of each side the centre hashes keep: the
// crop platforms and editors make to reframe a video (the frame's
// perceptual hash drifts past its threshold once a tenth of each side
// goes; the centre hash of the signed frame is what such a clip looks
// like).
const CentrePercent = 90

// fingerprintSide is the square size frames are scaled to before hashing:
// the 256-bit hash's working size, so phash does no resampling of its own.
const fingerprintSide = phash.Side256

// Fingerprint decodes the file at path (probed as info) at
// FingerprintRate and hashes every sampled frame, whole and its centre,
// in one decode: each sampled frame comes out as the two 256×256 pictures
// stacked.
func (e *Engine) Fingerprint(ctx context.Context, path string, info Info) (Fingerprint, error) {
	var fp Fingerprint
	side := fingerprintSide
	vf := fmt.Sprintf("format=gray,split[a][b];[a]scale=%d:%d:flags=area[f];"+
		"[b]crop=trunc(iw*%d/200)*2:trunc(ih*%d/200)*2,scale=%d:%d:flags=area[c];[f][c]vstack",
		side, side, CentrePercent, CentrePercent, side, side)
	spec := frameSpec{num: FingerprintRate, den: 1, w: side, h: 2 * side, vf: vf, dur: info.Duration}
	_, err := e.grayFrames(ctx, path, spec, func(_ time.Duration, l *imagex.Luma) error {
		if len(fp.Hashes) >= MaxFingerprintFrames {
			return nil
		}
		half := side * side
		h, err := phash.Compute(&imagex.Luma{Width: side, Height: side, Stride: side, Pix: l.Pix[:half]})
		if err != nil {
			return err
		}
		c, err := phash.Compute(&imagex.Luma{Width: side, Height: side, Stride: side, Pix: l.Pix[half:]})
		if err != nil {
			return err
		}
		fp.Hashes = append(fp.Hashes, h)
		fp.Centre = append(fp.Centre, c)
		return nil
	})
	if err != nil {
		return Fingerprint{}, err
	}
	return fp, nil
}

// hashSize is the encoded size of one frame hash (8 + 32 bytes).
const hashSize = 40

// centreMagic starts the encoding of a fingerprint with centre hashes; its
// length (4) keeps every such encoding off the multiples of hashSize that
// encodings without them have.
const centreMagic = "VFC1"

// MarshalBinary encodes the fingerprint as its hashes, 40 bytes each
// (64-bit then 256-bit, big-endian); with centre hashes, "VFC1" then
// each frame's hash followed by its centre's.
func (f Fingerprint) MarshalBinary() ([]byte, error) {
	if len(f.Centre) != 0 && len(f.Centre) != len(f.Hashes) {
		return nil, fmt.Errorf("%w: %d centre hashes for %d frames", ErrBadFingerprint, len(f.Centre), len(f.Hashes))
	}
	b := make([]byte, 0, 4+2*len(f.Hashes)*hashSize)
	put := func(h phash.Hash) {
		b = binary.BigEndian.AppendUint64(b, h.P64)
		for _, w := range h.P256 {
			b = binary.BigEndian.AppendUint64(b, w)
		}
	}
	if len(f.Centre) != 0 {
		b = append(b, centreMagic...)
	}
	for i, h := range f.Hashes {
		put(h)
		if len(f.Centre) != 0 {
			put(f.Centre[i])
		}
	}
	return b, nil
}

// ErrBadFingerprint is returned by UnmarshalBinary for malformed input.
var ErrBadFingerprint = errors.New("video: malformed fingerprint")

// UnmarshalBinary decodes what MarshalBinary wrote (either form).
func (f *Fingerprint) UnmarshalBinary(b []byte) error {
	per, centre := hashSize, false
	if len(b) >= len(centreMagic) && string(b[:len(centreMagic)]) == centreMagic {
		b, per, centre = b[len(centreMagic):], 2*hashSize, true
	}
	if len(b) == 0 && centre || len(b)%per != 0 || len(b)/per > MaxFingerprintFrames {
		return fmt.Errorf("%w: %d bytes", ErrBadFingerprint, len(b))
	}
	get := func(c []byte) (h phash.Hash) {
		h.P64 = binary.BigEndian.Uint64(c)
		for k := range 4 {
			h.P256[k] = binary.BigEndian.Uint64(c[8+8*k:])
		}
		return h
	}
	n := len(b) / per
	f.Hashes, f.Centre = make([]phash.Hash, n), nil
	if centre {
		f.Centre = make([]phash.Hash, n)
	}
	for i := range n {
		f.Hashes[i] = get(b[i*per:])
		if centre {
			f.Centre[i] = get(b[i*per+hashSize:])
		}
	}
	return nil
}

// frameDistance is the 256-bit distance of a query frame to a reference
// frame: to the whole frame, or to its centre when the reference has
// centre hashes (the query is a centre crop of it).
func frameDistance(ref Fingerprint, k int, q phash.Hash) int {
	d := phash.Distance256(q.P256, ref.Hashes[k].P256)
	if len(ref.Centre) == len(ref.Hashes) {
		d = min(d, phash.Distance256(q.P256, ref.Centre[k].P256))
	}
	return d
}

// Match is the best alignment of a query fingerprint on a reference.
type Match struct {
	// Matched is true when enough aligned frames are near (see MatchFingerprints).
	Matched bool
	// Offset is where the query starts in the reference, in seconds
	// (negative when the query starts before the reference does).
	Offset int
	// Frames is the number of aligned pairs compared, Near how many of them
	// are within phash.NearDistance256.
	Frames, Near int
	// QueryCoverage is Near over the query's length, ReferenceCoverage Near
	// over the reference's: a trimmed clip has QueryCoverage near 1 and
	// ReferenceCoverage below 1.
	QueryCoverage, ReferenceCoverage float64
	// MeanDistance is the mean 256-bit distance of the near pairs.
	MeanDistance float64
}

// Matching thresholds. A frame pair is near when its 256-bit distance is
// at most phash.NearDistance256 (the image threshold) against the aligned
// reference frame (whole or its centre) or a neighbour (1 fps sampling of a clip trimmed at a
// fractional second is up to half a second out of phase). An alignment
// matches when at least MinNearFrames pairs and MinNearFraction of the
// overlap are near.
const (
	MinNearFrames   = 3
	MinNearFraction = 0.6
)

// MatchFingerprints aligns q on ref at every offset (the sequence search
// that makes trimming at either end harmless; O(len(q)·len(ref)), at most
// 3600² distance computations) and returns the alignment with the most
// near pairs.
func MatchFingerprints(ref, q Fingerprint) Match {
	var best Match
	bestCentre := math.Inf(1)
	n, m := len(ref.Hashes), len(q.Hashes)
	if n == 0 || m == 0 {
		return best
	}
	for d := -(m - 1); d <= n-1; d++ {
		near, frames, sum, centre := 0, 0, 0, 0
		for j := max(0, -d); j < m && j+d < n; j++ {
			frames++
			dmin := math.MaxInt
			for k := max(0, j+d-1); k <= min(n-1, j+d+1); k++ {
				dmin = min(dmin, frameDistance(ref, k, q.Hashes[j]))
			}
			if dmin <= phash.NearDistance256 {
				near++
				sum += dmin
			}
			centre += frameDistance(ref, j+d, q.Hashes[j])
		}
		// Ties (slow scenes match their neighbours too) go to the offset
		// whose exactly aligned frames are closest.
		c := float64(centre) / float64(frames)
		if near > best.Near || (near == best.Near && near > 0 && c < bestCentre) {
			best = Match{Offset: d, Frames: frames, Near: near, MeanDistance: float64(sum) / float64(max(near, 1))}
			bestCentre = c
		}
	}
	best.QueryCoverage = float64(best.Near) / float64(m)
	best.ReferenceCoverage = float64(best.Near) / float64(n)
	need := min(MinNearFrames, m)
	best.Matched = best.Near >= need && float64(best.Near) >= MinNearFraction*float64(best.Frames)
	return best
}
