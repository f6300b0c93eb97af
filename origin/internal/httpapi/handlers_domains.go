package httpapi

import (
	"fmt"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/domains"
	"github.com/provenant/provenant/shared/wire"
)

func (a *API) registerDomains() error {
	if a.cfg.Domains == nil {
		return nil
	}
	check, err := a.NewLimiter(a.cfg.Limits.DomainCheck)
	if err != nil {
		return fmt.Errorf("httpapi: %w", err)
	}
	// Session JWT only: proving a domain changes how every record of the
	// account is shown, which an API key (often on a device) must not do.
	rt := func(method, path string) Route { return Route{Method: method, Path: path, Auth: JWTOnly} }
	a.Handle(rt("POST", "/api/v1/domains"), a.handleStartDomain)
	a.Handle(rt("GET", "/api/v1/domains"), a.handleListDomains)
	a.Handle(Route{Method: "POST", Path: "/api/v1/domains/{domain}/check", Auth: JWTOnly, Limiter: check, LimitBy: ByCredential}, a.handleCheckDomain)
	a.Handle(rt("DELETE", "/api/v1/domains/{domain}"), a.handleRemoveDomain)
	return nil
}

// toDomainView is a claim as the API answers it, with the two places its
// token may be put.
func toDomainView(c domains.Claim) wire.Domain {
	return wire.Domain{DomainClaim: c, Proofs: wire.DomainProofs{
		HTTPS:  wire.DomainHTTPSProof{URL: domains.ProofURL(c.Domain), Content: c.Token},
		DNSTXT: wire.DomainTXTProof{Name: domains.TXTName(c.Domain), Value: c.Token},
	}}
}

// handleStartDomain: POST /api/v1/domains {"domain": "example.com"}.
// Idempotent: an existing claim comes back with its token.
func (a *API) handleStartDomain(ctx *fasthttp.RequestCtx) error {
	var req wire.StartDomainRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(ctx)
	c, err := a.cfg.Domains.Start(Context(ctx), p.AccountID, req.Domain)
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusCreated, toDomainView(c))
}

// handleListDomains: GET /api/v1/domains.
func (a *API) handleListDomains(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	cs, err := a.cfg.Domains.List(Context(ctx), p.AccountID)
	if err != nil {
		return err
	}
	out := ListResponse[wire.Domain]{Items: make([]wire.Domain, 0, len(cs))}
	for _, c := range cs {
		out.Items = append(out.Items, toDomainView(c))
	}
	return WriteJSON(ctx, fasthttp.StatusOK, out)
}

// handleCheckDomain: POST /api/v1/domains/{domain}/check.
func (a *API) handleCheckDomain(ctx *fasthttp.RequestCtx) error {
	return ownedJSON(ctx, "domain", fasthttp.StatusOK, a.cfg.Domains.Check, toDomainView)
}

// handleRemoveDomain: DELETE /api/v1/domains/{domain}.
func (a *API) handleRemoveDomain(ctx *fasthttp.RequestCtx) error {
	return ownedNoContent(ctx, "domain", a.cfg.Domains.Remove)
}
