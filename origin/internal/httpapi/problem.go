package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/content/receipts"
	"github.com/provenant/provenant/origin/internal/domains"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

// Problem is an RFC 9457 problem details object with Provenant's stable
// "code" extension member. Handlers return it as an error; the API writes
// it as application/problem+json. Title and Detail are client-facing and
// must never contain internal error text or secrets.
type Problem struct {
	wire.Problem
	// RetryAfter, in seconds, is sent as the Retry-After header when > 0.
	RetryAfter int `json:"-"`
}

// FieldIssue is one invalid member of a request: its name and a
// client-safe sentence about it (which never echoes the submitted value).
type FieldIssue = wire.FieldIssue

// Error implements error; it is for logs, never for response bodies.
func (p *Problem) Error() string { return "problem " + strconv.Itoa(p.Status) + " " + p.Code }

// ProblemTypeBase prefixes every problem type URI except quota-exceeded.
const ProblemTypeBase = "urn:provenant:problem:"

// QuotaExceededType is the IANA-registered problem type for rate limits.
const QuotaExceededType = "https://iana.org/assignments/http-problem-types#quota-exceeded"

// Stable problem codes.
const (
	CodeValidation           = "validation_failed"
	CodeMalformedJSON        = "malformed_json"
	CodeUnknownField         = "unknown_field"
	CodeDuplicateField       = "duplicate_field"
	CodeUnknownParameter     = "unknown_parameter"
	CodeDuplicateParameter   = "duplicate_parameter"
	CodeInvalidCursor        = "invalid_cursor"
	CodeUnauthenticated      = "unauthenticated"
	CodeInvalidToken         = "invalid_token"
	CodeInvalidAPIKey        = "invalid_api_key"
	CodeCredentialKind       = "credential_kind_not_allowed"
	CodeInvalidCredentials   = "invalid_credentials"
	CodeInvalidResetToken    = "invalid_reset_token"
	CodeInsufficientScope    = "insufficient_scope"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeEmailTaken           = "email_taken"
	CodeBodyTooLarge         = "body_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeHeadersTooLarge      = "headers_too_large"
	CodeBadRequest           = "bad_request"
	CodeRateLimited          = "rate_limited"
	CodeInternal             = "internal_error"

	// Uploads and content records.
	CodeMalformedMultipart = "malformed_multipart"
	CodeTooManyFiles       = "too_many_files"
	CodeEmptyFile          = "empty_file"
	// CodeOriginTypeNotVideo (422): a video signed with a key whose origin
	// type only a picture can have (a scan).
	CodeOriginTypeNotVideo = "origin_type_not_video"
	CodeUnsupportedImage   = "unsupported_image_format"
	CodeTooManyPixels      = "too_many_pixels"
	CodeCorruptImage       = "corrupt_image"
	CodeDuplicateRecord    = "duplicate_record"
	CodeInvalidSignature   = "invalid_signature"
	CodeAlreadyRevoked     = "already_revoked"
	// CodeAlreadySigned (409): the upload is another account's signed
	// content and was not declared a derivative (derivative_of).
	CodeAlreadySigned = "already_signed"
	// CodeDerivativeMismatch (422): derivative_of names a record the upload
	// is not linked to.
	CodeDerivativeMismatch = "derivative_mismatch"
	// CodeNearDuplicateLimit (429, with Retry-After): register refused one
	// more record of a picture the account already registered its
	// allowance of within the window (content.NearDuplicateWindow).
	CodeNearDuplicateLimit = "near_duplicate_limit"
	// CodeDeviceKeyCannotSign (422): sign or sign-batch named a device key
	// (custody "device"); the service holds no private key for it: sign
	// locally and use register.
	CodeDeviceKeyCannotSign = "device_key_cannot_sign"
	// CodePublicKeyTaken (409): a signing key with this public_key_hex
	// exists already.
	CodePublicKeyTaken = "public_key_taken"

	// Domain verification (docs/api.md, Domains).
	// CodeInvalidDomain (422): not a bare public DNS name; detail says why.
	CodeInvalidDomain = "invalid_domain"
	// CodeDomainTaken (409): another account holds the domain verified.
	CodeDomainTaken = "domain_taken"
	// CodeDomainUnverified (422): neither the HTTPS file nor the DNS TXT
	// record carried the claim's token; detail says what was found.
	CodeDomainUnverified = "domain_unverified"
	// CodeDomainLimit (409): the account has the maximum number of claims.
	CodeDomainLimit = "domain_limit"
)

