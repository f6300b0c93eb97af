// Package lookup turns a lookup answer (wire.LookupResponse: the candidate
// records the origin found for a file's facts) into the verify response,
// without trusting the answer: every candidate's Ed25519 signature and
// Merkle inclusion proof is checked here, then [verdict.Decide] scores the
// candidates exactly as the origin's POST /api/v1/verify does. The
// browser's WebAssembly module and any edge run this; only the chain
// confirmation of a Merkle root (root_confirmed) is the origin's word.
package lookup

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/rfc3339"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/wire"
)

// Rejection says why a candidate of the answer was not trusted.
type Rejection struct {
	RecordID string `json:"record_id"`
	// Dropped is true when the candidate was left out of the verdict (its
	// signature or encoding is bad); false when it was scored but its
	// anchor proof failed, which makes any verdict on it not authentic.
	Dropped bool   `json:"dropped"`
	Reason  string `json:"reason"`
}

// Candidate is a lookup candidate whose signature verified.
type Candidate struct {
	verdict.Candidate
	Record *record.Record
	Wire   *wire.LookupCandidate
	// ProofErr is non-nil when the answer's anchor proof does not verify.
	ProofErr error
	// KeyRevocation is what the revocation of the record's signing key
	// decided ([DecideKey]), nil when the key is not revoked.
	KeyRevocation *wire.KeyRevocation
}

// ErrCandidate is wrapped by [Check] errors.
var ErrCandidate = errors.New("lookup: bad candidate")

// Check parses one candidate and verifies its signature, that the summary
// fields agree with the signed bytes, and its anchor proof (at most
// lim.MaxProofLen hashes). f is the file's facts (an original match is
// evidence only for that sha256). The returned error means the candidate
// must be dropped; a failing anchor proof is reported in ProofErr instead.
func Check(f facts.Facts, w *wire.LookupCandidate, lim limits.Limits) (*Candidate, error) {
	b, err := base64.StdEncoding.DecodeString(w.Record)
	if err != nil {
		return nil, errorf("record is not base64")
	}
	sig, err := hex.DecodeString(w.SignatureHex)
	if err != nil {
		return nil, errorf("signature_hex is not hex")
	}
	sg := record.Signed{Bytes: b, Signature: sig}
	rec, err := record.Verify(sg)
	if err != nil {
		return nil, errorf("signature: " + err.Error())
	}
	if w.RecordID != rec.ID.String() {
		return nil, errorf("record_id " + w.RecordID + " is not the signed record's " + rec.ID.String())
	}
	if pk, err := hex.DecodeString(w.SignerPublicKey); err != nil || !bytes.Equal(pk, rec.SignerPublicKey) {
		return nil, errorf("signer_public_key is not the signed record's key")
	}
	c := &Candidate{Record: rec, Wire: w}
	c.Signed = sg
	c.ParentID = w.ParentRecordID
	c.NoWatermarkReason = w.WatermarkReason
	switch w.Status {
	case wire.RecordActive, "":
	case wire.RecordRevoked:
		c.Revoked, c.RevokedReason = true, w.RevokedReason
	default:
		return nil, errorf("status " + w.Status)
	}
	for _, t := range []struct {
		s   string
		dst *time.Time
	}{{w.RevokedAt, &c.RevokedAt}, {w.CreatedAt, &c.CreatedAt}, {w.AnchoredAt, &c.AnchoredAt}} {
		if t.s == "" {
			continue
		}
		if *t.dst, err = rfc3339.Parse(t.s); err != nil {
			return nil, errorf("time " + t.s + " is not RFC 3339")
		}
	}
	kt, err := ParseKeyState(w.SigningKey)
	if err != nil {
		return nil, errorf(err.Error())
	}
	c.KeyRevocation = DecideKey(kt, w.Source, c.CreatedAt, c.AnchoredAt)
	if !c.KeyRevocation.Valid() && !c.Revoked {
		// A record its signing key's revocation invalidates reads as
		// revoked, with the reason, in every check: as on the origin.
		c.Revoked, c.RevokedReason = true, c.KeyRevocation.Detail
	}
	if w.OriginalMatch {
		c.OriginalSHA256 = f.SHA256
	}
	if wa := w.Anchor; wa != nil {
		a, err := anchorFromWire(wa, lim)
		if err != nil {
			return nil, err
		}
		c.Anchor = a
		c.RootConfirmed = w.RootConfirmed && w.AnchorState == wire.AnchorVerified
		c.ProofErr = a.Verify(sg.LeafHash())
	}
	return c, nil
}

func errorf(s string) error { return &candErr{s} }

type candErr struct{ s string }

func (e *candErr) Error() string { return ErrCandidate.Error() + ": " + e.s }
func (e *candErr) Unwrap() error { return ErrCandidate }

