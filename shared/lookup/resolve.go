package lookup

import (
	"encoding/hex"
	"strings"

	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/rfc3339"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/wire"
)

// Claim is one candidate record as the deciding side knows it: the
// verdict inputs (its Anchor and RootConfirmed are ignored when choosing,
// see [Resolve]) and what the origin says beside the signed bytes.
type Claim struct {
	verdict.Candidate
	RecordID string
	// Source is "sign" or "register"; a registered record's signed
	// timestamp is the client's claim.
	Source string
	// Signer and Origin are the display fields of the signer as the origin
	// knows the account.
	Signer wire.Signer
	Origin wire.Origin
	// KeyRevocation is what the revocation of the record's signing key
	// decided ([DecideKey]; a not-valid decision is also in Candidate's
	// Revoked and RevokedReason), nil when the key is not revoked.
	KeyRevocation *wire.KeyRevocation
}

// Anchoring is the anchoring state of the chosen record.
type Anchoring struct {
	// State is one of wire.AnchorVerified, AnchorPending, AnchorInvalid or
	// AnchorUnavailable; Detail says why.
	State  string
	Detail string
	// Anchor and RootConfirmed are scored by the blockchain check.
	Anchor        *record.Anchor
	RootConfirmed bool
	// Network is the chain the origin anchors on; nil when unknown, which
	// counts as not public.
	Network *wire.Network
}

// Input is what [Resolve] turns into a verify response.
type Input struct {
	Facts verdict.Facts
	// Shortcut is the id of the record this service signed whose output is
	// byte-identical to the file: the file was not decoded, its perceptual
	// hash is the one the service computed on that output (already in
	// Facts), and its watermark was not extracted; when that record
	// answers authentic, the watermark check passes with the payload the
	// service embedded in those very bytes.
	Shortcut string
	// NotDecoded is true when the file could not be decoded as an image:
	// only its SHA-256 is known.
	NotDecoded bool
	Claims     []Claim
	// Anchoring answers the anchoring state of Claims[i]; it is asked only
	// for the chosen record.
	Anchoring func(i int) Anchoring
	// C2PA is the C2PA manifest the file carries (nil when none) and
	// C2PACA the origin's Provenant CA certificate (PEM) its trust is
	// decided against; the response's c2pa member comes from them.
	C2PA   *wire.C2PAFacts
	C2PACA string
}

// Outcome is the result of [Resolve].
type Outcome struct {
	Response wire.VerifyResponse
	Match    verdict.Match
	// Index is the chosen claim, -1 when none matched.
	Index      int
	ByOriginal bool
	Revoked    bool
	Anchored   bool
}

// Resolve is the one implementation of what verification does between
// "facts and candidates" and the verify response, for the origin
// (content.VerifyFacts) and for a client that checked the candidates
// itself ([Decide]): the claims are scored without anchors to choose the
// record, which is then scored alone with its anchoring state; hash
// matches with other records of the chain stay visible as details; facts
// that were not computed from the file say so (never copied from a
// record); an invalid anchoring proof disowns the record; signer, origin
// and the time of record are filled only for an authentic answer (a
// registered record's signed time is shown as claimed_timestamp).
func Resolve(in Input) Outcome {
	o := resolve(in)
	o.Response.C2PA = c2paMember(in.C2PA, in.C2PACA)
	return o
}

