package content

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/content/videos"
	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/video"
	vfacts "github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
)

// ErrVideoUnavailable: a video was uploaded and the service has no
// ffmpeg (MediaConfig.Video is nil).
var ErrVideoUnavailable = errors.New("content: video processing is not available")

// VideoFormat and VideoMIME name the signed output of a video.
const (
	VideoFormat = videos.Format
	VideoMIME   = videos.MIME
)

// SignVideoInput is one video to sign: Path is a file the caller wrote
// (the upload) in a private directory where SignVideo writes its output
// (SignResult.Path); the caller removes the directory.
type SignVideoInput struct {
	Owner        string
	SigningKeyID string
	Path         string
	Filename     string
	SHA256       *[32]byte
}

// SignVideo probes the video at in.Path under the engine's limits, embeds
// a fresh watermark payload in its frames and re-encodes it (H.264, audio
// kept; see videos.Mark), fingerprints the output, signs the
// canonical record of the output (its perceptual hash and local
// signatures are those of the middle second's frame, the signatures'
// detail measured without the mark) and stores the
// record with its fingerprint and frame index in one transaction. The
// watermarked file is left at SignResult.Path (File is nil) and kept in
// the blob store like an image's, streamed: memory does not grow with the
// video's size. An upload that is another account's signed video is
// refused first (*AlreadySignedError).
//
// Errors: ErrVideoUnavailable without ffmpeg; video sentinels for unusable
// files; keys errors as for Sign.
func (s *Service) SignVideo(ctx context.Context, in SignVideoInput) (*SignResult, error) {
	eng := s.cfg.Media.Video
	if eng == nil {
		return nil, ErrVideoUnavailable
	}
	key, user, pub, err := s.serviceSigner(ctx, in.Owner, in.SigningKeyID)
	if err != nil {
		return nil, err
	}
	// The record declares the video's origin, not the picture's a key for
	// photos names: a camera key's video is a camera video.
	if key.OriginType, err = keys.VideoOriginType(key.OriginType); err != nil {
		return nil, err
	}
	info, err := eng.Probe(ctx, in.Path)
	if err != nil {
		return nil, err
	}
	var origSum [32]byte
	if in.SHA256 != nil {
		origSum = *in.SHA256
	} else if origSum, err = fileSHA256(in.Path); err != nil {
		return nil, fmt.Errorf("content: sign video: %w", err)
	}
	if err := s.videoSignedElsewhere(ctx, in.Path, info, in.Owner, origSum); err != nil {
		return nil, err
	}
	payload, err := s.freshPayload(ctx)
	if err != nil {
		return nil, err
	}
	// The output stays in the caller's directory (the caller removes it)
	// so that it can be sent from disk: nothing of the video is held in
	// memory, whatever its length.
	outPath := filepath.Join(filepath.Dir(in.Path), filepath.Base(in.Path)+".signed.mp4")
	m, err := videos.Mark(ctx, eng, in.Path, info, outPath, payload)
	if err != nil {
		return nil, err
	}
	outSum, err := fileSHA256(outPath)
	if err != nil {
		return nil, fmt.Errorf("content: sign video: %w", err)
	}
	ph := m.Fingerprint.Hashes[m.Mid]
	rec := &record.Record{
		SHA256: outSum, PerceptualHash: ph,
		WatermarkPayload: binary.BigEndian.AppendUint64(nil, uint64(payload)), LocalSig: m.LocalSig,
	}
	r := &Record{
		OriginalSHA256: hex.EncodeToString(origSum[:]), PerceptualHash: ph.String(), WatermarkPayloadHex: payload.String(),
		OriginalFilename: cleanFilename(in.Filename), InputFormat: info.Container, OutputFormat: VideoFormat,
		Width: info.Width &^ 1, Height: info.Height &^ 1,
	}
	id, err := ids.NewUUID(s.cfg.Rand)
	if err != nil {
		return nil, err
	}
	wc, err := s.signAndStore(ctx, newRecord{
		id: id, now: s.now(), owner: in.Owner, keyID: in.SigningKeyID, key: key, user: user, pub: pub, rec: rec, r: r,
		keep: func(ctx context.Context, sum string) error {
			f, err := os.Open(outPath)
			if err != nil {
				return err
			}
			defer f.Close()
			return s.cfg.Outputs.Blobs.PutReader(ctx, sum, f)
		},
		extra: func(tx store.Txn) error { return s.videoIndex().Put(tx, rec.ID, m.Fingerprint) },
	})
	if err != nil {
		return nil, err
	}
	return &SignResult{Record: r, Path: outPath, ContentType: VideoMIME, Certificate: wc}, nil
}

