// Package verdict turns the facts computed from a file and the candidate
// records found for it into the four checks of a verification (watermark,
// sha256, perceptual_hash, blockchain), an authenticity verdict and a
// confidence. [Decide] is a pure function: no I/O, no clock, no randomness,
// so the origin, the edge and the browser (WebAssembly) give byte-identical
// verdicts for the same inputs.
//
// Scoring (see docs/verification.md for the rationale). Authentic is
// earned by what the signature covers: the signed SHA-256, or the
// record's watermark together with its local signatures (canonical
// version 3) compared block by block ([Match]). Confidences are computed
// in hundredths, so every platform gives the same number:
//
//   - A candidate counts only if its Ed25519 signature verifies.
//   - Exact SHA-256 match (MatchExact): the file is the signed file.
//     Authentic, confidence 0.98, 1.00 once anchored on a public chain.
//   - Watermark and every local signature (MatchReencoded): the whole
//     signed picture after re-encoding or resizing. Authentic, 0.85..0.95
//     falling with the perceptual distance, minus 0.01 per two corrected
//     watermark bit errors (at most 0.05), +0.03 once anchored on a public
//     chain.
//   - Watermark and every overlapping local signature (MatchCrop): part of
//     the signed picture. Authentic, 0.80..0.95 with the share of the signed
//     picture shown, the same bit-error penalty and anchoring bonus.
//   - Watermark but some local signatures differ (MatchEdited): the signed
//     picture, edited. Not authentic, 0.30.
//   - Watermark in a picture whose local signatures do not match, or that
//     does not fit the signed grid, or a watermark alone with a far
//     perceptual hash (MatchMismatch): a transplanted mark. Not authentic,
//     0.05.
//   - Perceptual hash near (256-bit distance <= threshold) and nothing the
//     signature covers shows the picture is the signed one (MatchPerceptual,
//     also a watermark on a record without local signatures): a derivative
//     or a look-alike. Not authentic, 0.45 with the record's watermark,
//     else 0.20..0.45 falling with distance.
//   - Nothing: not authentic, confidence 0.
//   - A revoked record is never authentic (confidence 0); the details say
//     that it was revoked, when and why.
//   - An anchoring proof that does not verify makes the result not authentic
//     (the evidence is inconsistent), confidence 0.
//   - The blockchain check passes only when the record's leaf verifies by
//     its Merkle audit path against a root confirmed on chain; otherwise it
//     reports pending.
//   - An anchor on a chain that is not public (Candidate.LocalChain, the
//     embedded development chain) passes the blockchain check but adds no
//     confidence: the "once anchored" bonuses need a public chain.
//   - A match by the uploaded original's SHA-256 only (the service's word,
//     not covered by the signature) is authentic at ConfidenceOriginal at
//     most, and its blockchain check does not pass.
//   - No endorsement without authenticity: when the verdict is not
//     authentic no check passes, and the record found is reported in
//     Result.Resembles, never as the file's record.
//   - A file that matches nothing names no record.
package verdict

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/rfc3339"
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
	// Local is the file's probe for the local-signature comparison (its
	// small luminance plane and the watermark's alignment); nil when no
	// watermark was found or the host did not compute it, in which case
	// no watermark match can be shown to be the signed picture.
	Local *localsig.Probe
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
	// LocalChain is true when Anchor is on a chain that is not public
	// (wire.Network.Public false, or not known): its proof still passes
	// the blockchain check, which shows order and integrity within the
	// service, but it is no public timestamp, so it adds no confidence.
	LocalChain bool

	// The fields below are what the service knows beside the signed bytes;
	// they order competing claims (see [Decide]) and are zero when unknown.

	// OriginalSHA256 is the SHA-256 of the file the signer uploaded before
	// watermarking. The signature does not cover it: a match is evidence
	// weighed below a watermark or a signed SHA-256 of another record.
	OriginalSHA256 [32]byte
	// CreatedAt is when the service stored the record, by its own clock
	// (never the record's own timestamp claim).
	CreatedAt time.Time
	// AnchoredAt is when the record's batch was anchored on chain; zero
	// while pending.
	AnchoredAt time.Time
	// ParentID is the record this one was signed as a derivative of, as the
	// service stored it; a parent inside the signed record (canonical
	// version 2) takes precedence.
	ParentID string
	// NoWatermarkReason is the service's reason a record without a
	// watermark payload has none (a picture too small to carry one when
	// signed); empty when unknown.
	NoWatermarkReason string
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

