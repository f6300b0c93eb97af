package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
)

// DownloadFile streams the signed file of one of the caller's records into
// dst (API key with scope read, or session JWT) and checks it against the
// record's SHA-256 ([ErrDigestMismatch] otherwise). A transfer cut short
// is resumed where it stopped (Range with If-Range on the file's ETag), up
// to Config.MaxRetries times, so dst receives each byte once. A registered
// record has no file: *Error file_not_kept.
func (c *Client) DownloadFile(ctx context.Context, id string, dst io.Writer) (*SignedFile, error) {
	path := "/api/v1/content-records/" + seg(id) + "/file"
	h := sha256.New()
	var out *SignedFile
	var etag string
	var written int64
	for attempt := 0; ; attempt++ {
		r := request{method: http.MethodGet, path: path, accept: "*/*"}
		if written > 0 {
			r.header = http.Header{"Range": {"bytes=" + strconv.FormatInt(written, 10) + "-"}, "If-Range": {etag}}
		}
		resp, err := c.send(ctx, r)
		if err != nil {
			return out, err
		}
		if out == nil {
			out = fileInfo(resp.Header)
			out.RecordID = id
			etag = resp.Header.Get("ETag")
			if out.SHA256 == "" {
				resp.Body.Close()
				return nil, &NetworkError{Method: r.method, URL: redact(resp.Request.URL), Err: errors.New("the answer is not a signed file")}
			}
		} else if resp.StatusCode != http.StatusPartialContent || !strings.HasPrefix(resp.Header.Get("Content-Range"), "bytes "+strconv.FormatInt(written, 10)+"-") {
			resp.Body.Close()
			return out, fmt.Errorf("client: download of %s: the origin did not resume at byte %d (status %d)", id, written, resp.StatusCode)
		}
		n, err := io.Copy(io.MultiWriter(taggedWriter{dst}, h), resp.Body)
		resp.Body.Close()
		written += n
		out.Size = written
		if err == nil {
			break
		}
		var werr *writeError
		if errors.As(err, &werr) || ctx.Err() != nil || attempt >= c.cfg.MaxRetries || c.cfg.MaxRetries < 0 {
			return out, &NetworkError{Method: r.method, URL: c.base.String() + path, Err: err}
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != out.SHA256 {
		return out, fmt.Errorf("%w (got %s, want %s)", ErrDigestMismatch, got, out.SHA256)
	}
	return out, nil
}

// writeError marks a failure of the destination, which a new attempt
// would not cure.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// taggedWriter marks the errors of w as writeErrors.
type taggedWriter struct{ w io.Writer }

func (t taggedWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

func fileInfo(h http.Header) *SignedFile {
	out := &SignedFile{
		RecordID: h.Get("X-Record-Id"), SHA256: h.Get("X-Content-SHA256"), OriginalSHA256: h.Get("X-Original-SHA256"),
		PerceptualHash: h.Get("X-Perceptual-Hash"), WatermarkPayloadHex: h.Get("X-Watermark-Payload"),
		SignatureHex: h.Get("X-Signature"), BlockchainStatus: h.Get("X-Blockchain-Status"),
		ParentRecordID: h.Get("X-Parent-Record-Id"), ContentType: h.Get("Content-Type"),
	}
	if _, params, err := mime.ParseMediaType(h.Get("Content-Disposition")); err == nil {
		out.Filename = filepath.Base(params["filename"])
	}
	return out
}
