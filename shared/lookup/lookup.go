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
	"strings"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/record"
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
		if *t.dst, err = time.Parse(time.RFC3339Nano, t.s); err != nil {
			return nil, errorf("time " + t.s + " is not RFC 3339")
		}
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
		BlockNumber: wa.BlockNumber, Network: wa.Network, AuditPath: make([]merkle.Hash, len(wa.AuditPath))}
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
}

// Decide checks every candidate of resp (see [Check]; at most
// lim.MaxCandidates times 9, the records and their parents, in the
// answer's order)
// and computes the verify response the origin gives for a file with facts
// f. It mirrors the origin's verification step by step: a file
// byte-identical to the output of a record the service signed takes that
// record's perceptual hash and payload; the candidates are scored without
// anchors to choose the record, which is then scored alone with its anchor.
// The numbered steps below are content.VerifyFacts's, in its order; a
// change to one is a change to both (content's TestLookupDecideEqualsVerify
// fails otherwise).
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
	// Step 1 (content.Verify, exactFacts): the signed output of a record
	// the service signed is answered from that record's signed facts.
	shortcut := ""
	for _, c := range cands {
		if c.Wire.Source == "sign" && c.Record.SHA256 == f.SHA256 {
			f.PHash, f.Watermark, shortcut = c.Record.PerceptualHash, verdict.Watermark{}, c.Wire.RecordID
			if len(c.Record.WatermarkPayload) > 0 {
				f.Watermark = verdict.Watermark{Found: true, Payload: c.Record.WatermarkPayload}
			}
			break
		}
	}
	// Step 2 (VerifyFacts): choose among all candidates, without anchors.
	vf := f.Verdict()
	opts := verdict.Options{MaxCandidates: len(cands)}
	vc := make([]verdict.Candidate, len(cands))
	for i, c := range cands {
		vc[i] = c.Candidate
		vc[i].Anchor, vc[i].RootConfirmed = nil, false
	}
	res := verdict.Decide(vf, vc, opts)
	if res.Record == nil || res.Match == verdict.MatchNone || res.Index < 0 {
		out.Response, out.Match = res.Wire(), res.Match
		return out
	}
	best, res0Index := cands[res.Index], res.Index
	chain, original := res.Chain, res.Original
	// Step 3: score the chosen record alone with its anchoring state.
	state, detail := best.Wire.AnchorState, best.Wire.AnchorDetail
	one := best.Candidate
	if state == wire.AnchorUnavailable {
		one.Anchor, one.RootConfirmed = nil, false
	}
	res = verdict.Decide(vf, []verdict.Candidate{one}, opts)
	res.Index, res.Chain, res.Original = 0, chain, original
	// Step 4: hash matches with other records of the chain stay visible.
	for _, l := range chain {
		if l.Index == res0Index {
			continue
		}
		id := cands[l.Index].Wire.RecordID
		for _, ev := range l.Evidence {
			switch ev {
			case verdict.EvidenceSHA256:
				res.Checks.SHA256.Details += "; the file is byte-identical to record " + id + " (" + string(l.Relation) + ", see chain)"
			case verdict.EvidenceOriginalSHA256:
				res.Checks.SHA256.Details += "; the file is the original upload of record " + id + " (" + string(l.Relation) + ", see chain; the service's word, not covered by a signature)"
			}
		}
	}
	// Step 5: the shortcut's watermark detail.
	if shortcut == best.Wire.RecordID && res.Checks.Watermark.Passed {
		res.Checks.Watermark.Details = "watermark payload " + hex.EncodeToString(best.Record.WatermarkPayload) + " of record " + shortcut +
			": the file is byte-identical to the signed output, which carries it (not re-extracted)"
	}
	// Step 6: the origin's anchoring outcome.
	switch state {
	case wire.AnchorVerified:
	case wire.AnchorInvalid:
		res.Authentic, res.Confidence = false, 0
		res.Checks.Blockchain = wire.Check{Details: "anchoring proof invalid: " + detail}
	default:
		if !res.Checks.Blockchain.Passed && detail != "" && !strings.HasPrefix(res.Checks.Blockchain.Details, "Merkle proof failed") {
			res.Checks.Blockchain.Details = detail
		}
	}
	// Step 7: display fields as the origin knows them.
	w := res.Wire()
	o := best.Wire.Origin
	w.Origin = &o
	s := best.Wire.Signer
	w.Signer = &s
	for i := range w.Chain {
		w.Chain[i].OrgName = cands[chain[i].Index].Wire.Signer.OrgName
	}
	out.Response, out.Match, out.Revoked, out.Anchored = w, res.Match, res.Revoked, res.Anchored
	return out
}