// Match kinds, weakest first. Their names are the verify response's
// `match` member (docs/verification.md, "Local signatures").
const (
	MatchNone Match = iota // no candidate links to the file
	// MatchPerceptual: the perceptual hash is near and nothing the
	// signature covers shows the file to be the signed picture (also a
	// watermark match on a record without local signatures, or whose
	// content could not be compared).
	MatchPerceptual
	// MatchMismatch: the record's watermark is in the file but the
	// picture is not the signed picture (transplanted mark).
	MatchMismatch
	// MatchEdited: the record's watermark, and most of the signed
	// picture's local signatures, but some blocks changed.
	MatchEdited
	// MatchContained: the record's watermark and every local signature
	// of the signed picture, found inside a larger file (a caption bar,
	// a border with text, a screenshot): authentic for the signed picture
	// only; the surroundings are not vouched for.
	MatchContained
	// MatchCrop: the record's watermark and every overlapping local
	// signature: part of the signed picture.
	MatchCrop
	// MatchReencoded: the record's watermark and every local signature:
	// the whole signed picture, re-encoded or resized.
	MatchReencoded
	// MatchExact: SHA-256 equal.
	MatchExact
)

var matchNames = [...]string{"none", "perceptual", "mismatch", "edited", "contained", "crop", "reencoded", "exact"}

func (m Match) String() string {
	if m < 0 || int(m) >= len(matchNames) {
		return fmt.Sprintf("Match(%d)", int(m))
	}
	return matchNames[m]
}

// Relation is how a record of a provenance chain relates to the file's
// original.
type Relation string

// Relations of a chain link.
const (
	// RelOriginal: the first claim, the record the file's provenance
	// starts from.
	RelOriginal Relation = "original"
	// RelDerivative: signed later as a derivative (its parent link leads to
	// another record of the chain).
	RelDerivative Relation = "derivative"
	// RelResignedCopy: a later record of the same content with no parent
	// link: a re-signature of someone's content, never its origin.
	RelResignedCopy Relation = "resigned_copy"
	// RelEarlierMatch: an earlier record linked only by weaker evidence
	// (perceptual hash, original upload) while the watermark in the
	// picture names another record.
	RelEarlierMatch Relation = "earlier_match"
)

// Evidence kinds that link a file to a record.
const (
	EvidenceWatermark      = "watermark"
	EvidenceSHA256         = "sha256"
	EvidenceOriginalSHA256 = "original_sha256"
	EvidencePerceptualHash = "perceptual_hash"
	EvidenceParentLink     = "parent_link"
)

// Link is one record of a provenance chain.
type Link struct {
	// Index is the record's position in the candidates.
	Index    int
	Record   *record.Record
	Relation Relation
	// Evidence names what linked the record: to the file (watermark,
	// sha256, original_sha256, perceptual_hash) or to another record of
	// the chain (parent_link).
	Evidence []string
	ParentID string
	// CreatedAt and AnchoredAt are the candidate's service times.
	CreatedAt  time.Time
	AnchoredAt time.Time
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
	// ByOriginal is true when the file matched the record only by the
	// SHA-256 of its uploaded original.
	ByOriginal bool
	// AnchoredAt is the chosen candidate's anchoring time (zero while
	// pending): the time of record once the blockchain check passed.
	AnchoredAt time.Time
	// Resembles is set when the verdict is not authentic but a record was
	// linked to the file: what was found, not the file's record.
	Resembles *wire.Resemblance
	Checks    wire.Checks
	// Chain lists, oldest claim first, every record linked to the file or
	// to the chosen record by a parent link, when there is more than one.
	// Original is the index in Chain of the chain's original, -1 without
	// a chain.
	Chain    []Link
	Original int

	// local and grid are the chosen candidate's local-signature
	// comparison and grid, when compared.
	local *localsig.Result
	grid  *localsig.Grid
}

// eval is one candidate scored.
type eval struct {
	idx       int
	rec       *record.Record
	c         *Candidate
	match     Match
	shaEq     bool
	origEq    bool
	wmEq      bool
	dist      int
	near      bool
	anchorErr error // non-nil: proof present and failing
	anchored  bool
	parent    string // parent record id, signed or stored
	// local is the local-signature comparison (nil when the record has
	// no grid or the file no probe); grid is the record's grid.
	local *localsig.Result
	grid  *localsig.Grid
}

