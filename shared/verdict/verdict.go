// Package verdict turns the facts computed from a file and the candidate
// records found for it into the four checks of a verification (watermark,
// sha256, perceptual_hash, blockchain), an authenticity verdict and a
// confidence. [Decide] is a pure function: no I/O, no clock, no randomness,
// so the origin, the edge and the browser (WebAssembly) give byte-identical
// verdicts for the same inputs.
//
// Scoring (see docs/verification.md for the rationale):
//
//   - A candidate counts only if its Ed25519 signature verifies.
//   - Exact SHA-256 match: the file is the signed file. Authentic,
//     confidence 0.98, 1.00 once anchored.
//   - Watermark payload of the record found AND perceptual hash near
//     (256-bit distance <= threshold): the signed picture after re-encoding,
//     resizing or light edits. Authentic, confidence 0.85..0.95 falling with
//     distance and corrected watermark bit errors, +0.03 once anchored
//     (at most 0.98: below an exact match).
//   - Watermark found but perceptual hash far: the mark survived but the
//     picture changed (crop, composite). Not authentic, confidence 0.50.
//   - Perceptual hash near, no watermark match: looks like signed content,
//     likely a derivative or a look-alike. Not authentic, confidence
//     0.20..0.45 falling with distance.
//   - Nothing: not authentic, confidence 0.
//   - A revoked record is never authentic (confidence 0); the details say
//     that it was revoked, when and why.
//   - An anchoring proof that does not verify makes the result not authentic
//     (the evidence is inconsistent), confidence 0.
//   - The blockchain check passes only when the record's leaf verifies by
//     its Merkle audit path against a root confirmed on chain; otherwise it
//     reports pending.
package verdict

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// Watermark is the watermark extraction result for the file, as plain
// values (this package does not depend on shared/watermark).
type Watermark struct {
	// Found is true when a payload decoded and passed its integrity check.
	Found bool
	// Payload is the decoded payload; meaningful only when Found.
	Payload []byte
	// Strength is the detector's normalised detection strength (0..1), for
	// the details string only.
	Strength float64
	// BitErrors is the number of coded bits the error correction fixed.
	BitErrors int
}

// Facts are what was computed from the file being verified.
type Facts struct {
	SHA256    [32]byte
	PHash     phash.Hash
	Watermark Watermark
}

// Candidate is a record the lookup returned for the file (by SHA-256, by
// watermark payload or by perceptual-hash neighbourhood), with its status.
type Candidate struct {
	// Signed is the canonical record and its signature.
	Signed record.Signed
	// Revoked is true when the signer revoked the record.
	Revoked       bool
	RevokedAt     time.Time
	RevokedReason string
	// Anchor is the inclusion proof of the record's leaf, nil while pending.
	Anchor *record.Anchor
	// RootConfirmed is true when the origin (or a chain client) confirmed that
	// Anchor.Root was written in transaction Anchor.TxHash.
	RootConfirmed bool
}

// Options tune [Decide]. The zero value means the defaults.
type Options struct {
	// NearDistance256 is the largest 256-bit pHash distance counted as the
	// same picture; 0 means phash.NearDistance256.
	NearDistance256 int
	// MaxCandidates bounds the candidates scored; 0 means limits.DefaultMaxCandidates.
	MaxCandidates int
}

// Match is the strongest link found between the file and a record.
type Match int

// Match kinds, weakest first.
const (
	MatchNone       Match = iota // no candidate links to the file
	MatchPerceptual              // perceptual hash near, no watermark match
	MatchWatermark               // watermark payload matches, perceptual hash far
	MatchReencoded               // watermark payload matches and perceptual hash near
	MatchExact                   // SHA-256 equal
)

var matchNames = [...]string{"none", "perceptual", "watermark", "reencoded", "exact"}

func (m Match) String() string {
	if m < 0 || int(m) >= len(matchNames) {
		return fmt.Sprintf("Match(%d)", int(m))
	}
	return matchNames[m]
}

// Result is the verdict.
type Result struct {
	Authentic  bool
	Confidence float64
	Match      Match
	// Record is the best candidate's record (nil when no candidate has a
	// valid signature); Index is its position in the candidates, or -1.
	Record *record.Record
	Index  int
	// Anchored is true when the blockchain check passed.
	Anchored bool
	// Revoked is true when the best candidate is revoked.
	Revoked bool
	// TxHash is the anchoring transaction of the best candidate, if any.
	TxHash string
	Checks wire.Checks
}

