package httpapi

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/shared/facts"
)

// C2PAPrefix is the base of the C2PA Soft Binding Resolution API
// (docs/c2pa.md, "Soft Binding Resolution API"): its paths are the
// specification's, under this prefix.
const C2PAPrefix = "/api/v1/c2pa"

// Problem codes of the C2PA routes.
const (
	// CodeManifestNotFound (404): no manifest by that id.
	CodeManifestNotFound = "manifest_not_found"
	// CodeC2PAUnreadable (422): sign: the upload carries a C2PA manifest
	// store that cannot be read, so it cannot be kept as our parent.
	CodeC2PAUnreadable = "c2pa_unreadable"
	// CodeUnsupportedAlgorithm (400): the soft-binding algorithm is not one
	// this service resolves (see GET /services/supportedAlgorithms).
	CodeUnsupportedAlgorithm = "unsupported_algorithm"
)

// Bounds of the maxResults parameter.
const (
	defaultC2PAResults = 10
	maxC2PAResults     = 100
)

func (a *API) registerC2PA() error {
	l := a.cfg.Limits
	// Buckets of their own, apart from /verify's and /verify/lookup's,
	// also when the limiters are shared between origins.
	byContent, err := a.scopedLimiter("c2pa-by-content", l.Verify)
	if err != nil {
		return fmt.Errorf("httpapi: %w", err)
	}
	cheap, err := a.scopedLimiter("c2pa-lookup", l.Lookup)
	if err != nil {
		return fmt.Errorf("httpapi: %w", err)
	}
	a.Handle(Route{Method: "GET", Path: C2PAPrefix + "/ca.pem", Auth: Public, CrossOrigin: true}, a.handleC2PACA)
	a.Handle(Route{Method: "GET", Path: C2PAPrefix + "/services/supportedAlgorithms", Auth: Public, CrossOrigin: true}, a.handleC2PAAlgorithms)
	a.Handle(Route{Method: "GET", Path: C2PAPrefix + "/matches/byBinding", Auth: Public, Limiter: cheap, LimitBy: ByIP, CrossOrigin: true}, a.handleC2PAByBinding)
	a.Handle(Route{Method: "POST", Path: C2PAPrefix + "/matches/byContent", Auth: Public, Limiter: byContent, LimitBy: ByIP, CrossOrigin: true, Class: ClassUpload}, a.handleC2PAByContent)
	a.Handle(Route{Method: "GET", Path: C2PAPrefix + "/manifests/{manifestId}", Auth: Public, Limiter: cheap, LimitBy: ByIP, CrossOrigin: true}, a.handleC2PAManifest)
	return nil
}

// handleC2PACA: GET /api/v1/c2pa/ca.pem, the CA certificate our manifests
// chain to, to add as a trust anchor (it is on no public trust list).
func (a *API) handleC2PACA(ctx *fasthttp.RequestCtx) error {
	p, err := a.cfg.C2PA.CA(Context(ctx))
	if errors.Is(err, manifests.ErrNoManifest) {
		return NewProblem(fasthttp.StatusNotFound, CodeNotFound, "This service writes no C2PA manifests")
	}
	if err != nil {
		return err
	}
	return writeOK(ctx, "application/x-pem-file", "public, max-age=3600", p)
}

type c2paAlg struct {
	Alg string `json:"alg"`
}

type c2paAlgorithms struct {
	Watermarks   []c2paAlg `json:"watermarks"`
	Fingerprints []c2paAlg `json:"fingerprints"`
}

// handleC2PAAlgorithms: GET /api/v1/c2pa/services/supportedAlgorithms.
func (a *API) handleC2PAAlgorithms(ctx *fasthttp.RequestCtx) error {
	if err := CheckQuery(ctx); err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, c2paAlgorithms{
		Watermarks: []c2paAlg{{facts.AlgWatermark}}, Fingerprints: []c2paAlg{{facts.AlgPHash}}})
}

type c2paMatch struct {
	ManifestID      string `json:"manifestId"`
	SimilarityScore int    `json:"similarityScore"`
}

type c2paMatches struct {
	Matches []c2paMatch `json:"matches"`
}

func writeC2PAMatches(ctx *fasthttp.RequestCtx, ms []manifests.Match) error {
	out := c2paMatches{Matches: make([]c2paMatch, 0, len(ms))}
	for _, m := range ms {
		out.Matches = append(out.Matches, c2paMatch{ManifestID: m.ManifestID, SimilarityScore: m.Score})
	}
	return WriteJSON(ctx, fasthttp.StatusOK, out)
}