// videoSignedElsewhere refuses, with an *AlreadySignedError, an upload
// that is another account's signed video: its exact signed output or
// original (SHA-256), a file carrying its watermark, or, without a known
// mark, a file whose fingerprint aligns on it, so that no second mark
// goes over a signer's. Content the caller's own account signed is
// signed again (derivative links are not made for video yet).
func (s *Service) videoSignedElsewhere(ctx context.Context, path string, info video.Info, owner string, sum [32]byte) error {
	var found *AlreadySignedError
	shaHex := hex.EncodeToString(sum[:])
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		return tx.Scan(shaPrefix(shaHex), nil, func(k, v []byte) error {
			r, err := getRecord(tx, string(k[len(shaPrefix(shaHex)):]))
			if err != nil || r.Owner == owner {
				return nil
			}
			ev := EvidenceSHA256
			if string(v) == "o" {
				ev = EvidenceOriginalSHA256
			}
			found = &AlreadySignedError{RecordID: r.ID, Evidence: []string{ev}}
			return store.ErrStopIteration
		})
	})
	if err != nil {
		return fmt.Errorf("content: sign video: lookup: %w", err)
	}
	if found != nil {
		return found
	}
	ex, err := s.cfg.Media.Video.Extract(ctx, path, info)
	if err != nil {
		return err
	}
	if !ex.Detection.Found {
		return s.videoNearElsewhere(ctx, path, info, owner)
	}
	known := true
	err = s.cfg.Store.View(ctx, func(tx store.Txn) error {
		id, err := tx.Get(payloadKey(ex.Payload.String()))
		if errors.Is(err, store.ErrNotFound) {
			// A mark no record holds (a copier's own, or noise): the
			// fingerprint still decides.
			known = false
			return nil
		} else if err != nil {
			return err
		}
		r, err := getRecord(tx, string(id))
		if err != nil || r.Owner == owner {
			return nil
		}
		return &AlreadySignedError{RecordID: r.ID, Evidence: []string{EvidenceWatermark}}
	})
	if err != nil || known {
		return err
	}
	return s.videoNearElsewhere(ctx, path, info, owner)
}

// videoNearElsewhere refuses, with an *AlreadySignedError, an upload
// without a watermark whose fingerprint aligns on another account's
// signed video (a re-encode or a trim that lost the mark): the same
// perceptual rule as images, on the frame sequence.
func (s *Service) videoNearElsewhere(ctx context.Context, path string, info video.Info, owner string) error {
	fp, err := s.cfg.Media.Video.Fingerprint(ctx, path, info)
	if err != nil {
		return err
	}
	m, err := s.matchVideo(ctx, fp, verdict.Watermark{})
	if err != nil || m == nil {
		return err
	}
	var r *Record
	err = s.cfg.Store.View(ctx, func(tx store.Txn) error {
		r, err = getRecord(tx, m.RecordID)
		return err
	})
	if err != nil {
		return fmt.Errorf("content: sign video: %w", err)
	}
	if r.Owner == owner || r.Status == StatusRevoked {
		return nil
	}
	return &AlreadySignedError{RecordID: r.ID, Evidence: []string{EvidencePerceptualHash}}
}

// VideoDetails are the video-specific facts of a verification.
type VideoDetails struct {
	// Frames is the number of frames whose luminance was summed for the
	// watermark; WatermarkStrength the detector's z-score on the sum.
	Frames            int     `json:"frames_summed"`
	WatermarkStrength float64 `json:"watermark_strength"`
	// Match is the fingerprint alignment (nil when no signed video
	// matched).
	Match *videos.Match `json:"match,omitempty"`
}

