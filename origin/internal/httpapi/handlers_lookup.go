package httpapi

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/wire"
)

// MaxLookupBody caps a lookup request: a few hashes, a payload and the
// C2PA manifest's summary (its certificate chain most of it).
const MaxLookupBody = 32 << 10

func (a *API) registerLookup() error {
	lim, err := a.NewLimiter(a.cfg.Limits.Lookup)
	if err != nil {
		return fmt.Errorf("httpapi: %w", err)
	}
	a.Handle(Route{Method: "POST", Path: "/api/v1/verify/lookup", Auth: Public, Limiter: lim, LimitBy: ByIP, CrossOrigin: true}, a.handleLookup)
	return nil
}

// handleLookup: POST /api/v1/verify/lookup (JSON facts). Public.
func (a *API) handleLookup(ctx *fasthttp.RequestCtx) error {
	var req wire.LookupRequest
	if err := DecodeJSON(ctx, MaxLookupBody, &req); err != nil {
		return err
	}
	lookup := a.lookupFacts
	if req.ExactOnly {
		lookup = a.lookupExact
	}
	res, sum, err := lookup(ctx, req)
	if err != nil || res == nil {
		return err
	}
	if req.C2PAManifest && req.C2PA == nil {
		// The client has no C2PA reader loaded: the origin answers the
		// manifest of its own signed output (content.LookupC2PA).
		if err := a.cfg.Records.LookupC2PA(Context(ctx), sum, res); err != nil {
			return err
		}
	}
	return WriteJSON(ctx, fasthttp.StatusOK, res)
}

// lookupFacts is the lookup of the facts the client analysed.
func (a *API) lookupFacts(ctx *fasthttp.RequestCtx, req wire.LookupRequest) (*wire.LookupResponse, [32]byte, error) {
	w := wire.Facts{SHA256: req.SHA256, PerceptualHash: req.PerceptualHash}
	if req.Watermark != nil {
		w.Watermark = *req.Watermark
	}
	f, err := facts.FromWire(w)
	if err != nil {
		return nil, f.SHA256, lookupFieldProblem(err)
	}
	// The client read the manifest: the record it names is a claim that
	// only adds a candidate, which the client then checks itself.
	f.C2PA = req.C2PA
	res, err := a.cfg.Records.Lookup(Context(ctx), content.Facts{Facts: f}, req.Report)
	return &res, f.SHA256, err
}

// lookupExact is the lookup with exact_only. The client sent the SHA-256
// before analysing the file, so any other fact would be a guess the
// answer ignores (the signed record's facts stand for the file's): it is
// refused rather than silently dropped. A file that is not exact is
// answered 204 here (nil answer), nothing counted; the client then
// analyses it and asks again without exact_only.
func (a *API) lookupExact(ctx *fasthttp.RequestCtx, req wire.LookupRequest) (*wire.LookupResponse, [32]byte, error) {
	var sum [32]byte
	switch b, err := hex.DecodeString(req.SHA256); {
	case err != nil || len(b) != len(sum):
		return nil, sum, FieldProblem("sha256", "must be 64 hex digits")
	case req.PerceptualHash != "":
		return nil, sum, FieldProblem("perceptual_hash", "must be absent with exact_only")
	case req.Watermark != nil:
		return nil, sum, FieldProblem("watermark", "must be absent with exact_only")
	default:
		copy(sum[:], b)
	}
	res, exact, err := a.cfg.Records.LookupExact(Context(ctx), sum, req.C2PA, req.Report)
	if err != nil {
		return nil, sum, err
	}
	if !exact {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
		return nil, sum, nil
	}
	return &res, sum, nil
}

// lookupFieldProblem names the member a facts.FromWire error is about.
func lookupFieldProblem(err error) error {
	var fe *facts.FieldError
	if errors.As(err, &fe) {
		return FieldProblem(fe.Field, fe.Reason)
	}
	return err
}
