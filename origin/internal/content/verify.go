package content

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/content/counters"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/wire"
)

// Facts are what verification computes from a file (facts.Facts, the
// same computation every host runs), plus what only the origin knows
// before a lookup.
type Facts struct {
	facts.Facts
	// Shortcut names the record whose signed output is byte-identical to
	// the file; PHash was then taken from that record (the service
	// computed it on that output) and the watermark was not extracted: its
	// check passes by the payload the service embedded there (see Verify).
	Shortcut string
	// NotDecoded is true when the file was not decoded (a registered file
	// that is not an image): PHash and Watermark are unknown, not zero.
	NotDecoded bool
}

// fromFacts wraps what shared/facts computed.
func fromFacts(f facts.Facts) Facts { return Facts{Facts: f} }

// factsOf derives the facts from an image already decoded (Sign reuses
// its decode) whose file has SHA-256 sum.
func factsOf(img *imagex.Image, sum [32]byte) (Facts, error) {
	f, err := facts.FromImage(img, sum)
	if err != nil {
		return Facts{}, fmt.Errorf("content: %w", err)
	}
	return fromFacts(f), nil
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
// signed (the common case of checking a circulating copy) is not decoded:
// its perceptual hash is the one the service computed on that output, and
// the watermark is not extracted: the watermark check passes with the
// payload the service embedded in that output, which it says. No watermark
// fact is ever copied from a registered record, whose payload is the
// client's claim (docs/verification.md, "Register cannot steal").
func (s *Service) Verify(ctx context.Context, file []byte, sum *[32]byte) (*VerifyResult, error) {
	if sum == nil {
		h := sha256.Sum256(file)
		sum = &h
	}
	var registered *Facts
	if len(file) > 0 && int64(len(file)) <= s.cfg.Media.Limits.MaxUploadBytes {
		f, signed, ok, err := s.exactFacts(ctx, *sum)
		if err != nil {
			return nil, err
		}
		if ok && signed {
			f.C2PA = facts.C2PA(file, s.cfg.Clock.Now())
			return s.VerifyFacts(ctx, f)
		}
		if ok {
			f.C2PA = facts.C2PA(file, s.cfg.Clock.Now())
			registered = &f
		}
	}
	release, err := s.cfg.Media.DecodeBudget.Reserve(ctx, file, s.cfg.Media.Limits, imagex.UseVerify)
	if err == nil {
		var f facts.Facts
		f, err = facts.Analyze(file, s.cfg.Media.Limits, s.cfg.Clock.Now())
		release()
		if err == nil {
			return s.VerifyFacts(ctx, fromFacts(f))
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
// signed output. signed is true when that record is one this service
// signed: the perceptual hash is then the one the service computed on
// that output. Otherwise (a registered record, whose hashes are the
// client's claim) only the SHA-256 is known, for a file that cannot be
// decoded. The watermark is never taken from a record.
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
			found, signed = true, r.Source == SourceSign
			if signed {
				f = Facts{Facts: facts.Facts{SHA256: sum, PHash: rec.PerceptualHash}, Shortcut: r.ID}
			} else {
				f = Facts{Facts: facts.Facts{SHA256: sum}, NotDecoded: true}
			}
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
// Everything after the candidate search is shared/lookup.Resolve, which
// shared/lookup.Decide calls too for a client that checks the candidates
// itself, so both answer the same.
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
	claims := make([]lookup.Claim, len(cands))
	for i, c := range cands {
		claims[i] = s.claimOf(ctx, c)
	}
	o := lookup.Resolve(lookup.Input{Facts: f.Verdict(), Shortcut: f.Shortcut, NotDecoded: f.NotDecoded, Claims: claims,
		C2PA: f.C2PA, C2PACA: s.c2paCA(ctx),
		Anchoring: func(i int) lookup.Anchoring {
			c := cands[i]
			st, err := s.cfg.Chain.Proofs.AnchorState(ctx, c.rec.ID, anchor.Hash(c.signed.LeafHash()))
			if err != nil {
				s.log.Warn("anchor state unavailable", "record_id", c.rec.ID, "err", err)
				st = anchor.State{Outcome: anchor.Unavailable, Detail: "unavailable: the anchoring state could not be read"}
			}
			return lookup.Anchoring{State: wireAnchorState(st.Outcome), Detail: st.Detail, Anchor: st.Anchor(), RootConfirmed: st.Outcome == anchor.Verified, Network: s.cfg.Chain.Network}
		}})
	out := &VerifyResult{Facts: f, Match: o.Match, Response: o.Response}
	if o.Index < 0 {
		return out, nil
	}
	best := cands[o.Index]
	out.Record, out.ByOriginal = best.rec, o.ByOriginal
	resp, signer := o.Response, best.rec.Signer

	data, err := events.NewData(verifiedEvent{
		Authentic: resp.Authentic, Confidence: resp.Confidence, RecordID: best.rec.ID, Checks: resp.Checks,
		Signer: signerDigest{OrgName: signer.OrgName, OrgType: signer.OrgType},
	})
	if err != nil {
		return nil, err
	}
	shard := int(f.SHA256[0]) % counters.VerifiedShards
	now := s.now()
	err = s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		if err := counters.BumpVerified(tx, best.rec.Owner, now, shard); err != nil {
			return err
		}
		return s.cfg.Events.Publish(tx, events.Event{Type: events.ContentVerified, Time: now, Accounts: []string{best.rec.Owner}, Data: data})
	})
	if errors.Is(err, store.ErrNoSpace) {
		// Out of disk: the answer is still right; only its count and
		// webhook event are lost.
		s.log.Warn("verification not counted: disk under its free-space margin", "record_id", best.rec.ID)
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("content: count verification: %w", err)
	}
	return out, nil
}

// claimOf is c as lookup.Resolve scores it, with the display fields the
// origin knows: the account's signer and the declared origin type. Verify
// and Lookup both take the display fields from here, so that a client's
// answer shows the signer exactly as the origin's does.
func (s *Service) claimOf(ctx context.Context, c candidate) lookup.Claim {
	return s.claimWithKey(ctx, c, s.keyState(ctx, c.rec))
}

// claimWithKey is claimOf for a record whose signing key's state was read
// already (Lookup sends the same state to the client).
func (s *Service) claimWithKey(ctx context.Context, c candidate, key *wire.SigningKeyState) lookup.Claim {
	r := c.rec
	// Who the signer is (verified domain, unverified label, key
	// fingerprint) is the service's knowledge, filled before it is shown.
	s.Identify(ctx, r)
	vc := verdictCandidate(c)
	kr := decideKey(key, r)
	if !kr.Valid() && !vc.Revoked {
		// A record its signing key's revocation invalidates reads as
		// revoked, with the reason, in every check (shared/lookup.Check
		// does the same with the key state a lookup answer carries).
		vc.Revoked, vc.RevokedReason = true, kr.Detail
	}
	cl := lookup.Claim{Candidate: vc, RecordID: r.ID, Source: r.Source, Signer: r.Signer, KeyRevocation: kr}
	if ot, ok := keys.LookupOriginType(r.OriginType); ok {
		cl.Origin = wire.Origin{Category: ot.Category, Code: ot.Code, Label: ot.Label}
	} else {
		cl.Origin = wire.Origin{Category: "unknown", Code: r.OriginType, Label: r.OriginType}
	}
	cl.Origin = *declaredOrigin(cl.Origin)
	return cl
}

// wireAnchorState names an anchoring outcome as the lookup answer does.
func wireAnchorState(o anchor.Outcome) string {
	switch o {
	case anchor.Verified:
		return wire.AnchorVerified
	case anchor.Invalid:
		return wire.AnchorInvalid
	case anchor.Pending:
		return wire.AnchorPending
	}
	return wire.AnchorUnavailable
}

func verdictCandidate(c candidate) verdict.Candidate {
	vc := verdict.Candidate{Signed: c.signed, Revoked: c.rec.Status == StatusRevoked, RevokedReason: c.rec.RevokedReason,
		CreatedAt: c.rec.CreatedAt, ParentID: c.rec.ParentRecordID, NoWatermarkReason: c.rec.WatermarkReason}
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
