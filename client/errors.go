package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/shared/wire"
)

// Error is an error answer of the origin: an RFC 9457 problem
// (application/problem+json) with Provenant's stable Code. Branch on Code,
// never on Detail:
//
//	var perr *client.Error
//	if errors.As(err, &perr) && perr.Code == "already_signed" { … }
//
// An answer that is not a problem (a proxy's HTML error page) is still an
// *Error, with Code "" and the status.
type Error struct {
	// Problem is the answer's body: Status, Type, Title, Code, Detail,
	// Field and Errors, the rate-limit policies, the existing record of an
	// already_signed refusal, and RequestID (quote it when reporting a
	// problem). Status is always the answer's status; Title falls back to
	// its status text and RequestID to its X-Request-Id header.
	wire.Problem
	// RetryAfter is the wait the origin asked for (Retry-After), zero when
	// it named none.
	RetryAfter time.Duration `json:"-"`
	// Method and URL are the request that failed (the URL without query).
	Method string `json:"-"`
	URL    string `json:"-"`
}

// FieldError is one invalid member of a request.
type FieldError = wire.FieldIssue

// Error returns "METHOD URL: status code: detail".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Method != "" {
		fmt.Fprintf(&b, "%s %s: ", e.Method, e.URL)
	}
	fmt.Fprintf(&b, "%d", e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	switch {
	case e.Detail != "":
		b.WriteString(": " + e.Detail)
	case e.Title != "":
		b.WriteString(": " + e.Title)
	}
	for _, fe := range e.Errors[min(len(e.Errors), 1):] {
		fmt.Fprintf(&b, "; %s: %s", fe.Field, fe.Detail)
	}
	return b.String()
}

// Temporary reports whether the same request may succeed later: rate
// limits, a body that arrived too late (408) and server-side failures.
func (e *Error) Temporary() bool { return retryableStatus(e.Status) }

// retryableStatus is the set of answers the client sends again: 408 (the
// body did not arrive in time; nothing was processed), 429 and 5xx.
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// IsCode reports whether err is (or wraps) an [*Error] with the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// NetworkError is a request that got no HTTP answer (connection refused,
// reset, timeout, TLS failure) after every retry.
type NetworkError struct {
	Method, URL string
	Err         error
}

// Error implements error.
func (e *NetworkError) Error() string { return fmt.Sprintf("%s %s: %v", e.Method, e.URL, e.Err) }

// Unwrap returns the transport's error.
func (e *NetworkError) Unwrap() error { return e.Err }

// maxProblemBytes bounds how much of an error body is read.
const maxProblemBytes = 64 << 10

// readError turns a non-2xx response into an *Error and closes its body.
func readError(resp *http.Response, now time.Time) *Error {
	defer resp.Body.Close()
	e := &Error{}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxProblemBytes))
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "application/problem+json" || mt == "application/json" {
		_ = json.Unmarshal(body, e)
	}
	e.Status = resp.StatusCode
	if e.Title == "" {
		e.Title = http.StatusText(resp.StatusCode)
	}
	if e.Title == "" { // a status net/http has no name for (e.g. 445)
		e.Title = "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	if e.RequestID == "" {
		e.RequestID = resp.Header.Get("X-Request-Id")
	}
	e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
	if resp.Request != nil {
		e.Method = resp.Request.Method
		u := *resp.Request.URL
		u.RawQuery = ""
		e.URL = u.String()
	}
	return e
}