// Decide scores every candidate (up to the limit) and returns the verdict
// for the chosen one. Candidates with an invalid signature are ignored.
//
// Which record answers: the candidates are ordered by [Strength] of the
// evidence linking them to the file (what the signature covers first, the
// service's record of an uploaded original last); among equal evidence an
// active record before a revoked one (a revocation withdraws only the
// revoker's own claim); then the earliest claim in [Earlier] order (who
// signed first); then a parent before its derivative, the stronger
// [Match], the smaller perceptual distance, and finally the signature
// bytes, so that the answer never depends on record ids or on the order
// of the candidates.
//
// When more than one record is involved (several linked records, or a
// parent link from the chosen record to an earlier one among the
// candidates), Result.Chain lists them oldest first with their relation
// to the original: the first claim in "who signed first" order (the
// watermark in the picture, else the earliest claim) and its ancestors.
// The original need not be the record that answers: a later record whose
// evidence is stronger answers, and the chain still names who claimed the
// picture first.
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
	evals := make([]*eval, len(cands))
	var best, first *eval
	for i := range cands {
		e := score(f, i, &cands[i], near)
		evals[i] = e
		if e == nil || e.match == MatchNone {
			continue
		}
		if best == nil || before(e, best) {
			best = e
		}
		if first == nil || claimedBefore(e, first) {
			first = e
		}
	}
	r := result(f, best, near)
	shapeOriginalOnly(&r, best)
	shapeNotAuthentic(&r, best, near)
	r.Chain, r.Original = chain(evals, first)
	return r
}

// Earlier reports whether claim a precedes claim b: anchored records by
// their anchoring time, before records still pending, which go by the
// service's creation time. Batches are anchored in creation order, so this
// is creation order whenever anchoring keeps up; once anchored, the chain's
// time is the proof a third party can check.
func Earlier(a, b *Candidate) bool {
	aa, ba := !a.AnchoredAt.IsZero(), !b.AnchoredAt.IsZero()
	switch {
	case aa && ba && !a.AnchoredAt.Equal(b.AnchoredAt):
		return a.AnchoredAt.Before(b.AnchoredAt)
	case aa != ba:
		return aa
	}
	return a.CreatedAt.Before(b.CreatedAt)
}

// Claim is what the "who signed first" rule reads of a record: the
// service's times (Earlier) and the record's id and parent record id.
type Claim struct {
	ID, Parent            string
	CreatedAt, AnchoredAt time.Time
}

// SignedFirst is the "who signed first" rule, the one every surface
// applies (verification's original and answer, the sign-time parent):
// the earlier claim by the service's times (Earlier); between claims of
// equal time, a parent before its own derivative, then a record without a
// parent before one with. It returns -1 when a goes first, 1 when b does,
// and 0 when the rule cannot tell them apart (the caller's own tie rules
// apply).
func SignedFirst(a, b Claim) int {
	ca := Candidate{CreatedAt: a.CreatedAt, AnchoredAt: a.AnchoredAt}
	cb := Candidate{CreatedAt: b.CreatedAt, AnchoredAt: b.AnchoredAt}
	switch {
	case Earlier(&ca, &cb):
		return -1
	case Earlier(&cb, &ca):
		return 1
	}
	if pa, pb := b.Parent != "" && b.Parent == a.ID, a.Parent != "" && a.Parent == b.ID; pa != pb {
		if pa {
			return -1
		}
		return 1
	}
	if (a.Parent == "") != (b.Parent == "") {
		if a.Parent == "" {
			return -1
		}
		return 1
	}
	return 0
}

// claim is e's record as SignedFirst reads it.
func (e *eval) claim() Claim {
	return Claim{ID: e.rec.ID.String(), Parent: e.parent, CreatedAt: e.c.CreatedAt, AnchoredAt: e.c.AnchoredAt}
}

// Evidence strengths, weakest first (see [Strength]).
const (
	StrengthNone       = 0
	StrengthOriginal   = 1 // only the service's record of the uploaded original
	StrengthPerceptual = 2 // a near perceptual hash (the signed hash of a similar picture)
	StrengthWatermark  = 4 // the record's watermark in a picture that is not the signed picture
	StrengthSigned     = 6 // the signed SHA-256, or the watermark in the signed picture
)

