package httpapi

import (
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
	w := wire.Facts{SHA256: req.SHA256, PerceptualHash: req.PerceptualHash}
	if req.Watermark != nil {
		w.Watermark = *req.Watermark
	}
	f, err := facts.FromWire(w)
	if err != nil {
		return lookupFieldProblem(err)
	}
	// The client read the manifest: the record it names is a claim that
	// only adds a candidate, which the client then checks itself.
	f.C2PA = req.C2PA
	cf := content.Facts{Facts: f}
	res, err := a.cfg.Records.Lookup(Context(ctx), cf, req.Report)
	if err != nil {
		return err
	}
	if req.C2PAManifest && req.C2PA == nil {
		// The client has no C2PA reader loaded: the origin answers the
		// manifest of its own signed output (content.LookupC2PA).
		if err := a.cfg.Records.LookupC2PA(Context(ctx), f.SHA256, &res); err != nil {
			return err
		}
	}
	return WriteJSON(ctx, fasthttp.StatusOK, res)
}

// lookupFieldProblem names the member a facts.FromWire error is about.
func lookupFieldProblem(err error) error {
	var fe *facts.FieldError
	if errors.As(err, &fe) {
		return FieldProblem(fe.Field, fe.Reason)
	}
	return err
}