// Codes of uploads refused before any work (docs/api.md, Errors).
const (
	// CodeC2PATooLarge (422): the upload's C2PA manifest store is near
	// 16 MiB and ours would take the new store past it.
	CodeC2PATooLarge = "c2pa_store_too_large"
	// CodeAspectRatio (422): a picture to sign whose long side is more
	// than 64 times its short side (limits.DefaultMaxSignAspect).
	CodeAspectRatio = "aspect_ratio_out_of_limits"
)

// CodeInsufficientStorage (507, with Retry-After): the server's disk is
// under its free-space margin (or full); the write was refused before
// anything was stored. It is logged as an internal error: an operator
// must free space.
const CodeInsufficientStorage = "insufficient_storage"

// storageRetryAfter is the Retry-After, in seconds, of an
// insufficient_storage answer.
const storageRetryAfter = 60

// CodeDecodeCapacity (503, with Retry-After): the images being decoded
// already use the server's decode memory budget and no room came within
// the wait; the same request may succeed later.
const CodeDecodeCapacity = "decode_capacity"

// CodeDeadlineExceeded (503, with Retry-After): the request ran past its
// route's deadline (Timeouts); what it had not committed is not stored.
const CodeDeadlineExceeded = "deadline_exceeded"

// CodeBodyTimeout (408, connection closed): an upload's body stopped
// arriving before its read deadline; nothing was processed. It is not
// malformed_multipart: the body may have been fine but late, for example
// when the server itself was waiting on its database before reading it.
const CodeBodyTimeout = "body_timeout"

// CodeShuttingDown (503, with Retry-After): the server was shutting down
// and stopped the request before it finished.
const CodeShuttingDown = "shutting_down"

// CodeStorageUnavailable (503, with Retry-After): the object store that
// keeps the signed files did not answer or failed; a sign stored nothing
// (the record commits only after its file is stored) and may be retried
// as it is. Logged: an operator looks at the object store.
const CodeStorageUnavailable = "storage_unavailable"

// storageUnavailableRetryAfter is the Retry-After, in seconds, of a
// storage_unavailable answer.
const storageUnavailableRetryAfter = 10

// CodeNearIndexLoading (503, with Retry-After): the origin has just
// started and is still loading its near-duplicate index into memory; a
// verify, lookup, sign or register answered now could miss a copy, so
// none is answered until it is loaded (GET /ready is 503 meanwhile).
const CodeNearIndexLoading = "near_index_loading"

// nearLoadingRetryAfter is the Retry-After, in seconds, of a
// near_index_loading answer: the load takes seconds to a minute
// (docs/operations.md).
const nearLoadingRetryAfter = 10

// CodeVerifyOnlyOrigin (503): a sign of a picture, or a register, reached an
// origin started without the geometric index (--geometric-index=false),
// which look-before-mark needs; send it to a signing origin.
const CodeVerifyOnlyOrigin = "verify_only_origin"

// decodeRetryAfter is the Retry-After, in seconds, of a decode_capacity
// answer: about the time one large decode takes.
const decodeRetryAfter = 5

// NewProblem returns a Problem with the type derived from code.
func NewProblem(status int, code, title string) *Problem {
	return &Problem{Problem: wire.Problem{Type: ProblemTypeBase + code, Title: title, Status: status, Code: code}}
}

// FieldProblem returns a 400 validation problem naming field.
func FieldProblem(field, reason string) *Problem {
	return ValidationProblem(validate.Errors{{Field: field, Reason: reason}})
}

// ValidationProblem returns the validation problem listing every invalid
// field in errs (at least one): errors holds them all, while field and
// detail describe the first, as they did when only one was reported. The
// status is 400, or 422 when every field was well-formed but refused by a
// content rule (a name refused by the name rules: control, bidi or
// invisible characters, symbols, mixed scripts).
func ValidationProblem(errs validate.Errors) *Problem {
	status := fasthttp.StatusUnprocessableEntity
	for _, fe := range errs {
		if !fe.Unprocessable {
			status = fasthttp.StatusBadRequest
		}
	}
	if len(errs) == 0 {
		status = fasthttp.StatusBadRequest
	}
	p := NewProblem(status, CodeValidation, "Request validation failed")
	for _, fe := range errs {
		p.Errors = append(p.Errors, FieldIssue{Field: fe.Field, Detail: fe.Field + " " + fe.Reason})
	}
	if len(p.Errors) > 0 {
		p.Field, p.Detail = p.Errors[0].Field, p.Errors[0].Detail
	}
	return p
}

