package httpapi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/wire"
)

// Video problem codes (docs/api.md, Video).
const (
	// CodeVideoUnavailable (503): the server has no ffmpeg; images are
	// unaffected.
	CodeVideoUnavailable = "video_unavailable"
	// CodeUnsupportedVideo (415): not MP4/MOV/WebM, or a video codec
	// outside H.264, H.265, VP8, VP9, AV1.
	CodeUnsupportedVideo = "unsupported_video_format"
	// CodeCorruptVideo (422): the container or its video stream cannot be
	// read (truncated, or a codec that is not what the container says).
	CodeCorruptVideo = "corrupt_video"
	// CodeVideoLimits (422): duration, resolution, frame rate or stream
	// count outside the limits; detail names the limit.
	CodeVideoLimits = "video_out_of_limits"
	// CodeVideoTooSmall (422): frames too small to carry the watermark.
	CodeVideoTooSmall = "video_too_small"
	// CodeVideoNotInBatch (415, sign-batch item): videos are signed one at
	// a time with POST /api/v1/sign.
	CodeVideoNotInBatch = "video_not_in_batch"
	// CodeVideoTimeout (422): the video took more than its CPU or wall-time
	// allowance to process.
	CodeVideoTimeout = "video_timeout"
	// CodeRequestAbandoned (408): the client closed the connection while
	// its video was processed; the work was stopped. Only logs and
	// metrics see it.
	CodeRequestAbandoned = "request_abandoned"
)

// videoMappings are the video sentinels' problems, first match first.
// withDetail rows carry the error's own words (sizes and limits from the
// probe, never a path) as the detail, without the sentinels' "video: "
// prefix, which names a package, not anything the reader knows; a
// decoder's diagnostics are never sent.
var videoMappings = []struct {
	err        error
	status     int
	code       string
	title      string
	withDetail bool
}{
	{video.ErrUnavailable, fasthttp.StatusServiceUnavailable, CodeVideoUnavailable, "Video is not available on this server", false},
	{content.ErrVideoUnavailable, fasthttp.StatusServiceUnavailable, CodeVideoUnavailable, "Video is not available on this server", false},
	{video.ErrEmpty, fasthttp.StatusBadRequest, CodeEmptyFile, "The uploaded file is empty", false},
	{video.ErrTooLarge, fasthttp.StatusRequestEntityTooLarge, CodeBodyTooLarge, "The uploaded file is too large", true},
	{video.ErrUnsupported, fasthttp.StatusUnsupportedMediaType, CodeUnsupportedVideo, "The file is not an MP4, MOV or WebM video in a supported codec", true},
	{video.ErrCorrupt, fasthttp.StatusUnprocessableEntity, CodeCorruptVideo, "The video is corrupt, truncated or not what its container says", false},
	{video.ErrLimit, fasthttp.StatusUnprocessableEntity, CodeVideoLimits, "The video is outside the limits", true},
	{video.ErrTooSmall, fasthttp.StatusUnprocessableEntity, CodeVideoTooSmall, "The video is too small to carry a watermark", true},
	{video.ErrTimeout, fasthttp.StatusUnprocessableEntity, CodeVideoTimeout, "The video took too long to process", false},
	{context.Canceled, fasthttp.StatusRequestTimeout, CodeRequestAbandoned, "The client closed the connection; the work was stopped", false},
}

// videoProblem maps the video sentinels to problems (videoMappings); nil
// when err is not one.
func videoProblem(err error) *Problem {
	for _, m := range videoMappings {
		if errors.Is(err, m.err) {
			p := NewProblem(m.status, m.code, m.title)
			if m.withDetail {
				p.Detail = strings.TrimPrefix(err.Error(), "video: ")
			}
			return p
		}
	}
	return nil
}

// videoErr returns err as a problem when it is a video error.
func videoErr(err error) error {
	if p := videoProblem(err); p != nil {
		return p
	}
	return err
}

// withVideoFile calls fn with the path of the uploaded video: the file it
// was spooled to, or, for a video held in memory (a server without video
// gets one up to the image cap, to answer 503), a private temporary copy
// removed afterwards. ffmpeg needs a seekable file: MP4 indexes may come
// last.
func withVideoFile(file uploadFile, fn func(path string) error) error {
	if file.Path != "" {
		return fn(file.Path)
	}
	dir, err := os.MkdirTemp("", "provenant-video-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "upload")
	if err := os.WriteFile(p, file.Data, 0o600); err != nil {
		return err
	}
	return fn(p)
}

// signVideo is the video branch of POST /api/v1/sign. derivative_of is
// not supported for video yet.
func (a *API) signVideo(ctx *fasthttp.RequestCtx, owner, keyID string, file uploadFile, retFile bool, parent string) error {
	if parent != "" {
		return FieldProblem("derivative_of", "is not supported for video")
	}
	work, cancel := clientContext(ctx)
	defer cancel()
	return videoErr(withVideoFile(file, func(path string) error {
		res, err := a.cfg.Records.SignVideo(work, content.SignVideoInput{
			Owner: owner, SigningKeyID: keyID, Path: path, Filename: file.Filename, SHA256: &file.SHA256,
		})
		if err != nil {
			return err
		}
		return writeSignResult(ctx, res, retFile)
	}))
}

// videoVerifyResponse is the verify response of a video: the image
// response's members plus "video" (docs/api.md, Video).
type videoVerifyResponse struct {
	wire.VerifyResponse
	Video *content.VideoDetails `json:"video"`
}

// verifyVideo is the video branch of POST /api/v1/verify.
func (a *API) verifyVideo(ctx *fasthttp.RequestCtx, file uploadFile) error {
	work, cancel := clientContext(ctx)
	defer cancel()
	return videoErr(withVideoFile(file, func(path string) error {
		res, det, err := a.cfg.Records.VerifyVideo(work, path, file.SHA256)
		if err != nil {
			return err
		}
		return WriteJSON(ctx, fasthttp.StatusOK, videoVerifyResponse{VerifyResponse: res.Response, Video: det})
	}))
}