// Strength ranks the evidence linking a file to a record: the signed
// SHA-256 or the record's watermark in its own picture (StrengthSigned),
// then a watermark alone, then a near perceptual hash; a match of the
// uploaded original's hash, which the signature does not cover, adds
// StrengthOriginal to what the signature covers, so it decides only
// between records the signed evidence ranks equally.
func Strength(shaEq, wmEq, near, origEq bool) int {
	s := StrengthNone
	switch {
	case shaEq || (wmEq && near):
		s = StrengthSigned
	case wmEq:
		s = StrengthWatermark
	case near:
		s = StrengthPerceptual
	}
	if origEq {
		s += StrengthOriginal
	}
	return s
}

func (e *eval) strength() int {
	s := Strength(e.shaEq, e.wmEq, e.near, e.origEq)
	// A watermark ranks as signed evidence only when the local signatures
	// show the picture is the signed one (authentic is earned by what the
	// signature covers).
	if !e.shaEq && e.wmEq && !e.contentShown() && s >= StrengthSigned {
		s -= StrengthSigned - StrengthWatermark
	}
	return s
}

// before is the choice order documented on [Decide].
func before(a, b *eval) bool {
	if sa, sb := a.strength(), b.strength(); sa != sb {
		return sa > sb
	}
	if a.c.Revoked != b.c.Revoked {
		return !a.c.Revoked
	}
	if o := SignedFirst(a.claim(), b.claim()); o != 0 {
		return o < 0
	}
	return nearerFirst(a, b)
}

// nearerFirst is the tie rule after the evidence and the claim order: the
// stronger match, then the nearer hash, then lastResort.
func nearerFirst(a, b *eval) bool {
	if a.match != b.match {
		return a.match > b.match
	}
	if a.dist != b.dist {
		return a.dist < b.dist
	}
	return lastResort(a, b)
}

// lastResort orders otherwise equal candidates by their signatures:
// deterministic, and independent of record ids and of the order in which
// the candidates were found.
func lastResort(a, b *eval) bool {
	if c := bytes.Compare(a.c.Signed.Signature, b.c.Signed.Signature); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}

// claimedBefore is the "who signed first" order that picks the original
// of the provenance chain (not the record that answers, see [Decide]):
// the watermark in the picture first, then the earlier claim, then a
// parent before its derivative and a record without parent before one
// with, then the stronger match and the nearer hash.
func claimedBefore(a, b *eval) bool {
	if a.wmEq != b.wmEq {
		return a.wmEq
	}
	if o := SignedFirst(a.claim(), b.claim()); o != 0 {
		return o < 0
	}
	return nearerFirst(a, b)
}

// chain builds the provenance chain around best, the first claim among
// the linked candidates (its parents, if any, precede it).
func chain(evals []*eval, best *eval) ([]Link, int) {
	if best == nil || best.match == MatchNone {
		return nil, -1
	}
	byID := map[string]*eval{}
	for _, e := range evals {
		if e != nil {
			if _, dup := byID[e.rec.ID.String()]; !dup {
				byID[e.rec.ID.String()] = e
			}
		}
	}
	in := map[*eval]bool{}
	var members []*eval
	add := func(e *eval) {
		if !in[e] {
			in[e] = true
			members = append(members, e)
		}
	}
	for _, e := range evals {
		if e != nil && e.match != MatchNone {
			add(e)
		}
	}
	// Ancestors of every member, as far as the candidates reach (a cycle
	// cannot loop: each record is added once).
	root := best
	for i := 0; i < len(members); i++ {
		p, ok := byID[members[i].parent]
		for ok && !in[p] {
			add(p)
			p, ok = byID[p.parent]
		}
	}
	for seen := map[*eval]bool{root: true}; ; {
		p, ok := byID[root.parent]
		if !ok || seen[p] {
			break
		}
		seen[p], root = true, p
	}
	if len(members) < 2 {
		return nil, -1
	}
	sortEvals(members, root)
	links := make([]Link, len(members))
	orig := -1
	for i, e := range members {
		l := Link{Index: e.idx, Record: e.rec, ParentID: e.parent, CreatedAt: e.c.CreatedAt, AnchoredAt: e.c.AnchoredAt, Evidence: e.evidence()}
		if _, ok := byID[e.parent]; ok || len(l.Evidence) == 0 {
			// Linked to the chain through a parent link: its own, or (for an
			// ancestor with no evidence in the file) its child's.
			l.Evidence = append(l.Evidence, EvidenceParentLink)
		}
		switch {
		case e == root:
			l.Relation, orig = RelOriginal, i
		case descends(e, root, byID):
			l.Relation = RelDerivative
		case Earlier(e.c, root.c):
			l.Relation = RelEarlierMatch
		default:
			l.Relation = RelResignedCopy
		}
		links[i] = l
	}
	return links, orig
}

