package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/clientip"
)

// hopByHop are the headers of one connection (RFC 9110, 7.6.1), never
// forwarded in either direction.
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"TE", "Trailer", "Transfer-Encoding", "Upgrade"}

// dropHopByHop removes the hop-by-hop headers and those the Connection
// header names.
func dropHopByHop(peek func(string) []byte, del func(string)) {
	if c := peek("Connection"); len(c) > 0 {
		for f := range bytes.SplitSeq(c, []byte{','}) {
			if name := bytes.TrimSpace(f); len(name) > 0 {
				del(string(name))
			}
		}
	}
	for _, h := range hopByHop {
		del(h)
	}
}

// originRequest fills req with the client's request as the origin must
// see it: same method, URI and headers minus hop-by-hop ones, and the
// client's address as the only X-Forwarded-For entry (the origin trusts
// it from configured edges, so its per-IP limits see clients, not edges).
// The body is streamed, never held whole.
func (s *Server) originRequest(ctx *fasthttp.RequestCtx, req *fasthttp.Request, client netip.Addr) {
	ctx.Request.Header.CopyTo(&req.Header)
	h := &req.Header
	dropHopByHop(func(k string) []byte { return h.Peek(k) }, h.Del)
	h.Set(clientip.ForwardedForHeader, client.String())
	if ctx.IsTLS() {
		h.Set("X-Forwarded-Proto", "https")
	} else {
		h.Set("X-Forwarded-Proto", "http")
	}
	switch {
	case ctx.Request.IsBodyStream():
		n := ctx.Request.Header.ContentLength()
		if n == 0 {
			return
		}
		// The stream belongs to the server's request: wrapped, so that
		// releasing req does not close and recycle it a second time.
		req.SetBodyStream(struct{ io.Reader }{ctx.RequestBodyStream()}, n)
	default:
		req.SetBodyRaw(ctx.Request.Body())
	}
}

// proxy forwards the request to the origin and streams the answer back.
func (s *Server) proxy(ctx *fasthttp.RequestCtx) {
	client := s.clientIP(ctx)
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	s.originRequest(ctx, req, client)
	resp := fasthttp.AcquireResponse()
	if err := s.stream.DoTimeout(req, resp, s.cfg.OriginTimeout); err != nil {
		fasthttp.ReleaseResponse(resp)
		s.originError(ctx, err)
		return
	}
	s.relay(ctx, resp)
}

// relay copies resp into the client's response, streaming its body; resp
// is released once the body has been written.
func (s *Server) relay(ctx *fasthttp.RequestCtx, resp *fasthttp.Response) {
	resp.Header.CopyTo(&ctx.Response.Header)
	h := &ctx.Response.Header
	dropHopByHop(func(k string) []byte { return h.Peek(k) }, h.Del)
	if resp.IsBodyStream() {
		ctx.Response.SetBodyStream(&upstreamBody{resp: resp}, resp.Header.ContentLength())
		return
	}
	ctx.Response.SetBody(resp.Body())
	if ctx.IsHead() {
		// A HEAD answer's Content-Length is the size a GET would get.
		ctx.Response.SkipBody = true
		ctx.Response.Header.SetContentLength(resp.Header.ContentLength())
	}
	fasthttp.ReleaseResponse(resp)
}

// upstreamBody is an origin response body being streamed to the client:
// the server closes it after writing, which returns the origin connection
// to the pool and releases the response.
type upstreamBody struct {
	resp *fasthttp.Response
}

func (u *upstreamBody) Read(p []byte) (int, error) { return u.resp.BodyStream().Read(p) }

func (u *upstreamBody) Close() error {
	err := u.resp.CloseBodyStream()
	fasthttp.ReleaseResponse(u.resp)
	return err
}

// originError answers a failed origin round trip: 503 when the origin
// cannot be reached (fast: the dial has its own short timeout), 504 when
// it did not answer in time, 502 otherwise.
func (s *Server) originError(ctx *fasthttp.RequestCtx, err error) {
	s.log.Warn("origin round trip failed", "path", string(ctx.Path()), "err", err)
	var ne net.Error
	switch {
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout() && !isDial(err):
		writeProblem(ctx, newProblem(fasthttp.StatusGatewayTimeout, codeOriginTimeout, "Origin timeout", "the origin did not answer in time"))
	case isDial(err), errors.Is(err, fasthttp.ErrNoFreeConns), errors.Is(err, io.EOF):
		p := newProblem(fasthttp.StatusServiceUnavailable, codeOriginUnavailable, "Origin unavailable", "the origin cannot be reached; try again shortly")
		p.retryAfter = 5
		writeProblem(ctx, p)
	default:
		writeProblem(ctx, newProblem(fasthttp.StatusBadGateway, codeBadGateway, "Bad gateway", "the origin's answer could not be relayed"))
	}
}

// isDial reports whether err happened while connecting.
func isDial(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, fasthttp.ErrDialTimeout)
}