func resolve(in Input) Outcome {
	vf := in.Facts
	if in.Shortcut != "" || in.NotDecoded {
		vf.Watermark = verdict.Watermark{}
	}
	cands := in.Claims
	opts := verdict.Options{MaxCandidates: len(cands)}
	vc := make([]verdict.Candidate, len(cands))
	for i, c := range cands {
		vc[i] = c.Candidate
		vc[i].Anchor, vc[i].RootConfirmed = nil, false
	}
	res := verdict.Decide(vf, vc, opts)
	out := Outcome{Match: res.Match, Index: -1}
	if res.Record == nil || res.Match == verdict.MatchNone || res.Index < 0 {
		out.Response = res.Wire()
		notExtractedWire(&out.Response.Checks, in)
		return out
	}
	bi := res.Index
	best := cands[bi]
	out.Index, out.ByOriginal = bi, res.ByOriginal
	chain, original := res.Chain, res.Original
	st := in.Anchoring(bi)
	one := vc[bi]
	one.Anchor, one.RootConfirmed = st.Anchor, st.RootConfirmed
	one.LocalChain = st.Network == nil || !st.Network.Public
	res = verdict.Decide(vf, []verdict.Candidate{one}, opts)
	res.Index, res.Chain, res.Original = 0, chain, original
	for _, l := range chain {
		if l.Index == bi {
			continue
		}
		id := cands[l.Index].RecordID
		for _, ev := range l.Evidence {
			switch ev {
			case verdict.EvidenceSHA256:
				res.Checks.SHA256.Details += "; the file is byte-identical to record " + id + " (" + string(l.Relation) + ", see chain)"
			case verdict.EvidenceOriginalSHA256:
				res.Checks.SHA256.Details += "; the file is the original upload of record " + id + " (" + string(l.Relation) + ", see chain; the service's word, not covered by a signature)"
			}
		}
	}
	notExtractedWire(&res.Checks, in)
	if in.Shortcut != "" && in.Shortcut == best.RecordID && res.Authentic && len(res.Record.WatermarkPayload) > 0 && !res.Checks.Watermark.NotApplicable {
		// The file is byte for byte the output this service watermarked
		// and signed (the record's signed SHA-256, computed by the service
		// on its own output): the payload is in those bytes because the
		// service put it there. A registered record never takes this
		// path: its payload is the client's claim.
		res.Checks.Watermark = wire.Check{Passed: true, Details: "watermark payload " + hex.EncodeToString(res.Record.WatermarkPayload) +
			" embedded by the service in this exact file (record " + best.RecordID + "): the file is byte-identical to the output the service signed, so it was not decoded again (see the sha256 check)"}
	}
	switch st.State {
	case wire.AnchorVerified:
	case wire.AnchorInvalid:
		res.Disown(wire.RelationProofInvalid, "the anchoring proof of record "+best.RecordID+" is invalid: the evidence is inconsistent")
		res.Checks.Blockchain = wire.Check{Details: "anchoring proof invalid: " + st.Detail}
	default:
		if !res.Checks.Blockchain.Passed && st.Detail != "" && !strings.HasPrefix(res.Checks.Blockchain.Details, "Merkle proof failed") {
			res.Checks.Blockchain.Details = st.Detail
		}
	}
	resp := res.Wire()
	endorse(&resp, res, best)
	if kr := best.KeyRevocation; kr != nil {
		k := *kr
		resp.KeyRevocation = &k
	}
	nameNetwork(&resp, st)
	// The chain names each signer as the service knows the account (a
	// registered record's org field is the client's claim).
	for i := range resp.Chain {
		resp.Chain[i].OrgName = cands[chain[i].Index].Signer.OrgName
	}
	out.Response, out.Match, out.Revoked, out.Anchored = resp, res.Match, res.Revoked, res.Anchored
	return out
}

// nameNetwork says on which chain the chosen record is (or will be)
// anchored, in the response's network object and in the blockchain
// check's details, so that an anchor on a local chain never reads as a
// public timestamp. Nothing is said when the anchoring state could not be
// read.
func nameNetwork(resp *wire.VerifyResponse, st Anchoring) {
	if st.Network == nil || st.State == wire.AnchorUnavailable {
		return
	}
	n := *st.Network
	resp.Network = &n
	resp.Checks.Blockchain.Details += "; network: " + n.Label()
}

// notExtractedWire states in the checks which facts were not computed
// from the file.
func notExtractedWire(c *wire.Checks, in Input) {
	switch {
	case in.NotDecoded:
		c.Watermark = wire.Check{Details: "not extracted: the file could not be decoded as an image"}
		c.PerceptualHash = wire.Check{Details: "not computed: the file could not be decoded as an image"}
	case in.Shortcut != "" && !c.Watermark.NotApplicable:
		c.Watermark = wire.Check{Details: "not extracted: the file is byte-identical to the signed output of record " +
			in.Shortcut + ", so it was not decoded (see the sha256 check)"}
	}
}

// endorse fills signer, origin and the time of record from the chosen
// claim, only when the answer is authentic: when it is not, the record
// found is in resembles (claimed_by names its signer as the service knows
// the account) and nothing reads as the file's. A registered record's
// signed timestamp is shown as claimed_timestamp, and timestamp is the
// time of record: the anchoring time once anchored, else when the service
// received it.
func endorse(resp *wire.VerifyResponse, res verdict.Result, c Claim) {
	if !resp.Authentic {
		resp.Signer, resp.Origin, resp.BlockchainTx, resp.RecordID, resp.Timestamp = nil, nil, "", "", ""
		if resp.Resembles != nil {
			resp.Resembles.ClaimedBy = c.Signer.OrgName
		}
		return
	}
	o, s := c.Origin, c.Signer
	resp.Origin, resp.Signer = &o, &s
	if c.Source == "register" && res.Record != nil {
		resp.ClaimedTimestamp = rfc3339.Millis(res.Record.Timestamp.UTC())
		if !res.Anchored || res.AnchoredAt.IsZero() {
			resp.Timestamp = rfc3339.Millis(c.CreatedAt.UTC())
		}
	}
}
