package httpapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/imagex"
)

// TestValidationProblemStatus: 422 only when every invalid field is
// well-formed but refused by the name rules; any malformed field makes it
// 400.
func TestValidationProblemStatus(t *testing.T) {
	name := &validate.FieldError{Field: "org_name", Reason: validate.ReasonNameScripts, Unprocessable: true}
	malformed := &validate.FieldError{Field: "email", Reason: "is required"}
	tests := []struct {
		name string
		errs validate.Errors
		want int
	}{
		{"name rule only", validate.Errors{name}, 422},
		{"malformed only", validate.Errors{malformed}, 400},
		{"both", validate.Errors{name, malformed}, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := ValidationProblem(tc.errs)
			if p.Status != tc.want || p.Code != CodeValidation || len(p.Errors) != len(tc.errs) || p.Field != tc.errs[0].Field {
				t.Errorf("ValidationProblem = status %d code %q errors %d field %q; want %d validation_failed, %d errors, field %q",
					p.Status, p.Code, len(p.Errors), p.Field, tc.want, len(tc.errs), tc.errs[0].Field)
			}
		})
	}
}

// TestOtherImageFormatProblem: a phone's AVIF or HEIC photo is refused
// with 415 naming its format, never taken for something else.
func TestOtherImageFormatProblem(t *testing.T) {
	for _, tc := range []struct{ head, name string }{
		{"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00mif1miaf", "AVIF"},
		{"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1", "HEIC"},
	} {
		_, err := imagex.Sniff([]byte(tc.head))
		p, internal := problemFor(err)
		if internal || p.Status != 415 || p.Code != CodeUnsupportedImage || !strings.Contains(p.Detail, tc.name) || strings.Contains(p.Detail, "imagex") {
			t.Errorf("%s: problem %d %q %q (internal %v); want 415 %s naming %s without package names",
				tc.name, p.Status, p.Code, p.Detail, internal, CodeUnsupportedImage, tc.name)
		}
		if video.Sniff([]byte(tc.head)) {
			t.Errorf("%s sniffed as a video", tc.name)
		}
	}
}

// TestClaimProblems: look-before-mark refusals keep their codes and say
// what they matched; a near-duplicate flood is 429 with Retry-After.
func TestClaimProblems(t *testing.T) {
	p, internal := problemFor(&content.AlreadySignedError{RecordID: "r1", Evidence: []string{content.EvidencePerceptualGeometry}, Geometry: "mirrored, cropped 10 % a side"})
	if internal || p.Status != 409 || p.Code != CodeAlreadySigned || p.RecordID != "r1" ||
		!strings.Contains(p.Detail, "perceptual_geometry, mirrored, cropped 10 % a side") || !strings.Contains(p.Detail, "derivative_of=r1") {
		t.Errorf("already signed → %+v (internal %v)", p, internal)
	}
	p, internal = problemFor(fmt.Errorf("register: %w", &content.NearDuplicateLimitError{Count: 4, RetryAfter: 90 * time.Minute}))
	if internal || p.Status != 429 || p.Code != CodeNearDuplicateLimit || p.RetryAfter != 5400 || !strings.Contains(p.Detail, "4 records") {
		t.Errorf("near-duplicate limit → %+v (internal %v)", p, internal)
	}
}

// TestVideoProblem: each video sentinel, wrapped as the engine wraps it,
// becomes its problem; the probe's words reach the detail only where the
// table says so, without the package prefix; other errors are not video
// problems.
func TestVideoProblem(t *testing.T) {
	for _, tt := range []struct {
		err    error
		status int
		code   string
		detail string
	}{
		{video.ErrUnavailable, fasthttp.StatusServiceUnavailable, CodeVideoUnavailable, ""},
		{fmt.Errorf("sign: %w", content.ErrVideoUnavailable), fasthttp.StatusServiceUnavailable, CodeVideoUnavailable, ""},
		{video.ErrEmpty, fasthttp.StatusBadRequest, CodeEmptyFile, ""},
		{fmt.Errorf("%w: 3 GB > 2 GB", video.ErrTooLarge), fasthttp.StatusRequestEntityTooLarge, CodeBodyTooLarge, "file too large: 3 GB > 2 GB"},
		{fmt.Errorf("%w: codec prores", video.ErrUnsupported), fasthttp.StatusUnsupportedMediaType, CodeUnsupportedVideo, "unsupported format or codec: codec prores"},
		{fmt.Errorf("%w: /tmp/spool/x.mp4: moov atom not found", video.ErrCorrupt), fasthttp.StatusUnprocessableEntity, CodeCorruptVideo, ""},
		{fmt.Errorf("%w: duration 700 s > 600 s", video.ErrLimit), fasthttp.StatusUnprocessableEntity, CodeVideoLimits, "outside the limits: duration 700 s > 600 s"},
		{fmt.Errorf("%w: 64x36", video.ErrTooSmall), fasthttp.StatusUnprocessableEntity, CodeVideoTooSmall, "frames too small for the watermark: 64x36"},
		{video.ErrTimeout, fasthttp.StatusUnprocessableEntity, CodeVideoTimeout, ""},
		{fmt.Errorf("ffmpeg: %w", context.Canceled), fasthttp.StatusRequestTimeout, CodeRequestAbandoned, ""},
	} {
		p := videoProblem(tt.err)
		if p == nil || p.Status != tt.status || p.Code != tt.code || p.Detail != tt.detail {
			t.Errorf("videoProblem(%q) = %+v; want status %d, code %s, detail %q", tt.err, p, tt.status, tt.code, tt.detail)
		}
	}
	if p := videoProblem(errors.New("disk on fire")); p != nil {
		t.Errorf("videoProblem(another error) = %+v, want nil", p)
	}
}
