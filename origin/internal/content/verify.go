package content

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"strings"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/shared/wire"
)

// Facts are what verification computes from a file, before any lookup.
type Facts struct {
	SHA256    [32]byte
	PHash     phash.Hash
	Watermark verdict.Watermark
	Format    imagex.Format
	Width     int
	Height    int
	// Shortcut names the record whose signed output is byte-identical to
	// the file; PHash and Watermark were then taken from that record
	// instead of being recomputed (see Verify).
	Shortcut string
}

// ComputeFacts decodes file once under lim and derives the SHA-256, both
// perceptual hashes and the watermark from the same luminance plane (the
// hash and the extraction run concurrently). Images too small for the
// watermark simply have none.
func ComputeFacts(file []byte, sum *[32]byte, lim limits.Limits) (Facts, error) {
	img, err := imagex.Decode(file, lim)
	if err != nil {
		return Facts{}, err
	}
	var s [32]byte
	if sum != nil {
		s = *sum
	} else {
		s = sha256.Sum256(file)
	}
	return factsOf(img, s)
}

// factsOf derives the facts from an image already decoded (Sign reuses
// its decode) whose file has SHA-256 sum.
func factsOf(img *imagex.Image, sum [32]byte) (Facts, error) {
	f := Facts{SHA256: sum}
	f.Format, f.Width, f.Height = img.Format, img.Image.Bounds().Dx(), img.Image.Bounds().Dy()
	l := lumaOf(img.Image)
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
	ph, phErr := phash.Compute(l)
	wm := <-ch
	if phErr != nil {
		return Facts{}, fmt.Errorf("content: phash: %w", phErr)
	}
	f.PHash = ph
	var small *watermark.TooSmallError
	switch {
	case wm.err == nil:
		f.Watermark = verdict.Watermark{Found: wm.d.Found, Strength: wm.d.Strength, BitErrors: wm.d.BitErrors}
		if wm.d.Found {
			f.Watermark.Payload = binary.BigEndian.AppendUint64(nil, uint64(wm.p))
		}
	case errors.As(wm.err, &small):
	default:
		return Facts{}, fmt.Errorf("content: watermark: %w", wm.err)
	}
	return f, nil
}

