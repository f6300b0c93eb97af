package httpapi

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/valyala/fasthttp"
)

// Upload parsing. The server runs fasthttp with StreamRequestBody (and
// DisablePreParseMultipartForm), so a request body is not buffered before
// the handler runs and fasthttp does not enforce MaxRequestBodySize on it:
// the API checks Content-Length against the server cap up front, and
// readUpload reads the stream through a counting reader with the route's
// own cap, hashing each file while it is read: an image is held in memory
// (one copy), a video on the routes that take one is written to a
// temporary file (spoolSpec), so memory does not grow with its size.

// maxTextPart caps a non-file form field (e.g. return_file).
const maxTextPart = 1 << 10

// uploadFile is one file part: read whole into Data, or, when the route
// spools and the part is a video, written to the file at Path (Data nil).
type uploadFile struct {
	Field    string
	Filename string
	Data     []byte
	Path     string
	SHA256   [32]byte
}

// uploadForm is a parsed multipart/form-data body. Close removes the
// spooled files; handlers defer it.
type uploadForm struct {
	Files  []uploadFile
	Fields map[string]string
	dirs   []string
}

// Close removes the temporary directories of spooled files.
func (f *uploadForm) Close() {
	for _, d := range f.dirs {
		_ = os.RemoveAll(d)
	}
	f.dirs = nil
}

// spoolSpec lets a route take files too large to hold in memory (video):
// a file part whose first bytes Match says is one is written to a file
// in a private temporary directory, hashed on the way, up to MaxBytes.
type spoolSpec struct {
	// Match reports, from at most sniffLen first bytes, whether a part is
	// spooled.
	Match    func(head []byte) bool
	MaxBytes int64
	// Dir is where the temporary directories go ("" is the system's).
	Dir string
}

// sniffLen is how many first bytes of a file part decide whether it is
// spooled.
const sniffLen = 12

// uploadSpec says what a route accepts.
type uploadSpec struct {
	// FileFields are the names of file parts accepted.
	FileFields []string
	// TextFields are the names of text parts accepted; anything else is
	// refused (400 unknown_field).
	TextFields []string
	// MaxFiles bounds the number of file parts.
	MaxFiles int
	// MaxFileBytes bounds each file; MaxTotalBytes the whole body.
	MaxFileBytes  int64
	MaxTotalBytes int64
	// Spool, if set, sends some files to disk (spoolSpec).
	Spool *spoolSpec
}

var errBodyCap = errors.New("httpapi: body over cap")

// capReader returns errBodyCap once more than n bytes were read.
type capReader struct {
	r io.Reader
	n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n < 0 {
		return 0, errBodyCap
	}
	if int64(len(p)) > c.n+1 {
		p = p[:c.n+1]
	}
	k, err := c.r.Read(p)
	c.n -= int64(k)
	if c.n < 0 {
		return k, errBodyCap
	}
	return k, err
}

func tooLarge(detail string) *Problem {
	p := NewProblem(fasthttp.StatusRequestEntityTooLarge, CodeBodyTooLarge, "Request body too large")
	p.Detail = detail
	return p
}

// requestBody returns a reader over the request body that fails with a 413
// problem past max bytes, whether or not the server streams bodies.
func requestBody(ctx *fasthttp.RequestCtx, max int64) (io.Reader, error) {
	if cl := ctx.Request.Header.ContentLength(); cl > 0 && int64(cl) > max {
		ctx.SetConnectionClose()
		return nil, tooLarge("the body exceeds " + strconv.FormatInt(max, 10) + " bytes")
	}
	if s := ctx.RequestBodyStream(); s != nil {
		return &capReader{r: s, n: max}, nil
	}
	return &capReader{r: bytes.NewReader(ctx.Request.Body()), n: max}, nil
}

// readUpload parses a multipart/form-data request body as spec allows.
// Errors are *Problem values: 415 for another content type, 413 past a
// cap, 400 for a malformed body, an unknown or repeated part, or too many
// files.
func readUpload(ctx *fasthttp.RequestCtx, spec uploadSpec) (*uploadForm, error) {
	mt, params, err := mime.ParseMediaType(string(ctx.Request.Header.ContentType()))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, NewProblem(fasthttp.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be multipart/form-data")
	}
	body, err := requestBody(ctx, spec.MaxTotalBytes)
	if err != nil {
		return nil, err
	}
	form, err := parseMultipart(body, params["boundary"], spec, ctx.Request.Header.ContentLength())
	if err != nil {
		var p *Problem
		if errors.As(err, &p) && (p.Status == fasthttp.StatusRequestEntityTooLarge || p.Status == fasthttp.StatusRequestTimeout) {
			ctx.SetConnectionClose()
		}
		return nil, err
	}
	parts := make([]string, 0, len(form.Files)+len(form.Fields))
	for _, f := range form.Files {
		parts = append(parts, partDigest(f.Field, f.Filename, f.SHA256))
	}
	for name, v := range form.Fields {
		parts = append(parts, partDigest(name, "", sha256.Sum256([]byte(v))))
	}
	noteParts(ctx, parts)
	return form, nil
}

func malformedMultipart(detail string) *Problem {
	p := NewProblem(fasthttp.StatusBadRequest, CodeMalformedMultipart, "Malformed multipart body")
	p.Detail = detail
	return p
}

