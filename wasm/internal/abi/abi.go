// Package abi is what the WebAssembly module's exports do, as plain
// functions of bytes (JSON in, JSON out) so that they are tested natively
// and through the module alike. docs/widget.md documents every shape.
package abi

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"github.com/provenant/provenant/shared/c2pa/sniff"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/rfc3339"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/internal/reply"
	"github.com/provenant/provenant/wasm/internal/wirejson"
)

// Error codes of a failed call ("ok": false).
const (
	codeBadInput     = reply.CodeBadInput
	codeUnsupported  = reply.CodeUnsupported
	codeTooLarge     = reply.CodeTooLarge
	codeInvalidImage = reply.CodeInvalidImage
)

var (
	fail         = reply.Fail
	ok           = reply.OK
	decodeStrict = reply.DecodeStrict
)

type analyzeOut struct {
	OK    bool       `json:"ok"`
	Facts wire.Facts `json:"facts"`
	// Local is the picture's local-signature probe (a small thumbnail
	// and the watermark's alignment), present when a watermark was found:
	// the host passes it back to decide and never to the lookup.
	Local *wire.Probe `json:"local,omitempty"`
	// C2PAManifest says the file may carry a C2PA manifest
	// (shared/c2pa/sniff): its facts are not in facts.c2pa, the host gets
	// them from the C2PA module's c2pa_read and sets them there.
	C2PAManifest bool `json:"c2pa_manifest,omitempty"`
}

// Analyze computes the facts of the file in (shared/facts.Analyze) and
// returns {"ok":true,"facts":wire.Facts,"local":wire.Probe,
// "c2pa_manifest":bool} or {"ok":false,"error":{code,detail}}. The facts
// never carry the C2PA manifest's: c2pa_manifest says whether the host
// must get them from the C2PA module (at is the time a build with C2PA
// judges credentials at; the module reads none).
func Analyze(in []byte, lim limits.Limits, at time.Time) []byte {
	if in == nil {
		return fail(codeBadInput, "no input buffer (alloc it first)")
	}
	f, err := facts.Analyze(in, lim, at)
	return analyzed(f, err, in)
}

// analyzed is analyze's output for the facts of file (or the error
// computing them).
func analyzed(f facts.Facts, err error, file []byte) []byte {
	if err != nil {
		return imageFailure(err)
	}
	f.C2PA = nil
	return ok(analyzeOut{OK: true, Facts: f.Wire(), Local: f.WireProbe(), C2PAManifest: sniff.MayCarry(file)})
}

// DigestSize is the length of the SHA-256 that prefixes
// [AnalyzeHashed]'s input.
const DigestSize = 32

// AnalyzeHashed is [Analyze] for a host that has hashed the file itself:
// in is the file's SHA-256 (32 bytes) followed by the file, and the
// output is Analyze's for the file, with facts.sha256 that digest. The
// module does not check it (hashing again is the cost this call saves):
// the host is the party that runs the module and answers for its own
// input, exactly as for the file's bytes. A digest that is not the file's
// gives facts for another file, whose exact match the lookup would then
// report, so a host that cannot vouch for the digest calls analyze.
func AnalyzeHashed(in []byte, lim limits.Limits, at time.Time) []byte {
	if in == nil {
		return fail(codeBadInput, "no input buffer (alloc it first)")
	}
	if len(in) < DigestSize {
		return fail(codeBadInput, "input shorter than the 32-byte SHA-256 that must prefix the file")
	}
	var sum [DigestSize]byte
	copy(sum[:], in)
	file := in[DigestSize:]
	f, err := facts.AnalyzeSum(file, sum, lim, at)
	return analyzed(f, err, file)
}

// imageFailure maps an imagex error to the call's error code.
func imageFailure(err error) []byte {
	switch {
	case errors.Is(err, imagex.ErrUnsupportedFormat):
		return fail(codeUnsupported, err.Error())
	case errors.Is(err, imagex.ErrTooLarge), errors.Is(err, imagex.ErrTooManyPixels):
		return fail(codeTooLarge, err.Error())
	}
	return fail(codeInvalidImage, err.Error())
}

type decideIn struct {
	Facts  wire.Facts          `json:"facts"`
	Lookup wire.LookupResponse `json:"lookup"`
	// Local is analyze's local member; without it a watermark match
	// cannot be shown to be the signed picture (docs/verification.md).
	Local *wire.Probe `json:"local,omitempty"`
}