func maxResults(ctx *fasthttp.RequestCtx) (int, error) {
	v := ctx.QueryArgs().Peek("maxResults")
	if len(v) == 0 {
		return defaultC2PAResults, nil
	}
	n, err := strconv.Atoi(string(v))
	if err != nil || n < 1 || n > maxC2PAResults {
		return 0, FieldProblem("maxResults", "must be an integer from 1 to "+strconv.Itoa(maxC2PAResults))
	}
	return n, nil
}

func c2paAlgorithmProblem(alg string) error {
	p := NewProblem(fasthttp.StatusBadRequest, CodeUnsupportedAlgorithm, "Unsupported soft-binding algorithm")
	p.Field = "alg"
	p.Detail = "alg " + strconv.Quote(alg) + " is not one of " + facts.AlgWatermark + ", " + facts.AlgPHash
	return p
}

// handleC2PAByBinding: GET /api/v1/c2pa/matches/byBinding?alg=…&value=…
// (value base64, standard or URL alphabet).
func (a *API) handleC2PAByBinding(ctx *fasthttp.RequestCtx) error {
	if err := CheckQuery(ctx, "alg", "value", "maxResults"); err != nil {
		return err
	}
	alg := string(ctx.QueryArgs().Peek("alg"))
	if alg == "" {
		return FieldProblem("alg", "is required")
	}
	raw := string(ctx.QueryArgs().Peek("value"))
	if raw == "" {
		return FieldProblem("value", "is required")
	}
	value, err := decodeBase64(raw)
	if err != nil {
		return FieldProblem("value", "must be base64")
	}
	n, err := maxResults(ctx)
	if err != nil {
		return err
	}
	ms, err := a.cfg.C2PA.ByBinding(Context(ctx), alg, value, n)
	switch {
	case errors.Is(err, manifests.ErrUnknownAlgorithm):
		return c2paAlgorithmProblem(alg)
	case errors.Is(err, manifests.ErrBindingValue):
		return FieldProblem("value", "does not have the form of "+alg+" (docs/c2pa.md)")
	case err != nil:
		return err
	}
	return writeC2PAMatches(ctx, ms)
}

func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// handleC2PAByContent: POST /api/v1/c2pa/matches/byContent (the body is
// the file itself, any media type the verifier reads).
func (a *API) handleC2PAByContent(ctx *fasthttp.RequestCtx) error {
	if err := CheckQuery(ctx, "alg", "maxResults"); err != nil {
		return err
	}
	if alg := string(ctx.QueryArgs().Peek("alg")); alg != "" && alg != facts.AlgWatermark && alg != facts.AlgPHash {
		return c2paAlgorithmProblem(alg)
	}
	n, err := maxResults(ctx)
	if err != nil {
		return err
	}
	max := a.cfg.Records.Limits().MaxUploadBytes
	r, err := requestBody(ctx, max)
	if err != nil {
		return err
	}
	file, err := io.ReadAll(r)
	if errors.Is(err, errBodyCap) {
		ctx.SetConnectionClose()
		return tooLarge("the file exceeds " + strconv.FormatInt(max, 10) + " bytes")
	}
	if err != nil {
		return NewProblem(fasthttp.StatusBadRequest, CodeBadRequest, "The body could not be read")
	}
	if len(file) == 0 {
		return NewProblem(fasthttp.StatusBadRequest, CodeEmptyFile, "The body is empty: send the file itself")
	}
	ms, err := a.cfg.C2PA.ByContent(Context(ctx), file, n)
	if err != nil {
		return err
	}
	return writeC2PAMatches(ctx, ms)
}

// handleC2PAManifest: GET /api/v1/c2pa/manifests/{manifestId}, the
// manifest store (application/c2pa) as written into the signed file.
func (a *API) handleC2PAManifest(ctx *fasthttp.RequestCtx) error {
	if err := CheckQuery(ctx, "returnActiveManifest"); err != nil {
		return err
	}
	if _, err := parseBool("returnActiveManifest", string(ctx.QueryArgs().Peek("returnActiveManifest")), false); err != nil {
		return err
	}
	st, _, err := a.cfg.C2PA.Manifest(Context(ctx), pathParam(ctx, "manifestId"))
	if errors.Is(err, manifests.ErrNoManifest) {
		return NewProblem(fasthttp.StatusNotFound, CodeManifestNotFound, "No C2PA manifest with this id")
	}
	if err != nil {
		return err
	}
	return writeOK(ctx, "application/c2pa", "public, max-age=86400, immutable", st)
}

// c2paOption reads the sign option c2pa (form field, else query
// parameter; default true): false leaves the C2PA manifest out of the
// signed file.
func c2paOption(ctx *fasthttp.RequestCtx, form *uploadForm) (bool, error) {
	v, ok := form.Fields["c2pa"]
	if !ok {
		v = string(ctx.QueryArgs().Peek("c2pa"))
	}
	return parseBool("c2pa", v, true)
}