func anchorFromWire(wa *wire.Anchor, lim limits.Limits) (*record.Anchor, error) {
	if len(wa.AuditPath) > lim.MaxProofLen {
		return nil, errorf("audit path longer than the proof limit")
	}
	a := &record.Anchor{BatchID: wa.BatchID, LeafIndex: wa.LeafIndex, TreeSize: wa.TreeSize, TxHash: wa.TxHash,
		BlockNumber: wa.BlockNumber, Network: wa.Network, ChainID: wa.ChainID, BlockHash: wa.BlockHash,
		AuditPath: make([]merkle.Hash, len(wa.AuditPath))}
	var err error
	if a.Root, err = merkle.ParseHash(wa.MerkleRoot); err != nil {
		return nil, errorf("merkle_root: " + err.Error())
	}
	for i, s := range wa.AuditPath {
		if a.AuditPath[i], err = merkle.ParseHash(s); err != nil {
			return nil, errorf("audit_path: " + err.Error())
		}
	}
	return a, nil
}

// maxParents is how many parent links the origin follows from each
// candidate.
const maxParents = 8

// Result is the outcome of [Decide].
type Result struct {
	Response wire.VerifyResponse
	// Match, Revoked and Anchored summarise the verdict for a badge.
	Match    verdict.Match
	Revoked  bool
	Anchored bool
	// Rejected lists the candidates the answer carried that did not check.
	Rejected []Rejection
	// ExactSigned is the id of the record this service signed whose
	// signed SHA-256 is the file's (its signature checked here), "" when
	// none: the file is byte for byte that record's signed output, so the
	// service's own reading of those bytes (the answer's c2pa member) is
	// about this very file.
	ExactSigned string
}

// Decide checks every candidate of resp (see [Check]; at most
// lim.MaxCandidates times 9, the records and their parents, in the
// answer's order)
// and computes the verify response the origin gives for a file with facts
// f, with the same code: [Resolve], which content.VerifyFacts calls too.
// A file byte-identical to the output of a record the service signed takes
// that record's perceptual hash, and its watermark check passes with the
// payload the service embedded in those bytes, as on the origin. When f
// carries no C2PA facts (the client did not read the manifest), such a
// file's c2pa member is the one the answer carries (resp.C2PA: the
// service's reading of the very bytes it signed); any other file's is
// then absent.
func Decide(f facts.Facts, resp wire.LookupResponse, lim limits.Limits) Result {
	var out Result
	var cands []*Candidate
	// The origin answers at most MaxCandidates records plus up to 8
	// parents of each (its parent depth); more is not an honest answer.
	max := lim.MaxCandidates * (1 + maxParents)
	for i := range resp.Candidates {
		w := &resp.Candidates[i]
		if len(cands) >= max {
			out.Rejected = append(out.Rejected, Rejection{RecordID: w.RecordID, Dropped: true, Reason: "more candidates than the limit"})
			continue
		}
		c, err := Check(f, w, lim)
		if err != nil {
			out.Rejected = append(out.Rejected, Rejection{RecordID: w.RecordID, Dropped: true, Reason: err.Error()})
			continue
		}
		if c.ProofErr != nil {
			out.Rejected = append(out.Rejected, Rejection{RecordID: w.RecordID, Reason: "anchor proof: " + c.ProofErr.Error()})
		}
		cands = append(cands, c)
	}
	// The origin answers the signed output of a record it signed from
	// that record's signed perceptual hash, without extracting the
	// watermark (content.Verify); Resolve reports the embedded payload.
	shortcut := ""
	for _, c := range cands {
		if c.Wire.Source == "sign" && c.Record.SHA256 == f.SHA256 {
			f.PHash, shortcut = c.Record.PerceptualHash, c.Wire.RecordID
			break
		}
	}
	claims := make([]Claim, len(cands))
	for i, c := range cands {
		claims[i] = Claim{Candidate: c.Candidate, RecordID: c.Wire.RecordID, Source: c.Wire.Source, Signer: c.Wire.Signer, Origin: c.Wire.Origin,
			KeyRevocation: c.KeyRevocation}
	}
	o := Resolve(Input{Facts: f.Verdict(), Shortcut: shortcut, Claims: claims, C2PA: f.C2PA, C2PACA: resp.C2PACA, Anchoring: func(i int) Anchoring {
		c := cands[i]
		a := Anchoring{State: c.Wire.AnchorState, Detail: c.Wire.AnchorDetail, Anchor: c.Anchor, RootConfirmed: c.RootConfirmed, Network: c.Wire.Network}
		if a.State == wire.AnchorUnavailable {
			a.Anchor, a.RootConfirmed = nil, false
		}
		return a
	}})
	out.Response, out.Match, out.Revoked, out.Anchored = o.Response, o.Match, o.Revoked, o.Anchored
	out.ExactSigned = shortcut
	if out.Response.C2PA == nil && f.C2PA == nil && shortcut != "" && resp.C2PA != nil {
		// The client did not read the manifest; the service read it from
		// the bytes it signed, which are the file's (ExactSigned).
		m := *resp.C2PA
		out.Response.C2PA = &m
	}
	return out
}