// cursorProblem is the 400 for a page cursor the server did not issue.
func cursorProblem() *Problem {
	return NewProblem(fasthttp.StatusBadRequest, CodeInvalidCursor, "Invalid page cursor").
		withField("cursor", "cursor is not a page cursor this endpoint issued; use next_cursor verbatim or omit it")
}

// withField sets the problem's field and detail and lists it as its one
// error, for the request-shape problems (unknown or duplicate members and
// query parameters) that stop at the first offence.
func (p *Problem) withField(field, detail string) *Problem {
	p.Field, p.Detail = field, detail
	p.Errors = []FieldIssue{{Field: field, Detail: detail}}
	return p
}

// errorMapping maps a domain sentinel error to a client-facing problem.
// This table is the single place where domain errors become HTTP
// statuses; later packages add their sentinels here.
var errorMappings = []struct {
	err    error
	status int
	code   string
	title  string
}{
	{accounts.ErrEmailTaken, fasthttp.StatusConflict, CodeEmailTaken, "An account with this email already exists"},
	{accounts.ErrInvalidCredentials, fasthttp.StatusUnauthorized, CodeInvalidCredentials, "Invalid email or password"},
	{accounts.ErrInvalidToken, fasthttp.StatusUnauthorized, CodeInvalidToken, "Invalid or expired token"},
	{accounts.ErrInvalidResetToken, fasthttp.StatusBadRequest, CodeInvalidResetToken, "Invalid or expired reset token"},
	{accounts.ErrNotFound, fasthttp.StatusNotFound, CodeNotFound, "Not found"},
	{keys.ErrInvalidAPIKey, fasthttp.StatusUnauthorized, CodeInvalidAPIKey, "Invalid API key"},
	{keys.ErrNotFound, fasthttp.StatusNotFound, CodeNotFound, "Not found"},
	{keys.ErrDeviceKey, fasthttp.StatusUnprocessableEntity, CodeDeviceKeyCannotSign, "The signing key is a device key: the service cannot sign with it; sign on the device and use POST /api/v1/register"},
	{keys.ErrPublicKeyTaken, fasthttp.StatusConflict, CodePublicKeyTaken, "A signing key with this public key already exists"},
	{keys.ErrSigningKeyRevoked, fasthttp.StatusConflict, CodeSigningKeyRevoked, "The signing key is revoked and signs nothing any more"},
	{keys.ErrOriginTypeNotVideo, fasthttp.StatusUnprocessableEntity, CodeOriginTypeNotVideo, "The signing key declares an origin no video has (a scan): sign the video with a key of another origin type"},
	{keys.ErrSigningKeyAlreadyRevoked, fasthttp.StatusConflict, CodeSigningKeyAlreadyRevoked, "The signing key is already revoked"},
	{webhooks.ErrNotFound, fasthttp.StatusNotFound, CodeNotFound, "Not found"},
	{webhooks.ErrNotRetryable, fasthttp.StatusConflict, CodeDeliveryNotFailed, "Only a failed delivery can be retried"},
	{webhooks.ErrInactive, fasthttp.StatusConflict, CodeWebhookInactive, "The webhook is inactive"},
	{webhooks.ErrLimit, fasthttp.StatusConflict, CodeWebhookLimit, "The account has the maximum number of webhooks"},
	{imagex.ErrEmpty, fasthttp.StatusBadRequest, CodeEmptyFile, "The uploaded file is empty"},
	{imagex.ErrTooLarge, fasthttp.StatusRequestEntityTooLarge, CodeBodyTooLarge, "The uploaded file is too large"},
	{imagex.ErrUnsupportedFormat, fasthttp.StatusUnsupportedMediaType, CodeUnsupportedImage, "The file is not a JPEG, PNG, GIF or WebP image"},
	{imagex.ErrTooManyPixels, fasthttp.StatusUnprocessableEntity, CodeTooManyPixels, "The image dimensions exceed the limit"},
	{imagex.ErrCorrupt, fasthttp.StatusUnprocessableEntity, CodeCorruptImage, "The image is corrupt or truncated"},
	{content.ErrNotFound, fasthttp.StatusNotFound, CodeNotFound, "Not found"},
	{content.ErrFileNotKept, fasthttp.StatusNotFound, CodeFileNotKept, "The record's signed file is not stored"},
	{content.ErrNoThumbnail, fasthttp.StatusNotFound, CodeNoThumbnail, "No preview is kept for this record"},
	{content.ErrDuplicate, fasthttp.StatusConflict, CodeDuplicateRecord, "A record with this id, hash or watermark payload already exists"},
	{content.ErrBadSignature, fasthttp.StatusUnprocessableEntity, CodeInvalidSignature, "The signature does not verify over the canonical record"},
	{content.ErrAlreadyRevoked, fasthttp.StatusConflict, CodeAlreadyRevoked, "The record is already revoked"},
	{content.ErrGeometricIndexOff, fasthttp.StatusServiceUnavailable, CodeVerifyOnlyOrigin, "This origin serves verification only; sign and register on a signing origin"},
	{manifests.ErrUnreadable, fasthttp.StatusUnprocessableEntity, CodeC2PAUnreadable, "The upload's C2PA manifest store cannot be read; send c2pa=false to sign without Content Credentials"},
	{c2pa.ErrTooLarge, fasthttp.StatusUnprocessableEntity, CodeC2PATooLarge, "The upload's C2PA manifest store, with ours added, would exceed 16 MiB; send c2pa=false to sign without Content Credentials"},
	{limits.ErrAspect, fasthttp.StatusUnprocessableEntity, CodeAspectRatio, "The image is too elongated to sign: its long side may be at most 64 times its short side"},
	{domains.ErrDomainTaken, fasthttp.StatusConflict, CodeDomainTaken, "Another account has verified this domain"},
	{domains.ErrNotFound, fasthttp.StatusNotFound, CodeNotFound, "Not found"},
	{domains.ErrLimit, fasthttp.StatusConflict, CodeDomainLimit, "The account has the maximum number of domain claims"},
}