// DecideOut is decide's answer on success (a host's tests read it back
// through this type).
type DecideOut struct {
	OK     bool                `json:"ok"`
	Result wire.VerifyResponse `json:"result"`
	// Match, Revoked and Anchored summarise the verdict for a badge.
	Match    string             `json:"match"`
	Revoked  bool               `json:"revoked"`
	Anchored bool               `json:"anchored"`
	Rejected []lookup.Rejection `json:"rejected"`
	// ExactSigned is the record this service signed whose signed output
	// the file is, byte for byte (lookup.Result.ExactSigned).
	ExactSigned string `json:"exact_signed,omitempty"`
}

// Decide takes {"facts":wire.Facts,"lookup":wire.LookupResponse,
// "local":wire.Probe}, checks every candidate's signature and anchor
// proof and returns the verify response shared/lookup.Decide computes,
// with a badge summary and the rejected candidates. Without local (the
// probe analyze returned) a watermark match cannot be shown to be the
// signed picture: the module keeps nothing between calls, so the host
// passes it back. The result carries the c2pa member only when the
// lookup answered it for the signed output this file is byte for byte
// (the lookup's c2pa, taken when facts carry no c2pa; exact_signed names
// that record): otherwise its trust takes X.509, so the host gets it from
// the C2PA module's c2pa_member (with facts.c2pa and the lookup's c2pa_ca)
// and sets it.
func Decide(in []byte, lim limits.Limits) []byte {
	var req decideIn
	if err := decodeStrict(in, &req); err != nil {
		return fail(codeBadInput, err.Error())
	}
	f, err := facts.FromWire(req.Facts)
	if err != nil {
		return fail(codeBadInput, err.Error())
	}
	if f.Local, err = facts.ProbeFromWire(req.Local); err != nil {
		return fail(codeBadInput, err.Error())
	}
	r := lookup.Decide(f, req.Lookup, lim)
	out := DecideOut{OK: true, Result: r.Response, Match: r.Match.String(), Revoked: r.Revoked, Anchored: r.Anchored,
		Rejected: r.Rejected, ExactSigned: r.ExactSigned}
	if out.Rejected == nil {
		out.Rejected = []lookup.Rejection{}
	}
	return ok(out)
}

type signatureIn struct {
	Record       string `json:"record"`
	SignatureHex string `json:"signature_hex"`
}

type signatureOut struct {
	OK              bool   `json:"ok"`
	Valid           bool   `json:"valid"`
	Detail          string `json:"detail,omitempty"`
	RecordID        string `json:"record_id,omitempty"`
	SHA256          string `json:"sha256,omitempty"`
	PerceptualHash  string `json:"perceptual_hash,omitempty"`
	SignerPublicKey string `json:"signer_public_key,omitempty"`
	OrgName         string `json:"org_name,omitempty"`
	OriginType      string `json:"origin_type,omitempty"`
	Timestamp       string `json:"timestamp,omitempty"`
	Watermark       string `json:"watermark_payload,omitempty"`
	LeafHash        string `json:"leaf_hash,omitempty"`
}

func signed(rec, sigHex string) (record.Signed, error) {
	b, err := base64.StdEncoding.DecodeString(rec)
	if err != nil {
		return record.Signed{}, errors.New("record is not base64")
	}
	sig, err := hex.DecodeString(sigHex)
	if err != nil {
		return record.Signed{}, errors.New("signature_hex is not hex")
	}
	return record.Signed{Bytes: b, Signature: sig}, nil
}

// VerifySignature takes {"record":base64,"signature_hex":hex} and says
// whether the Ed25519 signature verifies under the key inside the record,
// with the record's fields when it does.
func VerifySignature(in []byte) []byte {
	var req signatureIn
	if err := decodeStrict(in, &req); err != nil {
		return fail(codeBadInput, err.Error())
	}
	sg, err := signed(req.Record, req.SignatureHex)
	if err != nil {
		return fail(codeBadInput, err.Error())
	}
	r, err := record.Verify(sg)
	if err != nil {
		return ok(signatureOut{OK: true, Detail: err.Error()})
	}
	return ok(signatureOut{OK: true, Valid: true, RecordID: r.ID.String(), SHA256: hex.EncodeToString(r.SHA256[:]),
		PerceptualHash: r.PerceptualHash.String(), SignerPublicKey: hex.EncodeToString(r.SignerPublicKey),
		OrgName: r.Org, OriginType: r.OriginType, Timestamp: rfc3339.Millis(r.Timestamp),
		Watermark: hex.EncodeToString(r.WatermarkPayload), LeafHash: sg.LeafHash().String()})
}

