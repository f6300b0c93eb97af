package server

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/internal/clientip"
	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/shared/wire"
)

// corsExposeHeaders are the response headers a page may read, as the
// origin exposes them on its cross-origin routes.
const corsExposeHeaders = "ETag, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, Content-Length"

type requestIDKey struct{}

// requestID is the request's id: the client's X-Request-Id when it is a
// short token, else a fresh random one; the same for the whole request.
func requestID(ctx *fasthttp.RequestCtx) string {
	if id, ok := ctx.UserValue(requestIDKey{}).(string); ok {
		return id
	}
	id := string(ctx.Request.Header.Peek("X-Request-Id"))
	if !validRequestID(id) {
		var b [16]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	ctx.SetUserValue(requestIDKey{}, id)
	return id
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// budget counts bytes held by requests in flight, up to max; a
// reservation that does not fit is refused, never waited for (a client
// retries; a queue would hold the connections instead).
type budget struct {
	mu   sync.Mutex
	used int64
	max  int64
}

func (b *budget) reserve(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// multipartSlack is what a verify body may carry beyond the file: the
// part headers and boundaries.
const multipartSlack = 64 << 10

// lookupPath is the origin's public lookup (docs/api.md).
const lookupPath = "/api/v1/verify/lookup"

// verify answers POST /api/v1/verify at the edge: a file that is byte
// for byte the service's own signed output is decided from the
// exact-only lookup without analysis (verifyExact), as the origin's
// verify does; any other is analysed by the engine, the origin's lookup
// (with report, so the signer's count and content.verified happen at the
// origin as for its own verify) gives the candidates, and the engine
// decides. The answer is the origin's
// verify answer for the same file. Requests the edge does not analyse
// itself (not one file part, a file the core refuses, which the origin
// may still know by its hash) go to the origin's own verify unchanged.
func (s *Server) verify(ctx *fasthttp.RequestCtx) {
	reqID := requestID(ctx)
	// Whatever the answer, it carries what the origin's verify carries:
	// readable by any page (the route is public and sets no cookie) and
	// the request id the origin's logs also hold for this verification.
	defer func() {
		h := &ctx.Response.Header
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		h.Set("X-Content-Type-Options", "nosniff")
		if len(h.Peek("X-Request-Id")) == 0 {
			h.Set("X-Request-Id", reqID)
		}
	}()
	client := s.clientIP(ctx)
	if !s.allow(ctx, client) {
		return
	}
	// The body is held whole until the verdict: reserve its size (the
	// upload limit when the client did not say) or refuse now.
	want := s.cfg.Limits.MaxUploadBytes + multipartSlack
	if n := int64(ctx.Request.Header.ContentLength()); n >= 0 && n < want {
		want = n
	}
	if !s.bodies.reserve(want) {
		p := newProblem(fasthttp.StatusServiceUnavailable, codeVerifyCapacity, "Verification capacity exhausted",
			"the edge is verifying as many files as its memory allows; try again shortly")
		p.retryAfter = 2
		ctx.SetConnectionClose()
		writeProblem(ctx, p)
		return
	}
	defer s.bodies.release(want)
	body, ok := s.readBody(ctx)
	if !ok {
		return
	}
	file, ok := singleFile(ctx.Request.Header.ContentType(), body)
	if !ok {
		s.forwardVerify(ctx, body, client)
		return
	}
	report := true
	if !s.cfg.NoExactProbe {
		var done bool
		if done, report = s.verifyExact(ctx, file, client); done {
			return
		}
	}
	a, err := s.cfg.Engine.Analyze(ctx, file)
	var refused *verifier.AnalyzeError
	switch {
	case errors.As(err, &refused), errors.Is(err, verifier.ErrNotReady):
		// A file the core refuses, or a verify that arrives while the
		// module is still compiling: the origin answers it.
		s.forwardVerify(ctx, body, client)
		return
	case err != nil:
		s.engineFailed(ctx, err)
		return
	}
	lookupJSON, ok := s.lookup(ctx, a, client, report)
	if !ok {
		return
	}
	v, err := s.cfg.Engine.Decide(ctx, a, lookupJSON)
	if err != nil {
		s.engineFailed(ctx, err)
		return
	}
	if a.C2PAUnread && v.C2PA == nil {
		if v, ok = s.thirdPartyC2PA(ctx, file, a, lookupJSON, client); !ok {
			return
		}
	}
	s.answer(ctx, v)
}

// answer writes the verdict decided at the edge.
func (s *Server) answer(ctx *fasthttp.RequestCtx, v wire.VerifyResponse) {
	out, err := json.Marshal(v)
	if err != nil {
		s.engineFailed(ctx, err)
		return
	}
	h := &ctx.Response.Header
	h.Set("Cache-Control", "no-store")
	h.Set("X-Verified-By", "edge "+s.cfg.Engine.Name())
	ctx.SetContentType("application/json")
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetBody(out)
}

// allow consumes one unit of the client's verify quota and sets the
// RateLimit headers; a refused request is answered 429 here.
func (s *Server) allow(ctx *fasthttp.RequestCtx, client netip.Addr) bool {
	d := s.limiter.Allow(ratelimit.IPKey(net.IP(client.AsSlice())))
	pol := s.limiter.Policy()
	set := func() {
		ctx.Response.Header.Set("RateLimit-Policy", pol.PolicyHeader())
		ctx.Response.Header.Set("RateLimit", d.Header(pol))
	}
	if d.Allowed {
		set()
		return true
	}
	p := newProblem(fasthttp.StatusTooManyRequests, codeRateLimited, "Too many requests",
		"quota of "+strconv.Itoa(pol.Quota)+" requests per "+strconv.Itoa(int(pol.Window/time.Second))+"s exceeded")
	p.Type, p.ViolatedPolicies, p.retryAfter = quotaExceededType, []string{pol.Name}, max(1, ratelimit.CeilSeconds(d.RetryAfter))
	// The upload is not read: the connection cannot carry another request.
	ctx.SetConnectionClose()
	writeProblem(ctx, p)
	set()
	return false
}

// readBody reads the whole verify body, at most one upload plus the
// multipart framing; a larger body is refused with 413 before it is read.
func (s *Server) readBody(ctx *fasthttp.RequestCtx) ([]byte, bool) {
	limit := s.cfg.Limits.MaxUploadBytes + multipartSlack
	tooLarge := func() ([]byte, bool) {
		ctx.SetConnectionClose()
		writeProblem(ctx, newProblem(fasthttp.StatusRequestEntityTooLarge, codeBodyTooLarge, "Request body too large",
			"the body exceeds "+strconv.FormatInt(limit, 10)+" bytes"))
		return nil, false
	}
	if int64(ctx.Request.Header.ContentLength()) > limit {
		return tooLarge()
	}
	if !ctx.Request.IsBodyStream() {
		return ctx.Request.Body(), true
	}
	b, err := io.ReadAll(io.LimitReader(ctx.RequestBodyStream(), limit+1))
	if err != nil {
		writeProblem(ctx, newProblem(fasthttp.StatusBadRequest, "bad_request", "Bad request", "the body could not be read"))
		return nil, false
	}
	if int64(len(b)) > limit {
		return tooLarge()
	}
	return b, true
}

// singleFile returns the file of a multipart body holding exactly one
// part, named "file" with a file name, and nothing else; ok is false for
// anything else (the origin then answers with its own precise problem).
func singleFile(contentType, body []byte) ([]byte, bool) {
	mt, params, err := mime.ParseMediaType(string(contentType))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, false
	}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	p, err := r.NextRawPart()
	if err != nil || p.FormName() != "file" || p.FileName() == "" || p.Header.Get("Content-Transfer-Encoding") != "" {
		return nil, false
	}
	file, err := io.ReadAll(p)
	if err != nil || len(file) == 0 {
		return nil, false
	}
	if _, err := r.NextRawPart(); err != io.EOF {
		return nil, false
	}
	return file, true
}

// thirdPartyC2PA finishes a verify whose file may carry a C2PA manifest
// the lookup did not answer (the file is not byte for byte the service's
// own kept signed output, or decide did not check that record): the
// engine's C2PA module reads it and the verdict is decided again with
// it, as the origin's verify decides with the manifest it reads.
//
// The lookup already made (with c2pa_manifest) stands for the one with
// the manifest's facts, and its report for the origin's count, unless a
// valid manifest names a record: only that adds a candidate at the
// origin (content's candidate pool), so the candidates are asked for
// again with the facts, without report (the verification is counted
// once). A record named so is already a candidate whenever the file is
// its signed output; otherwise (a manifest signed by another
// certificate naming a record of this service) the count was made on the
// first lookup's candidates.
func (s *Server) thirdPartyC2PA(ctx *fasthttp.RequestCtx, file []byte, a verifier.Analysis, lookupJSON []byte, client netip.Addr) (wire.VerifyResponse, bool) {
	c, err := s.cfg.Engine.ReadC2PA(ctx, file)
	if err != nil {
		s.engineFailed(ctx, err)
		return wire.VerifyResponse{}, false
	}
	a.Facts.C2PA, a.C2PAUnread = c, false
	if c != nil && c.ValidationState == "valid" && c.RecordID != "" {
		var ok bool
		if lookupJSON, ok = s.lookup(ctx, a, client, false); !ok {
			return wire.VerifyResponse{}, false
		}
	}
	v, err := s.cfg.Engine.Decide(ctx, a, lookupJSON)
	if err != nil {
		s.engineFailed(ctx, err)
		return wire.VerifyResponse{}, false
	}
	return v, true
}

// lookup posts the facts to the origin's lookup and returns its JSON
// answer; any other answer is relayed to the client. report makes the
// origin count the verification; a manifest the engine left unread asks
// for the service's own reading of it (c2pa_manifest).
func (s *Server) lookup(ctx *fasthttp.RequestCtx, a verifier.Analysis, client netip.Addr, report bool) ([]byte, bool) {
	w := a.Facts.Watermark
	return s.postLookup(ctx, wire.LookupRequest{SHA256: a.Facts.SHA256, PerceptualHash: a.Facts.PerceptualHash,
		Watermark: &w, Format: a.Facts.Format, Width: a.Facts.Width, Height: a.Facts.Height, Report: report, C2PA: a.Facts.C2PA,
		C2PAManifest: a.C2PAUnread && a.Facts.C2PA == nil}, client)
}

// postLookup posts lr to the origin's lookup and returns its JSON answer;
// an exact-only lookup's 204 (not the service's signed output) is a nil
// answer. Any other answer is relayed to the client.
func (s *Server) postLookup(ctx *fasthttp.RequestCtx, lr wire.LookupRequest, client netip.Addr) ([]byte, bool) {
	body, err := json.Marshal(lr)
	if err != nil {
		s.engineFailed(ctx, err)
		return nil, false
	}
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI(lookupPath)
	req.Header.SetHost(s.origin.Host)
	req.Header.SetContentType("application/json")
	req.Header.Set(clientip.ForwardedForHeader, client.String())
	req.Header.Set("X-Request-Id", requestID(ctx))
	req.SetBody(body)
	if err := s.buffer.DoTimeout(req, resp, s.cfg.OriginTimeout); err != nil {
		s.originError(ctx, err)
		return nil, false
	}
	if lr.ExactOnly && (resp.StatusCode() == fasthttp.StatusNoContent || unknownMember(resp)) {
		return nil, true
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		// The origin's own refusal (its lookup quota, a problem) is the
		// answer; the edge's rate-limit headers give way to the origin's.
		ctx.Response.Reset()
		resp.Header.CopyTo(&ctx.Response.Header)
		h := &ctx.Response.Header
		dropHopByHop(func(k string) []byte { return h.Peek(k) }, h.Del)
		ctx.Response.SetBody(resp.Body())
		return nil, false
	}
	return bytes.Clone(resp.Body()), true
}

// unknownMember reports whether the origin refused a lookup for a member
// it does not know: an origin from before exact_only. It searched and
// counted nothing, so the probe's answer is "not exact" and the verify
// goes on as it did before the probe, during a rolling upgrade too.
func unknownMember(resp *fasthttp.Response) bool {
	if resp.StatusCode() != fasthttp.StatusBadRequest {
		return false
	}
	var p struct {
		Code string `json:"code"`
	}
	return json.Unmarshal(resp.Body(), &p) == nil && p.Code == "unknown_field"
}

// forwardVerify sends the buffered verify request to the origin's own
// verify and relays its answer.
func (s *Server) forwardVerify(ctx *fasthttp.RequestCtx, body []byte, client netip.Addr) {
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	ctx.Request.Header.CopyTo(&req.Header)
	h := &req.Header
	dropHopByHop(func(k string) []byte { return h.Peek(k) }, h.Del)
	h.Set(clientip.ForwardedForHeader, client.String())
	req.SetBody(body)
	resp := fasthttp.AcquireResponse()
	if err := s.buffer.DoTimeout(req, resp, s.cfg.OriginTimeout); err != nil {
		fasthttp.ReleaseResponse(resp)
		s.originError(ctx, err)
		return
	}
	ctx.Response.Reset()
	s.relay(ctx, resp)
}

// engineFailed answers a failure of the verifier itself (not of the
// file): 503, the request may be retried; the failed instance is gone.
func (s *Server) engineFailed(ctx *fasthttp.RequestCtx, err error) {
	s.log.Warn("verify at the edge failed", "err", err)
	detail := "the verifier failed on this request; it has been replaced, try again"
	if errors.Is(err, verifier.ErrOutOfMemory) {
		detail = "verifying this file needs more memory than the edge allows one verification"
	} else if errors.Is(err, verifier.ErrDeadline) {
		detail = "verifying this file took longer than the edge allows one verification"
	}
	writeProblem(ctx, newProblem(fasthttp.StatusServiceUnavailable, codeVerifierFailed, "Verifier failed", detail))
}
