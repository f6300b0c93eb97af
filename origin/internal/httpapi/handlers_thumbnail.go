package httpapi

import (
	"io"

	"github.com/valyala/fasthttp"
)

// CodeNoThumbnail (404): the record exists but no preview of it is kept
// (a registered record, a video, or one signed before previews were kept).
const CodeNoThumbnail = "no_thumbnail"

// handleThumbnail: GET /api/v1/content-records/{id}/thumbnail, the
// owner's small JPEG preview of the signed picture, made when it was
// signed. Like the file, it is the owner's only: a preview shows the
// picture, which the public certificate never does.
func (a *API) handleThumbnail(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	r, blob, err := a.cfg.Records.OpenThumbnail(Context(ctx), p.AccountID, pathParam(ctx, "id"))
	if err != nil {
		return err
	}
	etag := `"` + r.Thumbnail + `"`
	h := &ctx.Response.Header
	h.Set("ETag", etag)
	h.Set("Cache-Control", "private, max-age=86400")
	ctx.SetContentType("image/jpeg")
	if notModified(ctx, etag) {
		_ = blob.Close()
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return nil
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetBodyStream(fileBody{SectionReader: io.NewSectionReader(blob, 0, blob.Size()), Closer: blob}, int(blob.Size()))
	return nil
}
