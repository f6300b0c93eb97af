package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// Upload is a file to send. Open is called once per attempt, so a retry
// sends the file again from its start; Size is its exact length, or -1
// when unknown (then the request is sent chunked).
type Upload struct {
	// Name is the file name sent in the part header (the origin keeps it as
	// the record's original_filename).
	Name string
	Size int64
	Open func() (io.ReadCloser, error)
}

// FileUpload streams the file at path from disk, reopening it on a retry.
func FileUpload(path string) (Upload, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Upload{}, fmt.Errorf("client: %w", err)
	}
	if !st.Mode().IsRegular() {
		return Upload{}, fmt.Errorf("client: %s is not a regular file", path)
	}
	return Upload{
		Name: filepath.Base(path), Size: st.Size(),
		Open: func() (io.ReadCloser, error) { return os.Open(path) },
	}, nil
}

// BytesUpload sends b.
func BytesUpload(name string, b []byte) Upload {
	return Upload{Name: name, Size: int64(len(b)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
}

// ReaderUpload sends r, of unknown size. The request can be retried only
// while r has not been read; after that a failed attempt is returned.
func ReaderUpload(name string, r io.Reader) Upload {
	var used atomic.Bool
	return Upload{Name: name, Size: -1, Open: func() (io.ReadCloser, error) {
		if used.Swap(true) {
			return nil, errNotReplayable
		}
		return io.NopCloser(r), nil
	}}
}

type part struct {
	field string
	text  string
	file  *Upload
}

// multipartBody streams parts: the framing is built once, in memory
// (a few hundred bytes per part); the files are read from their Open at
// send time, so nothing of a file is held in memory, and the body's exact
// length is known whenever every file's size is.
func multipartBody(parts []part) (*body, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	type piece struct {
		frame []byte
		file  *Upload
	}
	var pieces []piece
	length := int64(0)
	for _, p := range parts {
		if p.file == nil {
			if err := mw.WriteField(p.field, p.text); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := mw.CreateFormFile(p.field, p.file.Name); err != nil {
			return nil, err
		}
		pieces = append(pieces, piece{frame: bytes.Clone(buf.Bytes()), file: p.file})
		length += int64(buf.Len())
		buf.Reset()
		if p.file.Size < 0 || length < 0 {
			length = -1
		} else {
			length += p.file.Size
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	tail := bytes.Clone(buf.Bytes())
	if length >= 0 {
		length += int64(len(tail))
	}
	open := func() (io.ReadCloser, error) {
		var rs []io.Reader
		var closers []io.Closer
		for _, pc := range pieces {
			f, err := pc.file.Open()
			if err != nil {
				for _, c := range closers {
					c.Close()
				}
				return nil, err
			}
			closers = append(closers, f)
			rs = append(rs, bytes.NewReader(pc.frame), f)
		}
		rs = append(rs, bytes.NewReader(tail))
		return &multiCloser{Reader: io.MultiReader(rs...), closers: closers}, nil
	}
	return &body{open: open, contentType: mw.FormDataContentType(), length: length}, nil
}

type multiCloser struct {
	io.Reader
	closers []io.Closer
}

func (m *multiCloser) Close() error {
	var errs []error
	for _, c := range m.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// SignRequest signs one file with one of the caller's signing keys.
type SignRequest struct {
	File         Upload
	SigningKeyID string
	// DerivativeOf declares the upload a derivative of that record (needed
	// when the upload is another account's signed content).
	DerivativeOf string
	// IdempotencyKey, if set, replaces the random key of this call (to
	// make a call that may be repeated after a crash idempotent).
	IdempotencyKey string
}

func (r SignRequest) request(returnFile bool) (request, error) {
	if r.SigningKeyID == "" {
		return request{}, errors.New("client: sign: SigningKeyID is required")
	}
	parts := []part{{field: "file", file: &r.File}}
	if returnFile {
		parts = append(parts, part{field: "return_file", text: "true"})
	}
	if r.DerivativeOf != "" {
		parts = append(parts, part{field: "derivative_of", text: r.DerivativeOf})
	}
	b, err := multipartBody(parts)
	if err != nil {
		return request{}, err
	}
	return request{method: http.MethodPost, path: "/api/v1/sign", query: url.Values{"signing_key_id": {r.SigningKeyID}},
		body: b, idempotencyKey: r.IdempotencyKey}, nil
}

// Sign uploads a file to be watermarked and signed by the service and
// returns the record (API key with scope sign, or session JWT). The
// signed file itself is not returned: see [Client.SignFile].
func (c *Client) Sign(ctx context.Context, req SignRequest) (*SignResponse, error) {
	r, err := req.request(false)
	if err != nil {
		return nil, err
	}
	var out SignResponse
	return &out, c.call(ctx, r, &out)
}

// SignedFile describes a signed file written by [Client.SignFile].
type SignedFile struct {
	RecordID            string
	SHA256              string
	OriginalSHA256      string
	PerceptualHash      string
	WatermarkPayloadHex string
	SignatureHex        string
	BlockchainStatus    string
	ParentRecordID      string
	// ContentType is image/jpeg or image/png, or for a video its
	// container's type (video/mp4, video/quicktime, video/webm); Filename
	// is the name the origin suggests ("<name>-signed.jpg").
	ContentType string
	Filename    string
	Size        int64
}

// Ext returns the file name extension of the signed output: ".jpg" or
// ".png" for a picture, ".mp4", ".mov" or ".webm" for a video.
func (f *SignedFile) Ext() string {
	switch f.ContentType {
	case "image/jpeg":
		return ".jpg"
	case "video/mp4":
		return ".mp4"
	case "video/quicktime":
		return ".mov"
	case "video/webm":
		return ".webm"
	}
	if e := filepath.Ext(f.Filename); e != "" {
		return e
	}
	return ".png"
}

// ErrDigestMismatch is returned when a downloaded file does not hash to
// the record's sha256.
var ErrDigestMismatch = errors.New("client: the received file does not hash to the record's sha256")

// SignFile signs like [Client.Sign] and streams the watermarked file into
// dst. The bytes written are checked against the record's sha256 while
// they are copied; a mismatch is [ErrDigestMismatch] (dst then holds bad
// bytes: write to a temporary file and rename it on success).
func (c *Client) SignFile(ctx context.Context, req SignRequest, dst io.Writer) (*SignedFile, error) {
	r, err := req.request(true)
	if err != nil {
		return nil, err
	}
	r.accept = "*/*"
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := fileInfo(resp.Header)
	if out.RecordID == "" || out.SHA256 == "" {
		return nil, &NetworkError{Method: r.method, URL: redact(resp.Request.URL), Err: errors.New("the answer is not a signed file")}
	}
	n, err := copyChecked(dst, resp.Body, out.SHA256)
	out.Size = n
	if err != nil {
		return out, err
	}
	return out, nil
}

// copyChecked copies src to dst and checks the SHA-256 of what was copied
// against wantHex.
func copyChecked(dst io.Writer, src io.Reader, wantHex string) (int64, error) {
	var h hash.Hash = sha256.New()
	n, err := io.Copy(io.MultiWriter(dst, h), src)
	if err != nil {
		return n, fmt.Errorf("client: receive file: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != wantHex {
		return n, fmt.Errorf("%w (got %s, want %s)", ErrDigestMismatch, got, wantHex)
	}
	return n, nil
}

// SignBatchRequest signs up to 10 files in one request (API key only).
type SignBatchRequest struct {
	Files        []Upload
	SigningKeyID string
	// DerivativeOf maps a file's index to the record it derives from.
	DerivativeOf   map[int]string
	IdempotencyKey string
}

// SignBatch signs several files; each item succeeds or fails on its own
// (see [BatchItem]). The signed files are not returned.
func (c *Client) SignBatch(ctx context.Context, req SignBatchRequest) (*BatchResponse, error) {
	if req.SigningKeyID == "" {
		return nil, errors.New("client: sign-batch: SigningKeyID is required")
	}
	parts := make([]part, 0, len(req.Files)+len(req.DerivativeOf))
	for i := range req.Files {
		parts = append(parts, part{field: "files", file: &req.Files[i]})
	}
	for i, id := range req.DerivativeOf {
		parts = append(parts, part{field: "derivative_of[" + strconv.Itoa(i) + "]", text: id})
	}
	b, err := multipartBody(parts)
	if err != nil {
		return nil, err
	}
	var out BatchResponse
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/api/v1/sign-batch",
		query: url.Values{"signing_key_id": {req.SigningKeyID}}, body: b, idempotencyKey: req.IdempotencyKey}, &out)
}

// Verify uploads a file for verification (public). An unknown file is not
// an error: the answer says authentic false.
func (c *Client) Verify(ctx context.Context, file Upload) (*VerifyResponse, error) {
	b, err := multipartBody([]part{{field: "file", file: &file}})
	if err != nil {
		return nil, err
	}
	var out VerifyResponse
	return &out, c.call(ctx, request{method: http.MethodPost, path: "/api/v1/verify", body: b}, &out)
}