// VerifyVideo verifies the video at path (a file the caller wrote) whose
// SHA-256 is sum: a byte-identical signed output is recognised by hash
// without decoding; otherwise the watermark is extracted from the sum of
// sampled frames and the fingerprint is aligned on the fingerprints of the
// videos its frames find in the frame index. The four checks and the
// verdict are those of images (VerifyFacts), on the clip's frame aligned
// with the second the record's hash and local signatures were taken at.
func (s *Service) VerifyVideo(ctx context.Context, path string, sum [32]byte) (*VerifyResult, *VideoDetails, error) {
	eng := s.cfg.Media.Video
	if eng == nil {
		return nil, nil, ErrVideoUnavailable
	}
	f, signed, ok, err := s.exactFacts(ctx, sum)
	if err != nil {
		return nil, nil, err
	}
	if ok && signed {
		res, err := s.VerifyFacts(ctx, f)
		if err != nil {
			return nil, nil, err
		}
		videos.Wording(&res.Response)
		return res, &VideoDetails{}, nil
	}
	info, err := eng.Probe(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	ex, err := eng.Extract(ctx, path, info)
	if err != nil {
		return nil, nil, err
	}
	fp, err := eng.Fingerprint(ctx, path, info)
	if err != nil {
		return nil, nil, err
	}
	det := &VideoDetails{Frames: ex.Frames, WatermarkStrength: ex.Detection.Strength}
	facts := Facts{Facts: vfacts.Facts{SHA256: sum, PHash: fp.Hashes[0], Width: info.Width, Height: info.Height}}
	if ex.Detection.Found {
		facts.Watermark = verdict.Watermark{Found: true, Payload: binary.BigEndian.AppendUint64(nil, uint64(ex.Payload)),
			Strength: ex.Detection.Strength, BitErrors: ex.Detection.BitErrors}
	}
	match, err := s.matchVideo(ctx, fp, facts.Watermark)
	if err != nil {
		return nil, nil, err
	}
	if match != nil {
		det.Match = &match.Match
		// The clip's own frame at the signed video's middle second, when
		// the clip holds it, stands for the clip: its hash and, placed by
		// the watermark's alignment, its blocks against the record's local
		// signatures. A clip that does not hold that second is linked by
		// the sequence alignment alone, expressed as the record's hash.
		if qi := match.Mid - match.OffsetSeconds; qi >= 0 && qi < len(fp.Hashes) {
			facts.PHash = fp.Hashes[qi]
			if ex.Detection.Found {
				frame, err := eng.FrameAt(ctx, path, info, qi)
				if err != nil {
					return nil, nil, err
				}
				facts.Local = localsig.NewProbe(frame, vfacts.Alignment(ex.Detection))
			}
		} else {
			facts.PHash = match.Hash
		}
	}
	res, err := s.VerifyFacts(ctx, facts)
	if err != nil {
		return nil, nil, err
	}
	videos.Wording(&res.Response)
	return res, det, nil
}

// matchVideo finds the signed video the clip fp aligns on best
// (videos.Index.Align): the candidates are the record of the watermark's
// payload and the records whose indexed frames are near some of the
// clip's frames.
func (s *Service) matchVideo(ctx context.Context, fp video.Fingerprint, wm verdict.Watermark) (*videos.Aligned, error) {
	if err := s.cfg.Near.Index.Wait(ctx); err != nil {
		return nil, fmt.Errorf("content: video lookup: %w", err)
	}
	var best *videos.Aligned
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		var first string
		if wm.Found {
			if id, err := tx.Get(payloadKey(hex.EncodeToString(wm.Payload))); err == nil {
				first = string(id)
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		var err error
		best, err = s.videoIndex().Align(tx, fp, first, func(id string) (phash.Hash, bool) {
			r, err := getRecord(tx, id)
			if err != nil {
				return phash.Hash{}, false
			}
			ph, err := phash.Parse(r.PerceptualHash)
			return ph, err == nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("content: video lookup: %w", err)
	}
	return best, nil
}

// videoIndex is the store's video frame index, answered from the
// in-memory index when the service has one.
func (s *Service) videoIndex() videos.Index {
	return videos.Index{Frames: s.cfg.Near.index(videos.FramePrefix, (*nearindex.Index).Video), Logger: s.log}
}

// fileSHA256 hashes the file at path as it reads it.
func fileSHA256(path string) ([32]byte, error) {
	var sum [32]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// VideoMaxBytes is the largest video file the service accepts, or 0 when
// it has no video engine (uploads are then held to the image cap).
func (s *Service) VideoMaxBytes() int64 {
	if s.cfg.Media.Video == nil {
		return 0
	}
	return s.cfg.Media.Video.Limits().MaxBytes
}