// lumaOf returns the luminance plane of m: for a decoded JPEG
// (*image.YCbCr, or *image.Gray) a view of its Y plane without copying
// (neither phash nor watermark modifies the plane), otherwise
// imagex.ToLuma.
func lumaOf(m image.Image) *imagex.Luma {
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

// VerifyResult is the outcome of Verify.
type VerifyResult struct {
	Response wire.VerifyResponse
	// Record is the matched record (nil when none matched). Callers must
	// not expose its private fields.
	Record *Record
	// Match is the strength of the link to Record.
	Match verdict.Match
	// ByOriginal is true when the file is the signer's unwatermarked
	// original (matched by Record.OriginalSHA256).
	ByOriginal bool
	Facts      Facts
}

// verifiedEvent is the data of content.verified (docs/webhooks.md, Events).
type verifiedEvent struct {
	Authentic  bool         `json:"authentic"`
	Confidence float64      `json:"confidence"`
	RecordID   string       `json:"record_id"`
	Checks     wire.Checks  `json:"checks"`
	Signer     signerDigest `json:"signer"`
}

type candidate struct {
	rec    *Record
	signed record.Signed
	byOrig bool
}

// Verify checks file against the stored records: exact SHA-256 (of the
// signed file, or of the signer's original upload), watermark payload, and
// perceptual near-duplicates from the index. Candidates whose stored
// signature does not verify over their canonical bytes are ignored. The
// four checks and the verdict come from shared/verdict; a file that
// matches nothing is a normal, not-authentic result. When a record
// matched, the owner's total_verified counter is incremented and a
// content.verified event is published in one transaction.
//
// sum, if non-nil, is the SHA-256 of file the caller computed while
// reading it.
//
// A file byte-identical to the signed output of a record this service
// signed (the common case of checking a circulating copy) is not decoded: its perceptual hash and
// watermark payload are, by construction, those stored in that record's
// signed canonical bytes, and the watermark check says so.
func (s *Service) Verify(ctx context.Context, file []byte, sum *[32]byte) (*VerifyResult, error) {
	if sum == nil {
		h := sha256.Sum256(file)
		sum = &h
	}
	var registered *Facts
	if len(file) > 0 && int64(len(file)) <= s.cfg.Limits.MaxUploadBytes {
		f, signed, ok, err := s.exactFacts(ctx, *sum)
		if err != nil {
			return nil, err
		}
		if ok && signed {
			return s.VerifyFacts(ctx, f)
		}
		if ok {
			registered = &f
		}
	}
	release, err := s.cfg.DecodeBudget.Reserve(ctx, file, s.cfg.Limits, imagex.UseVerify)
	if err == nil {
		var f Facts
		f, err = ComputeFacts(file, sum, s.cfg.Limits)
		release()
		if err == nil {
			return s.VerifyFacts(ctx, f)
		}
	}
	// A registered file that cannot be decoded (not an image, or no
	// capacity) still verifies by its hash, as before.
	if registered != nil && !errors.Is(err, context.Canceled) {
		return s.VerifyFacts(ctx, *registered)
	}
	return nil, err
}

// exactFacts returns the facts of a file whose SHA-256 is a record's
// signed output, read from that record's verified canonical bytes.
// signed is true when that record is one this service signed (its facts
// are the service's own); otherwise they are a registered record's claim.
func (s *Service) exactFacts(ctx context.Context, sum [32]byte) (f Facts, signed, found bool, err error) {
	shaHex := hex.EncodeToString(sum[:])
	err = s.cfg.Store.View(ctx, func(tx store.Txn) error {
		return tx.Scan(shaPrefix(shaHex), nil, func(k, v []byte) error {
			if string(v) != "s" {
				return nil
			}
			r, err := getRecord(tx, string(k[len(shaPrefix(shaHex)):]))
			if err != nil {
				return nil
			}
			// Only an output this service produced has facts it computed
			// itself; a registered record's perceptual hash and payload are
			// the client's claim, and the file may carry another record's
			// watermark (who signed first), so Verify decodes it and keeps
			// these facts as a fallback. A signed record is preferred.
			if found && r.Source != SourceSign {
				return nil
			}
			sg, err := r.Signed()
			if err != nil {
				return nil
			}
			rec, err := record.Verify(sg)
			if err != nil || rec.SHA256 != sum {
				return nil
			}
			f = Facts{SHA256: sum, PHash: rec.PerceptualHash, Shortcut: r.ID}
			if len(rec.WatermarkPayload) > 0 {
				f.Watermark = verdict.Watermark{Found: true, Payload: rec.WatermarkPayload}
			}
			found, signed = true, r.Source == SourceSign
			if signed {
				return store.ErrStopIteration
			}
			return nil
		})
	})
	if err != nil {
		return Facts{}, false, false, fmt.Errorf("content: exact lookup: %w", err)
	}
	return f, signed, found, nil
}

// VerifyFacts is Verify for facts computed elsewhere (an edge, a browser).
//
// The record answered is chosen by the "who signed first" rule of
// shared/verdict: the record whose watermark is in the picture, else the
// earliest claim by the service's times. Parents of the linked records are
// added as candidates so that the answer carries the provenance chain.
func (s *Service) VerifyFacts(ctx context.Context, f Facts) (*VerifyResult, error) {
	cands, err := s.candidates(ctx, f)
	if err != nil {
		return nil, err
	}
	if cands, err = s.withParents(ctx, cands); err != nil {
		return nil, err
	}
	opts := verdict.Options{MaxCandidates: len(cands)}
	vc := make([]verdict.Candidate, len(cands))
	for i, c := range cands {
		vc[i] = verdictCandidate(c)
	}
	facts := f.verdictFacts()
	res := verdict.Decide(facts, vc, opts)
	out := &VerifyResult{Facts: f, Match: res.Match}
	if res.Record == nil || res.Match == verdict.MatchNone || res.Index < 0 {
		out.Response = res.Wire()
		return out, nil
	}
	best, res0Index := cands[res.Index], res.Index
	out.Record, out.ByOriginal = best.rec, res.ByOriginal
	chain, original := res.Chain, res.Original
	// Anchoring is asked only for the chosen record, then the verdict is
	// recomputed with it.
	st, aerr := s.cfg.Proofs.AnchorState(ctx, best.rec.ID, anchor.Hash(best.signed.LeafHash()))
	if aerr != nil {
		s.log.Warn("anchor state unavailable", "record_id", best.rec.ID, "err", aerr)
		st = anchor.State{Outcome: anchor.Unavailable, Detail: "unavailable: the anchoring state could not be read"}
	}
	one := vc[res.Index]
	one.Anchor, one.RootConfirmed = st.Anchor(), st.Outcome == anchor.Verified
	res = verdict.Decide(facts, []verdict.Candidate{one}, opts)
	res.Index, res.Chain, res.Original = 0, chain, original
	// Hash matches with later claims stay visible as details: they do not
	// outrank the chosen record, but they are what the file is.
	for _, l := range chain {
		if l.Index == res0Index {
			continue
		}
		id := cands[l.Index].rec.ID
		for _, ev := range l.Evidence {
			switch ev {
			case verdict.EvidenceSHA256:
				res.Checks.SHA256.Details += "; the file is byte-identical to record " + id + " (" + string(l.Relation) + ", see chain)"
			case verdict.EvidenceOriginalSHA256:
				res.Checks.SHA256.Details += "; the file is the original upload of record " + id + " (" + string(l.Relation) + ", see chain; the service's word, not covered by a signature)"
			}
		}
	}
	if f.Shortcut == best.rec.ID && res.Checks.Watermark.Passed {
		res.Checks.Watermark.Details = "watermark payload " + best.rec.WatermarkPayloadHex + " of record " + best.rec.ID +
			": the file is byte-identical to the signed output, which carries it (not re-extracted)"
	}
	switch st.Outcome {
	case anchor.Verified:
	case anchor.Invalid:
		res.Authentic, res.Confidence = false, 0
		res.Checks.Blockchain = wire.Check{Details: "anchoring proof invalid: " + st.Detail}
	default:
		if !res.Checks.Blockchain.Passed && st.Detail != "" && !strings.HasPrefix(res.Checks.Blockchain.Details, "Merkle proof failed") {
			res.Checks.Blockchain.Details = st.Detail
		}
	}
	resp := res.Wire()
	if ot, ok := keys.LookupOriginType(best.rec.OriginType); ok {
		resp.Origin = declaredOrigin(wire.Origin{Category: ot.Category, Code: ot.Code, Label: ot.Label})
	} else {
		resp.Origin = declaredOrigin(wire.Origin{Category: "unknown", Code: best.rec.OriginType, Label: best.rec.OriginType})
	}
	s.Identify(ctx, best.rec)
	signer := best.rec.Signer
	resp.Signer = &signer
	// The chain names each signer as the service knows the account (a
	// registered record's org field is the client's claim).
	for i := range resp.Chain {
		resp.Chain[i].OrgName = cands[chain[i].Index].rec.Signer.OrgName
	}
	out.Response = resp
	out.Match = res.Match

	data, err := events.NewData(verifiedEvent{
		Authentic: resp.Authentic, Confidence: resp.Confidence, RecordID: best.rec.ID, Checks: resp.Checks,
		Signer: signerDigest{OrgName: signer.OrgName, OrgType: signer.OrgType},
	})
	if err != nil {
		return nil, err
	}
	shard := int(f.SHA256[0]) % verifiedShards
	now := s.now()
	err = s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		if err := bumpVerified(tx, best.rec.Owner, shard); err != nil {
			return err
		}
		return s.cfg.Events.Publish(tx, events.Event{Type: events.ContentVerified, Time: now, Accounts: []string{best.rec.Owner}, Data: data})
	})
	if err != nil {
		return nil, fmt.Errorf("content: count verification: %w", err)
	}
	return out, nil
}

