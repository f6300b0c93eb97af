package videos

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

// A video record keeps its fingerprint (video.Fingerprint, binary) under
// FingerprintPrefix<id> and up to 2·indexFrames of its frame hashes in a
// perceptual index of their own under FramePrefix, so that a clip finds
// the videos it may come from with a bounded number of point reads.
const (
	FingerprintPrefix = "rec/vf/"
	FramePrefix       = "rec/vx/"
	// indexFrames bounds the frame hashes indexed per video (spread
	// evenly), and as many centres: enough that any clip of a few seconds
	// shares near frames with the index, few enough that a long video
	// costs little.
	indexFrames = 64
	// queryFrames bounds the frame hashes of a clip probed in it.
	queryFrames = 12
	// candidates bounds the videos whose fingerprints are compared.
	candidates = 16
)

func fingerprintKey(id string) []byte { return []byte(FingerprintPrefix + id) }

// Index is the frame index of a store's signed videos, with their
// fingerprints. The zero Frames prefix is not valid: use FramePrefix.
type Index struct {
	// Frames is the perceptual index of the videos' frame hashes, under
	// FramePrefix; with Mem set, Align reads it from memory only.
	Frames phindex.Index
	// Logger is told of a stored fingerprint that cannot be read (Align
	// skips it); nil discards.
	Logger *slog.Logger
}

// Put stores fp as the fingerprint of video record id and adds its
// indexed frame hashes (at most 64 whole frames and 64 centres, the same
// that Indexed returns) to the frame index, in tx: the record's own
// transaction, so that a committed video is always findable by a clip.
func (ix Index) Put(tx store.Txn, id record.ID, fp video.Fingerprint) error {
	b, err := fp.MarshalBinary()
	if err != nil {
		return err
	}
	if err := tx.Set(fingerprintKey(id.String()), b); err != nil {
		return err
	}
	for _, h := range indexHashes(fp) {
		if err := ix.Frames.Add(tx, id, h); err != nil {
			return err
		}
	}
	return nil
}

// Indexed returns the frame hashes Put added to the frame index for
// record id, or nil when id is not a video (no fingerprint stored), so
// that an in-memory copy of the index can add a commit's hashes. A stored
// fingerprint that cannot be read is an error.
func Indexed(tx store.Txn, id record.ID) ([]phash.Hash, error) {
	b, err := tx.Get(fingerprintKey(id.String()))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var fp video.Fingerprint
	if err := fp.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("content: video fingerprint of %s: %w", id, err)
	}
	return indexHashes(fp), nil
}

// indexHashes are the frame hashes a video is indexed under: at most
// indexFrames whole frames and as many centres (a clip cropped to the
// centre finds its video through them), so that a video costs the index
// a bounded number of hashes whatever its length.
func indexHashes(fp video.Fingerprint) []phash.Hash {
	return append(spread(fp.Hashes, indexFrames), spread(fp.Centre, indexFrames)...)
}

// QueryHashes returns the frame hashes of clip fp that Align looks up in
// the frame index: at most 12, evenly spread over the clip, distinct.
func QueryHashes(fp video.Fingerprint) []phash.Hash { return spread(fp.Hashes, queryFrames) }

// spread returns at most n of hs, evenly spaced, distinct 64-bit hashes
// only (a still scene would otherwise fill a bucket with one value).
func spread(hs []phash.Hash, n int) []phash.Hash {
	var out []phash.Hash
	seen := map[uint64]bool{}
	for i := 0; i < n && i < len(hs); i++ {
		h := hs[i*len(hs)/min(n, len(hs))]
		if !seen[h.P64] {
			seen[h.P64] = true
			out = append(out, h)
		}
	}
	return out
}

// Match is how a verified clip aligns on the matched record's video.
type Match struct {
	RecordID string `json:"record_id"`
	// OffsetSeconds is where the clip starts in the signed video.
	OffsetSeconds int `json:"offset_seconds"`
	// ClipSeconds and SignedSeconds are the lengths compared (one
	// fingerprint frame a second); MatchedSeconds how many aligned.
	ClipSeconds    int `json:"clip_seconds"`
	SignedSeconds  int `json:"signed_seconds"`
	MatchedSeconds int `json:"matched_seconds"`
	// Trimmed is true when the clip covers only part of the signed video.
	Trimmed bool `json:"trimmed"`
}

// Aligned is the stored video a clip aligns on best.
type Aligned struct {
	Match
	// Hash is the perceptual hash of the matched video's record, as the
	// caller's hashOf gave it.
	Hash phash.Hash
	// Mid is the second of the signed video its record's hash and local
	// signatures were taken at (the middle one, see Mark).
	Mid int
}

