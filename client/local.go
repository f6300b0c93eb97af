package client

import (
	"context"
	"net/http"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/wire"
)

// LocalOptions tune [Client.VerifyLocal].
type LocalOptions struct {
	// Limits bound the decode and the answer; the zero value means
	// limits.Default(), the origin's own defaults.
	Limits limits.Limits
	// Report asks the origin to count the verification for the signer
	// (and publish content.verified) as /verify does; off by default.
	Report bool
	// Now is the time a C2PA manifest's credentials are judged at; nil
	// means time.Now.
	Now func() time.Time
}

// LocalVerdict is the outcome of [Client.VerifyLocal].
type LocalVerdict struct {
	// Response is the verify answer, computed on this machine.
	Response VerifyResponse
	// Facts are what was computed from the file and sent to the lookup.
	Facts wire.Facts
	// Rejected lists the candidates of the origin's answer that did not
	// check (bad signature, summary not matching the signed bytes, broken
	// anchor proof): an honest origin sends none.
	Rejected []lookup.Rejection
}

// VerifyLocal verifies file without sending it: the facts (SHA-256,
// perceptual hashes, watermark) are computed here with shared/facts, only
// they are posted to /api/v1/verify/lookup, and the verdict is computed
// here with shared/lookup, which first checks every candidate's Ed25519
// signature, its summary against the signed bytes and its Merkle proof
// (the flow of the browser widget). For an honest origin the answer is
// /verify's, member for member; the one fact taken on the origin's word is
// whether the anchoring root was read back from the chain.
//
// A file that cannot be analysed here is a *[LocalError] (nothing was
// sent); [LocalError.Unsupported] says when it is of a kind only the
// origin's [Client.Verify] reads, such as a video.
func (c *Client) VerifyLocal(ctx context.Context, file []byte, opt LocalOptions) (*LocalVerdict, error) {
	lim := opt.Limits
	if lim == (limits.Limits{}) {
		lim = limits.Default()
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	f, err := facts.Analyze(file, lim, now())
	if err != nil {
		return nil, localError(err)
	}
	w := f.Wire()
	req := wire.LookupRequest{SHA256: w.SHA256, PerceptualHash: w.PerceptualHash, Report: opt.Report, C2PA: w.C2PA}
	if w.Watermark.Found {
		req.Watermark = &w.Watermark
	}
	var resp wire.LookupResponse
	if err := c.sendJSON(ctx, http.MethodPost, "/api/v1/verify/lookup", req, &resp); err != nil {
		return nil, err
	}
	r := lookup.Decide(f, resp, lim)
	return &LocalVerdict{Response: r.Response, Facts: w, Rejected: r.Rejected}, nil
}