func (f Facts) verdictFacts() verdict.Facts {
	return verdict.Facts{SHA256: f.SHA256, PHash: f.PHash, Watermark: f.Watermark}
}

func verdictCandidate(c candidate) verdict.Candidate {
	vc := verdict.Candidate{Signed: c.signed, Revoked: c.rec.Status == StatusRevoked, RevokedReason: c.rec.RevokedReason,
		CreatedAt: c.rec.CreatedAt, ParentID: c.rec.ParentRecordID}
	if c.rec.RevokedAt != nil {
		vc.RevokedAt = *c.rec.RevokedAt
	}
	if c.rec.AnchoredAt != nil {
		vc.AnchoredAt = *c.rec.AnchoredAt
	}
	if b, err := hex.DecodeString(c.rec.OriginalSHA256); err == nil && len(b) == len(vc.OriginalSHA256) {
		copy(vc.OriginalSHA256[:], b)
	}
	return vc
}

// maxParentDepth bounds how many parent links verification follows from a
// linked record.
const maxParentDepth = 8

// withParents appends to cands the parents of its records (and theirs, up
// to maxParentDepth links), each with a verifying signature, so that the
// verdict can name the chain's original.
func (s *Service) withParents(ctx context.Context, cands []candidate) ([]candidate, error) {
	seen := map[string]bool{}
	for _, c := range cands {
		seen[c.rec.ID] = true
	}
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		n := len(cands)
		for i := 0; i < n; i++ {
			id := cands[i].rec.ParentRecordID
			for d := 0; d < maxParentDepth && id != "" && !seen[id]; d++ {
				seen[id] = true
				r, err := getRecord(tx, id)
				if errors.Is(err, ErrNotFound) {
					break
				}
				if err != nil {
					return err
				}
				sg, err := r.Signed()
				if err != nil {
					break
				}
				if _, err := record.Verify(sg); err != nil {
					s.log.Warn("stored record signature does not verify; ignored", "record_id", id)
					break
				}
				cands = append(cands, candidate{rec: r, signed: sg})
				id = r.ParentRecordID
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("content: parent lookup: %w", err)
	}
	return cands, nil
}

// candidates collects, in one read transaction, the records linked to f:
// exact SHA-256 (signed file, then original upload), watermark payload,
// then perceptual neighbours nearest first; deduplicated, at most
// Limits.MaxCandidates, each with a verifying signature.
func (s *Service) candidates(ctx context.Context, f Facts) ([]candidate, error) {
	maxC := s.cfg.Limits.MaxCandidates
	var out []candidate
	seen := map[string]bool{}
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		out = out[:0]
		clear(seen)
		add := func(id string, byOrig bool) error {
			if seen[id] || len(out) >= maxC {
				return nil
			}
			seen[id] = true
			r, err := getRecord(tx, id)
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			sg, err := r.Signed()
			if err != nil {
				return nil
			}
			if _, err := record.Verify(sg); err != nil {
				s.log.Warn("stored record signature does not verify; ignored", "record_id", id)
				return nil
			}
			out = append(out, candidate{rec: r, signed: sg, byOrig: byOrig})
			return nil
		}
		shaHex := hex.EncodeToString(f.SHA256[:])
		var orig []string
		err := tx.Scan(shaPrefix(shaHex), nil, func(k, v []byte) error {
			id := string(k[len(shaPrefix(shaHex)):])
			if string(v) == "o" {
				orig = append(orig, id)
				return nil
			}
			return add(id, false)
		})
		if err != nil {
			return err
		}
		for _, id := range orig {
			if err := add(id, true); err != nil {
				return err
			}
		}
		if f.Watermark.Found {
			p := hex.EncodeToString(f.Watermark.Payload)
			id, err := tx.Get(payloadKey(p))
			if err == nil {
				if err := add(string(id), false); err != nil {
					return err
				}
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if len(out) >= maxC {
			return nil
		}
		ms, _, err := s.phindex().Lookup(tx, f.PHash, phash.CandidateDistance64, maxC, 0)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if err := add(record.ID(m.ID).String(), false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("content: candidate lookup: %w", err)
	}
	return out, nil
}
