package server

import (
	"encoding/json"
	"strconv"

	"github.com/valyala/fasthttp"
)

// problem is an RFC 9457 problem details object with the stable "code"
// member, in the origin's shape (docs/api.md), so that a client cannot
// tell which of the two answered an error.
type problem struct {
	Type             string   `json:"type"`
	Title            string   `json:"title"`
	Status           int      `json:"status"`
	Detail           string   `json:"detail,omitempty"`
	Code             string   `json:"code"`
	ViolatedPolicies []string `json:"violated-policies,omitempty"`
	retryAfter       int
}

const problemTypeBase = "urn:provenant:problem:"

// quotaExceededType is the IANA-registered problem type for rate limits.
const quotaExceededType = "https://iana.org/assignments/http-problem-types#quota-exceeded"

// Codes of problems the edge itself answers (docs/edge.md).
const (
	codeOriginUnavailable = "origin_unavailable"
	codeOriginTimeout     = "origin_timeout"
	codeBadGateway        = "bad_gateway"
	codeVerifierFailed    = "verifier_failed"
	codeRateLimited       = "rate_limited"
	codeBodyTooLarge      = "body_too_large"
	codeVerifyCapacity    = "verify_capacity"
)

func newProblem(status int, code, title, detail string) *problem {
	return &problem{Type: problemTypeBase + code, Title: title, Status: status, Code: code, Detail: detail}
}

func writeProblem(ctx *fasthttp.RequestCtx, p *problem) {
	body, _ := json.Marshal(p) // a struct of strings and ints always marshals
	closeConn := ctx.Response.ConnectionClose()
	ctx.Response.Reset()
	if closeConn { // a body left unread must not be parsed as the next request
		ctx.Response.SetConnectionClose()
	}
	if p.retryAfter > 0 {
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(p.retryAfter))
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/problem+json")
	ctx.SetStatusCode(p.Status)
	ctx.SetBody(body)
}
