package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/netip"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/shared/c2pa/sniff"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/wire"
)

// verifyExact answers a file that is byte for byte the signed output of a
// record the service signed without analysing it, as the origin's own
// verify does: the exact-only lookup, asked with the file's SHA-256 (and
// report, and c2pa_manifest when the file may carry a manifest), returns
// that record among the candidates, whose perceptual hash then stands
// for the file's, and the engine decides. done is true when the client
// was answered (the verdict, or a relayed refusal of the origin); else
// the caller analyses the file and looks it up in full, with report
// unless counted (the origin already counted this verification).
//
// Only a picture in a format the core analyses is probed (imagex.Sniff);
// the origin's verify answers a video with its own video details.
//
// A file that may carry a manifest the answer did not read for the edge
// (the signed output no longer kept) is read by the engine, and a valid
// manifest naming a record asks the candidates again with it, without
// report, as thirdPartyC2PA does; so when the engine cannot read a
// manifest now, such a file is not probed at all (Analyze refuses it and
// the origin answers it, counting it once).
func (s *Server) verifyExact(ctx *fasthttp.RequestCtx, file []byte, client netip.Addr) (done, report bool) {
	if int64(len(file)) > s.cfg.Limits.MaxUploadBytes {
		// The origin's verify refuses such a file (413) before its own
		// shortcut; Analyze refuses it too and the origin answers it.
		return false, true
	}
	if _, err := imagex.Sniff(file); err != nil {
		// Only a picture the core reads: the origin verifies anything
		// else itself (a video with its own answer; Analyze refuses it).
		return false, true
	}
	mayCarry := sniff.MayCarry(file)
	if !s.cfg.Engine.CanDecide(mayCarry) {
		return false, true
	}
	sum := sha256.Sum256(file)
	shaHex := hex.EncodeToString(sum[:])
	lookupJSON, ok := s.postLookup(ctx, wire.LookupRequest{SHA256: shaHex, ExactOnly: true, Report: true, C2PAManifest: mayCarry}, client)
	if !ok {
		return true, false
	}
	if lookupJSON == nil {
		return false, true
	}
	var lr wire.LookupResponse
	if err := json.Unmarshal(lookupJSON, &lr); err != nil {
		s.log.Warn("exact lookup answer unreadable; analysing the file", "err", err)
		return false, false
	}
	a, ok := exactFacts(lr, sum, s.cfg.Limits)
	if !ok {
		// The origin said exact (and counted it) but no candidate checks
		// as that record: decide from the file's own facts instead.
		s.log.Warn("exact lookup answered no signed record of this file; analysing it")
		return false, false
	}
	if mayCarry && lr.C2PA == nil {
		c, err := s.cfg.Engine.ReadC2PA(ctx, file)
		if err != nil {
			s.engineFailed(ctx, err)
			return true, false
		}
		a.Facts.C2PA = c
		if c != nil && c.ValidationState == "valid" && c.RecordID != "" {
			if lookupJSON, ok = s.postLookup(ctx, wire.LookupRequest{SHA256: shaHex, ExactOnly: true, C2PA: c}, client); !ok || lookupJSON == nil {
				if ok {
					s.engineFailed(ctx, errRecordGone)
				}
				return true, false
			}
		}
	}
	v, err := s.cfg.Engine.Decide(ctx, a, lookupJSON)
	if err != nil {
		s.engineFailed(ctx, err)
		return true, false
	}
	s.answer(ctx, v)
	return true, false
}

// errRecordGone: the signed record an exact lookup answered was not there
// a moment later (revoked records stay, so it was deleted in between).
var errRecordGone = errors.New("server: the exact lookup's record is gone")

// exactFacts returns the facts the origin's verify takes for the signed
// output of a record it signed: the file's SHA-256 and that record's
// signed perceptual hash, no watermark extracted. ok is false unless a
// candidate of the answer is such a record, checked here by
// shared/lookup.Check (as decide checks every candidate: signature,
// record id, signer key), whose signed SHA-256 is sum: the shortcut
// shared/lookup.Decide takes too, so the edge never decides from a
// perceptual hash it did not check.
func exactFacts(lr wire.LookupResponse, sum [32]byte, lim limits.Limits) (verifier.Analysis, bool) {
	for i := range lr.Candidates {
		w := &lr.Candidates[i]
		if w.Source != lookup.SourceSign {
			continue
		}
		c, err := lookup.Check(facts.Facts{SHA256: sum}, w, lim)
		if err != nil || c.Record.SHA256 != sum {
			continue
		}
		return verifier.Analysis{Facts: wire.Facts{SHA256: hex.EncodeToString(sum[:]), PerceptualHash: c.Record.PerceptualHash.String()}}, true
	}
	return verifier.Analysis{}, false
}