// eval is one candidate scored.
type eval struct {
	idx       int
	rec       *record.Record
	c         *Candidate
	match     Match
	shaEq     bool
	wmEq      bool
	dist      int
	near      bool
	anchorErr error // non-nil: proof present and failing
	anchored  bool
}

// Decide scores every candidate (up to the limit) and returns the verdict
// for the best one. Candidates with an invalid signature are ignored. The
// best candidate is the one with the strongest [Match]; ties go to the
// smaller perceptual distance, then to the earlier candidate.
func Decide(f Facts, cands []Candidate, opt Options) Result {
	near := opt.NearDistance256
	if near <= 0 {
		near = phash.NearDistance256
	}
	maxC := opt.MaxCandidates
	if maxC <= 0 {
		maxC = limits.DefaultMaxCandidates
	}
	if len(cands) > maxC {
		cands = cands[:maxC]
	}
	var best *eval
	for i := range cands {
		e := score(f, i, &cands[i], near)
		if e == nil {
			continue
		}
		if best == nil || e.match > best.match || (e.match == best.match && e.dist < best.dist) {
			best = e
		}
	}
	return result(f, best, near)
}

func score(f Facts, i int, c *Candidate, near int) *eval {
	rec, err := record.Verify(c.Signed)
	if err != nil {
		return nil
	}
	e := &eval{idx: i, rec: rec, c: c}
	e.shaEq = f.SHA256 == rec.SHA256
	e.wmEq = f.Watermark.Found && len(rec.WatermarkPayload) > 0 && bytes.Equal(f.Watermark.Payload, rec.WatermarkPayload)
	e.dist = phash.Distance256(f.PHash.P256, rec.PerceptualHash.P256)
	e.near = e.dist <= near
	switch {
	case e.shaEq:
		e.match = MatchExact
	case e.wmEq && e.near:
		e.match = MatchReencoded
	case e.wmEq:
		e.match = MatchWatermark
	case e.near:
		e.match = MatchPerceptual
	default:
		e.match = MatchNone
	}
	if c.Anchor != nil {
		e.anchorErr = c.Anchor.Verify(c.Signed.LeafHash())
		e.anchored = e.anchorErr == nil && c.RootConfirmed
	}
	return e
}

func result(f Facts, e *eval, near int) Result {
	r := Result{Index: -1}
	if e == nil || e.match == MatchNone {
		r.Checks = noMatchChecks(f, e, near)
		if e != nil {
			r.Index, r.Record = e.idx, e.rec
		}
		return r
	}
	r.Index, r.Record, r.Match, r.Revoked = e.idx, e.rec, e.match, e.c.Revoked
	r.Anchored = e.anchored
	if e.c.Anchor != nil {
		r.TxHash = e.c.Anchor.TxHash
	}
	r.Checks = checks(f, e, near)

	// Confidence is computed in integer hundredths so that every platform
	// gives the same number.
	pct := 0
	switch e.match {
	case MatchExact:
		r.Authentic, pct = true, 98
		if e.anchored {
			pct = 100
		}
	case MatchReencoded:
		// 85..95: +10 at distance 0 falling linearly to 0 at the threshold,
		// minus 1 per 2 corrected watermark bit errors (at most 5).
		bonus := (10*(near-e.dist) + near/2) / near
		bonus -= min(max(f.Watermark.BitErrors, 0), 10) / 2
		r.Authentic, pct = true, 85+max(bonus, 0)
		if e.anchored {
			pct += 3
		}
	case MatchWatermark:
		pct = 50
	case MatchPerceptual:
		pct = 20 + (25*(near-e.dist)+near/2)/near
	}
	if e.c.Revoked || e.anchorErr != nil {
		r.Authentic, pct = false, 0
	}
	r.Confidence = float64(pct) / 100
	return r
}