// retryMapping maps a sentinel error to a problem the client may retry as
// it is, after RetryAfter seconds; internal says whether it is logged (an
// operator acts on it: frees disk, looks at the object store, sizes the
// deadlines).
type retryMapping struct {
	err        error
	status     int
	code       string
	title      string
	retryAfter int
	internal   bool
}

// retryMappings are the server's transient states.
var retryMappings = []retryMapping{
	{imagex.ErrBusy, fasthttp.StatusServiceUnavailable, CodeDecodeCapacity, "The server is decoding too many images; retry later", decodeRetryAfter, false},
	{nearindex.ErrLoading, fasthttp.StatusServiceUnavailable, CodeNearIndexLoading, "The server is still loading its near-duplicate index; retry shortly", nearLoadingRetryAfter, false},
	{store.ErrNoSpace, fasthttp.StatusInsufficientStorage, CodeInsufficientStorage, "The server is out of disk space; nothing was stored", storageRetryAfter, true},
	{syscall.ENOSPC, fasthttp.StatusInsufficientStorage, CodeInsufficientStorage, "The server is out of disk space; nothing was stored", storageRetryAfter, true},
	{blobs.ErrUnavailable, fasthttp.StatusServiceUnavailable, CodeStorageUnavailable, "The file store is unavailable; nothing was stored, retry later", storageUnavailableRetryAfter, true},
}

// contextMappings are the request's own deadline and cancellation. They
// are looked up last, so that a domain error that merely wraps a context
// error keeps its own answer.
var contextMappings = []retryMapping{
	{context.DeadlineExceeded, fasthttp.StatusServiceUnavailable, CodeDeadlineExceeded, "The request took longer than its deadline and was stopped", decodeRetryAfter, true},
	{context.Canceled, fasthttp.StatusServiceUnavailable, CodeShuttingDown, "The server is shutting down; the request was stopped", decodeRetryAfter, true},
}

// retryProblem is the problem of the first mapping err is, if any.
func retryProblem(err error, ms []retryMapping) (p *Problem, internal, ok bool) {
	for _, m := range ms {
		if errors.Is(err, m.err) {
			p := NewProblem(m.status, m.code, m.title)
			p.RetryAfter = m.retryAfter
			return p, m.internal, true
		}
	}
	return nil, false, false
}