// descends reports whether e's parent links reach root.
func descends(e, root *eval, byID map[string]*eval) bool {
	seen := map[*eval]bool{}
	for p, ok := byID[e.parent]; ok && !seen[p]; p, ok = byID[p.parent] {
		if p == root {
			return true
		}
		seen[p] = true
	}
	return false
}

// sortEvals orders claims oldest first, the original first among claims
// of equal time (insertion sort: chains are short).
func sortEvals(es []*eval, root *eval) {
	less := func(a, b *eval) bool {
		if Earlier(a.c, b.c) {
			return true
		}
		if Earlier(b.c, a.c) {
			return false
		}
		if (a == root) != (b == root) {
			return a == root
		}
		return a.idx < b.idx
	}
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && less(es[j], es[j-1]); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

func (e *eval) evidence() []string {
	var ev []string
	if e.wmEq {
		ev = append(ev, EvidenceWatermark)
	}
	if e.shaEq {
		ev = append(ev, EvidenceSHA256)
	}
	if e.origEq {
		ev = append(ev, EvidenceOriginalSHA256)
	}
	if e.near {
		ev = append(ev, EvidencePerceptualHash)
	}
	return ev
}

// publicAnchor reports whether the candidate's anchor verified on a public
// chain, the only anchoring that adds confidence.
func (e *eval) publicAnchor() bool { return e.anchored && !e.c.LocalChain }

func score(f Facts, i int, c *Candidate, near int) *eval {
	rec, err := record.Verify(c.Signed)
	if err != nil {
		return nil
	}
	e := &eval{idx: i, rec: rec, c: c, parent: c.ParentID}
	if rec.Parent != nil {
		// A signed parent link (canonical version 2) is the signer's own
		// statement and wins over what the service stored beside it.
		e.parent = rec.Parent.String()
	}
	e.shaEq = f.SHA256 == rec.SHA256
	e.origEq = c.OriginalSHA256 != [32]byte{} && f.SHA256 == c.OriginalSHA256
	e.wmEq = f.Watermark.Found && len(rec.WatermarkPayload) > 0 && bytes.Equal(f.Watermark.Payload, rec.WatermarkPayload)
	e.dist = phash.Distance256(f.PHash.P256, rec.PerceptualHash.P256)
	e.near = e.dist <= near
	e.match = matchOf(f, e)
	if c.Anchor != nil {
		e.anchorErr = c.Anchor.Verify(c.Signed.LeafHash())
		e.anchored = e.anchorErr == nil && c.RootConfirmed
	}
	return e
}

func result(f Facts, e *eval, near int) Result {
	r := Result{Index: -1, Original: -1}
	if e == nil || e.match == MatchNone {
		r.Checks = noMatchChecks(f, near)
		return r
	}
	r.Index, r.Record, r.Match, r.Revoked = e.idx, e.rec, e.match, e.c.Revoked
	r.AnchoredAt = e.c.AnchoredAt
	r.ByOriginal = e.origEq && !e.shaEq
	r.Anchored = e.anchored
	if e.c.Anchor != nil {
		r.TxHash = e.c.Anchor.TxHash
	}
	r.Checks = checks(f, e, near)
	r.local, r.grid = e.local, e.grid
	localDetails(&r, e)

	// Confidence is computed in integer hundredths so that every platform
	// gives the same number.
	pct := 0
	switch e.match {
	case MatchExact:
		r.Authentic, pct = true, 98
		if e.publicAnchor() {
			pct = 100
		}
	default:
		r.Authentic, pct = localConfidence(f, e, near)
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
			revoked += " at " + rfc3339.Millis(e.c.RevokedAt.UTC())
		}
		if e.c.RevokedReason != "" {
			revoked += " (" + e.c.RevokedReason + ")"
		}
	}
	// watermark
	switch {
	case len(e.rec.WatermarkPayload) == 0:
		ch.Watermark = noWatermarkCheck(f, e)
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
	switch {
	case e.shaEq:
		ch.SHA256 = wire.Check{Passed: !e.c.Revoked, Details: "exact SHA-256 match with record " + id + revoked}
	case e.origEq:
		ch.SHA256 = wire.Check{Passed: !e.c.Revoked, Details: "exact SHA-256 match with the original (unwatermarked) file signed as record " + id +
			" (the original's hash is kept by the service, not covered by the signature)" + revoked}
	default:
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
	// blockchain (shared/lookup.Resolve adds the network to the details)
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

// noWatermarkCheck is the watermark check against a record signed
// without a watermark: not applicable, neither passed nor failed; the
// verdict rests on the other checks.
func noWatermarkCheck(f Facts, e *eval) wire.Check {
	d := "not applicable: record " + e.rec.ID.String() + " carries no watermark"
	if r := e.c.NoWatermarkReason; r != "" {
		d = "not applicable: " + r
	}
	if f.Watermark.Found {
		d += fmt.Sprintf(" (the file carries another watermark, payload %s)", hex.EncodeToString(f.Watermark.Payload))
	}
	return wire.Check{Details: d, NotApplicable: true}
}

// noMatchChecks are the checks of a file no record is linked to. They
// name no record: a picture that matches nothing says nothing about who
// signed what.
func noMatchChecks(f Facts, near int) wire.Checks {
	ch := wire.Checks{
		SHA256:         wire.Check{Details: "no signed record has this SHA-256"},
		PerceptualHash: wire.Check{Details: fmt.Sprintf("no signed record has a near perceptual hash (threshold %d/256)", near)},
		Blockchain:     wire.Check{Details: "no record to check"},
		Watermark:      wire.Check{Details: "no watermark detected"},
	}
	if f.Watermark.Found {
		ch.Watermark.Details = fmt.Sprintf("watermark payload %s found but matches no signed record", hex.EncodeToString(f.Watermark.Payload))
	}
	return ch
}

// ConfidenceOriginal is the confidence of a file linked to its record only
// by the service's record of the uploaded original: below every match the
// signature covers (a re-encoded copy starts at 0.85), never 1.
const ConfidenceOriginal = 0.80

// shapeOriginalOnly applies "private stays private" to a file matched only
// by the SHA-256 of the signer's unwatermarked upload: that hash is the
// service's own evidence, not covered by the signature or by the anchored
// leaf, so the answer is capped at ConfidenceOriginal, the blockchain
// check does not pass for the file, and the sha256 check says whose word
// it is.
func shapeOriginalOnly(r *Result, e *eval) {
	if e == nil || !r.ByOriginal {
		return
	}
	if e.wmEq && e.near {
		// The record's watermark in its own picture is covered by the
		// signature; only the exact-match bonus goes.
		r.Confidence = min(r.Confidence, 0.98)
		return
	}
	if r.Authentic {
		r.Confidence = ConfidenceOriginal
	}
	if r.Checks.Blockchain.Passed {
		a := e.c.Anchor
		r.Checks.Blockchain = wire.Check{Details: fmt.Sprintf("record %s is anchored (leaf %d of %d under root %s, tx %s); "+
			"the file is linked to it only by the service's record of the original upload, which the anchored record does not cover",
			e.rec.ID, a.LeafIndex, a.TreeSize, a.Root, a.TxHash)}
	}
	r.Anchored, r.TxHash = false, ""
}

// shapeNotAuthentic applies "no endorsement without authenticity": when
// the verdict is not authentic, no check passes (each says what it found
// about the record, not about the file) and what was found is reported as
// a [wire.Resemblance] instead of as the file's record.
func shapeNotAuthentic(r *Result, e *eval, near int) {
	if e == nil || r.Authentic || r.Match == MatchNone {
		return
	}
	id := e.rec.ID.String()
	notShown := "; record " + id + " is not shown to be this file"
	if r.Checks.Watermark.Passed {
		r.Checks.Watermark = wire.Check{Details: r.Checks.Watermark.Details + notShown}
	}
	if r.Checks.SHA256.Passed {
		r.Checks.SHA256 = wire.Check{Details: r.Checks.SHA256.Details + notShown}
	}
	if r.Checks.PerceptualHash.Passed {
		r.Checks.PerceptualHash = wire.Check{Details: r.Checks.PerceptualHash.Details + "; a look-alike is not proof of origin"}
	}
	if r.Checks.Blockchain.Passed {
		a := e.c.Anchor
		r.Checks.Blockchain = wire.Check{Details: fmt.Sprintf("record %s is anchored (tx %s, block %d); this file is not shown to be that record",
			id, a.TxHash, a.BlockNumber)}
	}
	r.Anchored = false
	r.Resembles = &wire.Resemblance{RecordID: id, ClaimedBy: e.rec.Org}
	switch {
	case e.c.Revoked:
		r.Resembles.Relation = wire.RelationRevoked
		r.Resembles.Detail = "the file matches record " + id + " by " + strings.Join(e.evidence(), ", ") + ", but its signer revoked it"
		if !e.c.RevokedAt.IsZero() {
			r.Resembles.Detail += " at " + rfc3339.Millis(e.c.RevokedAt.UTC())
		}
		if e.c.RevokedReason != "" {
			r.Resembles.Detail += " (" + e.c.RevokedReason + ")"
		}
	case e.anchorErr != nil:
		r.Resembles.Relation = wire.RelationProofInvalid
		r.Resembles.Detail = "the anchoring proof of record " + id + " does not verify: the evidence is inconsistent"
	case isLocal(e):
		r.Resembles.Relation, r.Resembles.Detail, _ = localRelation(e)
	case e.wmEq:
		r.Resembles.Relation = wire.RelationWatermarkTransplant
		r.Resembles.Detail = fmt.Sprintf("the file carries the watermark of record %s, but the picture is not the signed picture "+
			"(perceptual distance %d/256, threshold %d): the mark does not show who made this picture", id, e.dist, near)
	default:
		r.Resembles.Relation = wire.RelationPerceptualLookalike
		r.Resembles.Detail = fmt.Sprintf("the picture looks like record %s (perceptual distance %d/256) but carries neither its watermark nor its bytes: "+
			"it may be a derivative or a look-alike", id, e.dist)
	}
}

// Disown makes r a non-authentic answer for evidence found outside
// [Decide] (for example a chain client that finds the anchoring
// transaction invalid): confidence 0, no check passed, and the record
// reported as a [wire.Resemblance] with relation and detail.
func (r *Result) Disown(relation, detail string) {
	r.Authentic, r.Confidence, r.Anchored, r.TxHash = false, 0, false, ""
	for _, ch := range []*wire.Check{&r.Checks.Watermark, &r.Checks.SHA256, &r.Checks.PerceptualHash, &r.Checks.Blockchain} {
		ch.Passed = false
	}
	if r.Record == nil || r.Match == MatchNone {
		r.Resembles = nil
		return
	}
	r.Resembles = &wire.Resemblance{RecordID: r.Record.ID.String(), Relation: relation, ClaimedBy: r.Record.Org, Detail: detail}
}

// Wire returns the verify response fields the verdict determines:
// authentic, confidence, checks, blockchain_tx, timestamp, record_id and
// resembles. The origin fills origin and signer from its key registry,
// only for an authentic answer.
//
// record_id, timestamp and blockchain_tx are the file's only when the
// answer is authentic; otherwise the record found is in resembles. The
// timestamp is the time of record: the anchoring time once the blockchain
// check passed, else the time inside the signed record.
func (r Result) Wire() wire.VerifyResponse {
	w := wire.VerifyResponse{Authentic: r.Authentic, Confidence: r.Confidence, Checks: r.Checks}
	r.wireLocal(&w)
	if r.Record != nil && r.Match != MatchNone && r.Authentic {
		w.RecordID = r.Record.ID.String()
		w.Timestamp = rfc3339.Millis(r.Record.Timestamp.UTC())
		if r.Anchored {
			w.BlockchainTx = r.TxHash
			if !r.AnchoredAt.IsZero() {
				w.Timestamp = rfc3339.Millis(r.AnchoredAt.UTC())
			}
		}
	}
	if !r.Authentic && r.Resembles != nil {
		res := *r.Resembles
		w.Resembles = &res
	}
	if r.Original >= 0 && r.Original < len(r.Chain) {
		w.OriginalRecordID = r.Chain[r.Original].Record.ID.String()
	}
	for _, l := range r.Chain {
		cl := wire.ChainLink{RecordID: l.Record.ID.String(), OrgName: l.Record.Org, Relation: string(l.Relation),
			Evidence: l.Evidence, ParentRecordID: l.ParentID}
		if !l.CreatedAt.IsZero() {
			cl.CreatedAt = rfc3339.Millis(l.CreatedAt.UTC())
		}
		if !l.AnchoredAt.IsZero() {
			cl.AnchoredAt = rfc3339.Millis(l.AnchoredAt.UTC())
		}
		w.Chain = append(w.Chain, cl)
	}
	return w
}
