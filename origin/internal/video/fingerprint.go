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
// frame at i seconds.
type Fingerprint struct {
	Hashes []phash.Hash
}

// fingerprintSide is the square size frames are scaled to before hashing:
// the 256-bit hash's working size, so phash does no resampling of its own.
const fingerprintSide = phash.Side256

// Fingerprint decodes the file at path (already probed) at
// FingerprintRate and hashes every sampled frame.
func (e *Engine) Fingerprint(ctx context.Context, path string) (Fingerprint, error) {
	var fp Fingerprint
	spec := frameSpec{num: FingerprintRate, den: 1, w: fingerprintSide, h: fingerprintSide}
	_, err := e.grayFrames(ctx, path, spec, func(_ time.Duration, l *imagex.Luma) error {
		if len(fp.Hashes) >= MaxFingerprintFrames {
			return nil
		}
		h, err := phash.Compute(l)
		if err != nil {
			return err
		}
		fp.Hashes = append(fp.Hashes, h)
		return nil
	})
	if err != nil {
		return Fingerprint{}, err
	}
	return fp, nil
}

// hashSize is the encoded size of one frame hash (8 + 32 bytes).
const hashSize = 40

// MarshalBinary encodes the fingerprint as its hashes, 40 bytes each
// (64-bit then 256-bit, big-endian).
func (f Fingerprint) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, len(f.Hashes)*hashSize)
	for _, h := range f.Hashes {
		b = binary.BigEndian.AppendUint64(b, h.P64)
		for _, w := range h.P256 {
			b = binary.BigEndian.AppendUint64(b, w)
		}
	}
	return b, nil
}

// ErrBadFingerprint is returned by UnmarshalBinary for malformed input.
var ErrBadFingerprint = errors.New("video: malformed fingerprint")

// UnmarshalBinary decodes what MarshalBinary wrote.
func (f *Fingerprint) UnmarshalBinary(b []byte) error {
	if len(b)%hashSize != 0 || len(b)/hashSize > MaxFingerprintFrames {
		return fmt.Errorf("%w: %d bytes", ErrBadFingerprint, len(b))
	}
	f.Hashes = make([]phash.Hash, len(b)/hashSize)
	for i := range f.Hashes {
		c := b[i*hashSize:]
		f.Hashes[i].P64 = binary.BigEndian.Uint64(c)
		for k := range 4 {
			f.Hashes[i].P256[k] = binary.BigEndian.Uint64(c[8+8*k:])
		}
	}
	return nil
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
// reference frame or a neighbour (1 fps sampling of a clip trimmed at a
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
				dmin = min(dmin, phash.Distance256(q.Hashes[j].P256, ref.Hashes[k].P256))
			}
			if dmin <= phash.NearDistance256 {
				near++
				sum += dmin
			}
			centre += phash.Distance256(q.Hashes[j].P256, ref.Hashes[j+d].P256)
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