// problemFor converts any handler error into a Problem; internal reports
// whether it is an unexpected error that must be logged.
func problemFor(err error) (p *Problem, internal bool) {
	var prob *Problem
	if errors.As(err, &prob) {
		return prob, false
	}
	var errs validate.Errors
	if errors.As(err, &errs) && len(errs) > 0 {
		return ValidationProblem(errs), false
	}
	var fe *validate.FieldError
	if errors.As(err, &fe) {
		return ValidationProblem(validate.Errors{fe}), false
	}
	if p, internal, ok := retryProblem(err, retryMappings); ok {
		return p, internal
	}
	var signed *content.AlreadySignedError
	if errors.As(err, &signed) {
		p := NewProblem(fasthttp.StatusConflict, CodeAlreadySigned, "The upload is content another account already signed")
		p.RecordID = signed.RecordID
		p.CertificateURL = "/api/v1/content-records/" + signed.RecordID + "/certificate"
		ev := strings.Join(signed.Evidence, ", ")
		if signed.Geometry != "" {
			ev += ", " + signed.Geometry
		}
		p.Detail = "The upload matches record " + signed.RecordID + " (" + ev +
			"). To sign it as a derivative, send derivative_of=" + signed.RecordID + "."
		return p, false
	}
	var flood *content.NearDuplicateLimitError
	if errors.As(err, &flood) {
		p := NewProblem(fasthttp.StatusTooManyRequests, CodeNearDuplicateLimit, "The account registered its allowance of near-duplicates of this picture")
		p.Detail = fmt.Sprintf("%d records of this picture (mirrors and turns included) were registered by this account within %s; retry later or declare them as one record", flood.Count, content.NearDuplicateWindow)
		p.RetryAfter = max(1, int(math.Ceil(flood.RetryAfter.Seconds())))
		return p, false
	}
	if errors.Is(err, content.ErrDerivativeMismatch) {
		p := NewProblem(fasthttp.StatusUnprocessableEntity, CodeDerivativeMismatch, "The upload is not linked to the declared parent record")
		p.Field = "derivative_of"
		return p, false
	}
	var bad *domains.InvalidDomainError
	if errors.As(err, &bad) {
		p := NewProblem(fasthttp.StatusUnprocessableEntity, CodeInvalidDomain, "The domain is not a valid domain name").
			withField("domain", "domain "+bad.Reason)
		return p, false
	}
	var unv *domains.UnverifiedError
	if errors.As(err, &unv) {
		p := NewProblem(fasthttp.StatusUnprocessableEntity, CodeDomainUnverified, "The domain's proof does not carry the token")
		p.Detail = strings.Join(unv.Tried, "; ")
		return p, false
	}
	var na *receipts.NotAnchoredError
	if errors.As(err, &na) {
		p := NewProblem(fasthttp.StatusConflict, CodeNotAnchored, "The record is not anchored yet; its receipt exists once it is")
		p.Detail = na.Detail
		return p, false
	}
	var other *imagex.OtherFormatError
	if errors.As(err, &other) {
		p := NewProblem(fasthttp.StatusUnsupportedMediaType, CodeUnsupportedImage, "The file is not a JPEG, PNG, GIF or WebP image")
		p.Detail = "The file is a " + other.Name + " image, which the service does not read yet; convert it to JPEG, PNG or WebP (most phones can share a photo as JPEG)."
		return p, false
	}
	if errors.Is(err, store.ErrBadCursor) {
		return cursorProblem(), false
	}
	for _, m := range errorMappings {
		if errors.Is(err, m.err) {
			return NewProblem(m.status, m.code, m.title), false
		}
	}
	if p, internal, ok := retryProblem(err, contextMappings); ok {
		return p, internal
	}
	return NewProblem(fasthttp.StatusInternalServerError, CodeInternal, "Internal server error"), true
}

// WriteProblem writes p as the response (status, headers and body), with
// the request id as its request_id member. p itself is not modified.
func WriteProblem(ctx *fasthttp.RequestCtx, p *Problem) {
	cp := *p
	cp.RequestID = RequestID(ctx)
	body, err := json.Marshal(&cp)
	if err != nil { // cannot happen for this type; keep a valid body anyway
		body = []byte(`{"type":"` + ProblemTypeBase + CodeInternal + `","title":"Internal server error","status":500,"code":"internal_error"}`)
	}
	if p.RetryAfter > 0 {
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	if p.Status == fasthttp.StatusUnauthorized {
		ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="provenant"`)
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/problem+json")
	ctx.SetStatusCode(p.Status)
	ctx.SetBody(body)
}

// writeOK answers 200 with body as contentType; cacheControl, when not
// empty, says how long it may be kept.
func writeOK(ctx *fasthttp.RequestCtx, contentType, cacheControl string, body []byte) error {
	if cacheControl != "" {
		ctx.Response.Header.Set("Cache-Control", cacheControl)
	}
	ctx.SetContentType(contentType)
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetBody(body)
	return nil
}

// WriteJSON writes v as a JSON response with status.
func WriteJSON(ctx *fasthttp.RequestCtx, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/json")
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
	return nil
}