// parseMultipart is the stream parser behind readUpload (fuzzed on its
// own). On error nothing spooled is left behind.
func parseMultipart(body io.Reader, boundary string, spec uploadSpec, contentLength int) (_ *uploadForm, err error) {
	mr := multipart.NewReader(body, boundary)
	form := &uploadForm{Fields: map[string]string{}}
	defer func() {
		if err != nil {
			form.Close()
		}
	}()
	isFile := func(n string) bool {
		for _, f := range spec.FileFields {
			if f == n {
				return true
			}
		}
		return false
	}
	isText := func(n string) bool {
		for _, f := range spec.TextFields {
			if f == n {
				return true
			}
		}
		return false
	}
	var h hash.Hash
	for {
		part, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, partError(err)
		}
		name := part.FormName()
		switch {
		case isFile(name):
			if len(form.Files) >= spec.MaxFiles {
				p := malformedMultipart("at most " + strconv.Itoa(spec.MaxFiles) + " files per request")
				p.Code, p.Type, p.Field = CodeTooManyFiles, ProblemTypeBase+CodeTooManyFiles, name
				return nil, p
			}
			if h == nil {
				h = sha256.New()
			} else {
				h.Reset()
			}
			head := make([]byte, sniffLen)
			k, err := io.ReadFull(part, head)
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, partError(err)
			}
			head = head[:k]
			if spec.Spool != nil && spec.Spool.Match(head) {
				f, err := spool(form, spec.Spool, io.MultiReader(bytes.NewReader(head), part), h)
				if err != nil {
					var p *Problem
					if errors.As(err, &p) {
						p.Field = name
					}
					return nil, err
				}
				f.Field, f.Filename = name, part.FileName()
				form.Files = append(form.Files, f)
				continue
			}
			var buf bytes.Buffer
			if contentLength > 0 && spec.MaxFiles == 1 {
				buf.Grow(int(min(int64(contentLength), spec.MaxFileBytes)))
			}
			n, err := io.Copy(io.MultiWriter(&buf, h), io.LimitReader(io.MultiReader(bytes.NewReader(head), part), spec.MaxFileBytes+1))
			if err != nil {
				return nil, partError(err)
			}
			if n > spec.MaxFileBytes {
				p := tooLarge("a file exceeds " + strconv.FormatInt(spec.MaxFileBytes, 10) + " bytes")
				p.Field = name
				return nil, p
			}
			f := uploadFile{Field: name, Filename: part.FileName(), Data: buf.Bytes()}
			h.Sum(f.SHA256[:0])
			form.Files = append(form.Files, f)
		case isText(name):
			if _, dup := form.Fields[name]; dup {
				return nil, FieldProblem(name, "is given more than once")
			}
			b, err := io.ReadAll(io.LimitReader(part, maxTextPart+1))
			if err != nil {
				return nil, partError(err)
			}
			if len(b) > maxTextPart {
				return nil, FieldProblem(name, "is too long")
			}
			form.Fields[name] = string(b)
		default:
			p := NewProblem(fasthttp.StatusBadRequest, CodeUnknownField, "Unknown field in request body")
			if len(name) > 64 {
				name = name[:64]
			}
			p.Field = name
			p.Detail = "unknown form fields are rejected; see docs/api.md"
			return nil, p
		}
	}
	return form, nil
}

// spool writes r (a file part) to a new private directory, hashing it
// with h, and fails with a 413 problem past sp.MaxBytes.
func spool(form *uploadForm, sp *spoolSpec, r io.Reader, h hash.Hash) (uploadFile, error) {
	dir, err := os.MkdirTemp(sp.Dir, "provenant-upload-")
	if err != nil {
		return uploadFile{}, fmt.Errorf("httpapi: spool upload: %w", err)
	}
	form.dirs = append(form.dirs, dir)
	path := filepath.Join(dir, "upload")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return uploadFile{}, fmt.Errorf("httpapi: spool upload: %w", err)
	}
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, sp.MaxBytes+1))
	if cerr := f.Close(); err == nil && cerr != nil {
		return uploadFile{}, fmt.Errorf("httpapi: spool upload: %w", cerr)
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return uploadFile{}, fmt.Errorf("httpapi: spool upload: %w", err)
		}
		return uploadFile{}, partError(err)
	}
	if n > sp.MaxBytes {
		return uploadFile{}, tooLarge("a video exceeds " + strconv.FormatInt(sp.MaxBytes, 10) + " bytes")
	}
	out := uploadFile{Path: path}
	h.Sum(out.SHA256[:0])
	return out, nil
}

func partError(err error) error {
	if errors.Is(err, errBodyCap) {
		return tooLarge("the request body exceeds the upload cap")
	}
	if isTimeout(err) {
		return bodyTimeout()
	}
	return malformedMultipart("the multipart body could not be parsed")
}

// isTimeout reports whether err is a read deadline passing: the body did
// not arrive in time, which says nothing about whether it was well-formed.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// bodyTimeout is the answer to a body whose read deadline passed. A body
// cut short that way is not a malformed one: the client may have been
// slow, or the server may have spent the body's time waiting on its own
// dependencies (a database failover) before it read it; either way
// nothing was processed and the same request may be sent again.
func bodyTimeout() *Problem {
	p := NewProblem(fasthttp.StatusRequestTimeout, CodeBodyTimeout, "The request body did not arrive in time")
	p.Detail = "the body was not received within its read deadline; nothing was processed, send the request again"
	return p
}

// parseBool reads an optional boolean form or query value.
func parseBool(field, v string, def bool) (bool, error) {
	switch v {
	case "":
		return def, nil
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, FieldProblem(field, "must be true or false")
}