// Align returns the stored video that clip fp aligns on with the most
// seconds (video.MatchFingerprints), or nil when none aligns. The videos
// compared are first (the record of the clip's watermark; "" for none)
// and then at most 16 whose indexed frames are near the clip's (near), in
// that order; a video whose record hashOf cannot give the perceptual hash
// of is passed over, as is an unreadable stored fingerprint.
func (ix Index) Align(tx store.Txn, fp video.Fingerprint, first string, hashOf func(id string) (phash.Hash, bool)) (*Aligned, error) {
	var order []string
	if first != "" {
		order = append(order, first)
	}
	near, err := ix.near(tx, fp)
	if err != nil {
		return nil, err
	}
	for _, id := range near {
		if len(order) < candidates+1 && !slices.Contains(order, id) {
			order = append(order, id)
		}
	}
	var best *Aligned
	bestNear := 0
	for _, id := range order {
		b, err := tx.Get(fingerprintKey(id))
		if errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		var ref video.Fingerprint
		if err := ref.UnmarshalBinary(b); err != nil {
			if ix.Logger != nil {
				ix.Logger.Warn("stored video fingerprint unreadable; ignored", "record_id", id)
			}
			continue
		}
		m := video.MatchFingerprints(ref, fp)
		if !m.Matched || m.Near <= bestNear {
			continue
		}
		ph, ok := hashOf(id)
		if !ok {
			continue
		}
		bestNear = m.Near
		best = &Aligned{Hash: ph, Mid: len(ref.Hashes) / 2, Match: Match{
			RecordID: id, OffsetSeconds: m.Offset, ClipSeconds: len(fp.Hashes), SignedSeconds: len(ref.Hashes),
			MatchedSeconds: m.Near, Trimmed: m.Offset > 0 || m.Offset+len(fp.Hashes) < len(ref.Hashes),
		}}
	}
	return best, nil
}

// near returns the videos whose indexed frames are near the clip's, at
// most candidates of them, best first. Each of the clip's QueryHashes is
// looked up, and a video gets a vote per clip frame with an indexed frame
// within phash.CandidateDistance64 (every one within
// hamming.DefaultExactRadius is found: the in-memory index has no read
// budget); videos are ranked by votes, then by the sum of their
// per-frame distances, then by claim. A copy of the clip near on most of
// its frames thus outranks any number of videos that share one frame
// with it (a black frame, a common intro), however near that one frame
// is; and the earliest claim among the best-voted is always kept, so a
// burst of re-uploads cannot push the first one out.
//
// The cost is bounded per lookup by the hashes within reach: a video
// holds at most 2·indexFrames hashes, and a clip probes at most
// queryFrames of its own.
func (ix Index) near(tx store.Txn, fp video.Fingerprint) ([]string, error) {
	type vote struct {
		frames, dist, seq int
	}
	votes := map[[16]byte]*vote{}
	fr := ix.Frames
	for _, h := range QueryHashes(fp) {
		var ms []phindex.Match
		if fr.Mem != nil {
			for _, m := range fr.Mem.LookupRadius(h.P64, phash.CandidateDistance64, max(fr.Radius, phindex.DefaultRadius)+1) {
				ms = append(ms, phindex.Match(m))
			}
		} else {
			var err error
			if ms, _, err = fr.Lookup(tx, h, phash.CandidateDistance64, candidates, 0); err != nil {
				return nil, err
			}
		}
		counted := map[[16]byte]bool{}
		for _, m := range ms { // nearest first: a record's first match is its distance
			v := votes[m.ID]
			if v == nil {
				v = &vote{seq: m.Seq}
				votes[m.ID] = v
			}
			v.seq = min(v.seq, m.Seq)
			if !counted[m.ID] {
				counted[m.ID] = true
				v.frames++
				v.dist += m.D64
			}
		}
	}
	ids := make([][16]byte, 0, len(votes))
	for id := range votes {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b [16]byte) int {
		va, vb := votes[a], votes[b]
		return cmp.Or(cmp.Compare(vb.frames, va.frames), cmp.Compare(va.dist, vb.dist), cmp.Compare(va.seq, vb.seq), bytes.Compare(a[:], b[:]))
	})
	if len(ids) > candidates {
		// The earliest claim among the best-voted, if the cut drops it.
		top := votes[ids[0]].frames
		first := -1
		for i, id := range ids {
			if votes[id].frames < top {
				break
			}
			if first < 0 || votes[id].seq < votes[ids[first]].seq {
				first = i
			}
		}
		if first >= candidates {
			ids[candidates-1] = ids[first]
		}
		ids = ids[:candidates]
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = record.ID(id).String()
	}
	return out, nil
}