func checks(f Facts, e *eval, near int) wire.Checks {
	var ch wire.Checks
	id := e.rec.ID.String()
	revoked := ""
	if e.c.Revoked {
		revoked = "; record " + id + " was revoked"
		if !e.c.RevokedAt.IsZero() {
			revoked += " at " + e.c.RevokedAt.UTC().Format(record.TimeFormat)
		}
		if e.c.RevokedReason != "" {
			revoked += " (" + e.c.RevokedReason + ")"
		}
	}
	// watermark
	switch {
	case e.wmEq:
		ch.Watermark = wire.Check{Passed: !e.c.Revoked, Details: fmt.Sprintf(
			"watermark payload %s matches record %s (strength %.2f, %d bit errors corrected)%s",
			hex.EncodeToString(f.Watermark.Payload), id, f.Watermark.Strength, f.Watermark.BitErrors, revoked)}
	case f.Watermark.Found:
		ch.Watermark = wire.Check{Details: fmt.Sprintf("watermark payload %s found but does not match record %s",
			hex.EncodeToString(f.Watermark.Payload), id)}
	default:
		ch.Watermark = wire.Check{Details: "no watermark detected"}
	}
	// sha256
	if e.shaEq {
		ch.SHA256 = wire.Check{Passed: !e.c.Revoked, Details: "exact SHA-256 match with record " + id + revoked}
	} else {
		ch.SHA256 = wire.Check{Details: "SHA-256 differs from record " + id + ": the file was re-encoded or altered"}
	}
	// perceptual hash
	switch {
	case e.dist == 0:
		ch.PerceptualHash = wire.Check{Passed: !e.c.Revoked, Details: fmt.Sprintf("exact perceptual hash match with record %s (distance 0/256)%s", id, revoked)}
	case e.near:
		ch.PerceptualHash = wire.Check{Passed: !e.c.Revoked, Details: fmt.Sprintf("near perceptual hash match with record %s (distance %d/256, threshold %d)%s", id, e.dist, near, revoked)}
	default:
		ch.PerceptualHash = wire.Check{Details: fmt.Sprintf("perceptual hash far from record %s (distance %d/256, threshold %d)", id, e.dist, near)}
	}
	// blockchain
	a := e.c.Anchor
	switch {
	case a == nil:
		ch.Blockchain = wire.Check{Details: "pending: record " + id + " is not anchored yet"}
	case e.anchorErr != nil:
		ch.Blockchain = wire.Check{Details: "Merkle proof failed: " + e.anchorErr.Error()}
	case !e.c.RootConfirmed:
		ch.Blockchain = wire.Check{Details: fmt.Sprintf("pending: Merkle proof verified (leaf %d of %d, root %s) but the root is not yet confirmed in tx %s",
			a.LeafIndex, a.TreeSize, a.Root, a.TxHash)}
	default:
		ch.Blockchain = wire.Check{Passed: true, Details: fmt.Sprintf("Merkle proof verified: leaf %d of %d under root %s, anchored in tx %s (block %d)",
			a.LeafIndex, a.TreeSize, a.Root, a.TxHash, a.BlockNumber)}
	}
	return ch
}

func noMatchChecks(f Facts, e *eval, near int) wire.Checks {
	ch := wire.Checks{
		SHA256:         wire.Check{Details: "no signed record has this SHA-256"},
		PerceptualHash: wire.Check{Details: "no signed record has a near perceptual hash"},
		Blockchain:     wire.Check{Details: "no record to check"},
		Watermark:      wire.Check{Details: "no watermark detected"},
	}
	if f.Watermark.Found {
		ch.Watermark.Details = fmt.Sprintf("watermark payload %s found but matches no signed record", hex.EncodeToString(f.Watermark.Payload))
	}
	if e != nil {
		ch.PerceptualHash.Details = fmt.Sprintf("closest record %s at distance %d/256, above threshold %d", e.rec.ID, e.dist, near)
	}
	return ch
}

// Wire returns the verify response fields the verdict determines:
// authentic, confidence, checks, blockchain_tx, timestamp and record_id.
// The origin fills origin and signer from its key registry.
func (r Result) Wire() wire.VerifyResponse {
	w := wire.VerifyResponse{Authentic: r.Authentic, Confidence: r.Confidence, Checks: r.Checks}
	if r.Record != nil && r.Match != MatchNone {
		w.RecordID = r.Record.ID.String()
		w.Timestamp = r.Record.Timestamp.UTC().Format(record.TimeFormat)
		if r.Anchored {
			w.BlockchainTx = r.TxHash
		}
	}
	return w
}
