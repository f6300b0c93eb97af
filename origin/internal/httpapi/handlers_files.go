package httpapi

import (
	"io"
	"mime"
	"path"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/keys"
)

// CodeFileNotKept (404): the record exists but its signed file is not
// stored: a registered record (the service never saw the file) or one
// signed before signed outputs were kept.
const CodeFileNotKept = "file_not_kept"

// CodeRangeNotSatisfiable (416): the Range starts past the end of the file.
const CodeRangeNotSatisfiable = "range_not_satisfiable"

func (a *API) registerFiles() {
	a.Handle(Route{Method: "GET", Path: "/api/v1/content-records/{id}/file", Auth: JWTOrAPIKey, Scope: keys.ScopeRead}, a.handleFile)
	a.Handle(Route{Method: "GET", Path: "/api/v1/content-records/{id}/thumbnail", Auth: JWTOrAPIKey, Scope: keys.ScopeRead}, a.handleThumbnail)
}

// fileBody streams a byte range of an open blob and closes the blob when
// the response is done.
type fileBody struct {
	*io.SectionReader
	io.Closer
}

// handleFile: GET /api/v1/content-records/{id}/file, the owner's signed
// output. Strong ETag (the file's SHA-256), If-None-Match, a single byte
// Range (multiple ranges are answered with the whole file, as RFC 9110
// allows), If-Range, and the original name in Content-Disposition.
func (a *API) handleFile(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	r, blob, err := a.cfg.Records.File(Context(ctx), p.AccountID, pathParam(ctx, "id"))
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			_ = blob.Close()
		}
	}()
	size := blob.Size()
	etag := `"` + r.SHA256 + `"`
	h := &ctx.Response.Header
	h.Set("ETag", etag)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": signedFileName(r)}))
	h.Set("X-Content-SHA256", r.SHA256)
	ctx.SetContentType(outputType(r.OutputFormat))
	if notModified(ctx, etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return nil
	}
	start, end := int64(0), size-1
	status := fasthttp.StatusOK
	if rg := string(ctx.Request.Header.Peek("Range")); rg != "" && ifRangeHolds(ctx, etag) {
		s, e, satisfiable, single := parseRange(rg, size)
		switch {
		case !satisfiable:
			h.Set("Content-Range", "bytes */"+strconv.FormatInt(size, 10))
			return NewProblem(fasthttp.StatusRequestedRangeNotSatisfiable, CodeRangeNotSatisfiable, "The range starts past the end of the file")
		case single:
			start, end, status = s, e, fasthttp.StatusPartialContent
			h.Set("Content-Range", "bytes "+strconv.FormatInt(s, 10)+"-"+strconv.FormatInt(e, 10)+"/"+strconv.FormatInt(size, 10))
		}
	}
	ctx.SetStatusCode(status)
	n := end - start + 1
	ok = true
	ctx.SetBodyStream(fileBody{SectionReader: io.NewSectionReader(blob, start, n), Closer: blob}, int(n))
	return nil
}

// ifRangeHolds reports whether a Range may apply: no If-Range, or an
// If-Range naming the current ETag.
func ifRangeHolds(ctx *fasthttp.RequestCtx, etag string) bool {
	ir := string(ctx.Request.Header.Peek("If-Range"))
	return ir == "" || ir == etag
}

// parseRange reads a "bytes=" Range header for a file of size bytes.
// single is false when the header is not one well-formed byte range (it is
// then ignored); satisfiable is false when a well-formed range starts past
// the end.
func parseRange(h string, size int64) (start, end int64, satisfiable, single bool) {
	spec, found := strings.CutPrefix(h, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, 0, true, false
	}
	first, last, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return 0, 0, true, false
	}
	if first == "" { // suffix range: the last n bytes
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, true, false
		}
		if n == 0 || size == 0 {
			return 0, 0, false, true
		}
		return max(size-n, 0), size - 1, true, true
	}
	s, err := strconv.ParseInt(first, 10, 64)
	if err != nil || s < 0 {
		return 0, 0, true, false
	}
	e := size - 1
	if last != "" {
		if e, err = strconv.ParseInt(last, 10, 64); err != nil || e < s {
			return 0, 0, true, false
		}
		e = min(e, size-1)
	}
	if s >= size {
		return 0, 0, false, true
	}
	return s, e, true, true
}

func outputType(format string) string {
	if format == "jpeg" {
		return "image/jpeg"
	}
	if format == content.VideoFormat {
		return content.VideoMIME
	}
	return "image/png"
}

// signedFileName is the download name: the original name with ".signed"
// before the extension of the output format, as the CLI names it.
func signedFileName(r *content.Record) string {
	base := strings.TrimSuffix(r.OriginalFilename, path.Ext(r.OriginalFilename))
	if base == "" {
		base = r.ID
	}
	ext := ".png"
	switch r.OutputFormat {
	case "jpeg":
		ext = ".jpg"
	case content.VideoFormat:
		ext = ".mp4"
	}
	return base + ".signed" + ext
}