type proofIn struct {
	// LeafHash, or Record and SignatureHex (whose leaf is hashed here).
	LeafHash     string      `json:"leaf_hash,omitempty"`
	Record       string      `json:"record,omitempty"`
	SignatureHex string      `json:"signature_hex,omitempty"`
	Anchor       wire.Anchor `json:"anchor"`
}

type proofOut struct {
	OK       bool   `json:"ok"`
	Valid    bool   `json:"valid"`
	Detail   string `json:"detail,omitempty"`
	LeafHash string `json:"leaf_hash"`
}

// VerifyProof takes {"leaf_hash"} or {"record","signature_hex"} and an
// "anchor" (wire.Anchor) and says whether the leaf is included under the
// anchor's Merkle root by its audit path.
func VerifyProof(in []byte, lim limits.Limits) []byte {
	var req proofIn
	if err := decodeStrict(in, &req); err != nil {
		return fail(codeBadInput, err.Error())
	}
	var leaf merkle.Hash
	switch {
	case req.LeafHash != "" && req.Record == "":
		h, err := merkle.ParseHash(req.LeafHash)
		if err != nil {
			return fail(codeBadInput, "leaf_hash: "+err.Error())
		}
		leaf = h
	case req.LeafHash == "" && req.Record != "":
		sg, err := signed(req.Record, req.SignatureHex)
		if err != nil {
			return fail(codeBadInput, err.Error())
		}
		leaf = sg.LeafHash()
	default:
		return fail(codeBadInput, "give leaf_hash or record and signature_hex")
	}
	if len(req.Anchor.AuditPath) > lim.MaxProofLen {
		return fail(codeBadInput, "audit_path longer than the proof limit")
	}
	path := make([]merkle.Hash, len(req.Anchor.AuditPath))
	for i, s := range req.Anchor.AuditPath {
		h, err := merkle.ParseHash(s)
		if err != nil {
			return fail(codeBadInput, "audit_path: "+err.Error())
		}
		path[i] = h
	}
	root, err := merkle.ParseHash(req.Anchor.MerkleRoot)
	if err != nil {
		return fail(codeBadInput, "merkle_root: "+err.Error())
	}
	out := proofOut{OK: true, LeafHash: leaf.String()}
	if err := merkle.VerifyInclusion(req.Anchor.LeafIndex, req.Anchor.TreeSize, leaf, path, root); err != nil {
		out.Detail = err.Error()
	} else {
		out.Valid = true
	}
	return ok(out)
}

// presentIn is the envelope form of present's input.
type presentIn struct {
	Verify *wire.VerifyResponse `json:"verify"`
	// Result is decide's output passed on whole.
	Result     *wire.VerifyResponse `json:"result"`
	RecordOnly bool                 `json:"record_only"`
}

type presentOut struct {
	OK           bool                 `json:"ok"`
	Presentation present.Presentation `json:"presentation"`
}

// Present takes a verify response (POST /api/v1/verify's body), decide's
// whole output (its result is presented), or {"verify":…,"record_only":true}
// when only the record was checked, and returns {"ok":true,"presentation":present.Presentation}:
// the verdict in words, the same on every surface. Members of the verify
// response it does not read are ignored, so that an older module
// presents a newer origin's answer.
func Present(in []byte) []byte {
	if in == nil {
		return fail(codeBadInput, "no input buffer (alloc it first)")
	}
	var env presentIn
	if err := wirejson.Unmarshal(in, &env); err != nil {
		return fail(codeBadInput, err.Error())
	}
	v := env.Verify
	if v == nil {
		v = env.Result
	}
	if v == nil {
		v = new(wire.VerifyResponse)
		if err := wirejson.Unmarshal(in, v); err != nil {
			return fail(codeBadInput, err.Error())
		}
	}
	return ok(presentOut{OK: true, Presentation: present.Present(*v, present.Options{RecordOnly: env.RecordOnly})})
}
