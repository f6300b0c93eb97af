package httpapi

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/video"
)

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
