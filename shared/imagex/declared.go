package imagex

import (
	"fmt"
	"mime"
	"path"
	"strings"
)

// ErrFormatMismatch: the sniffed format disagrees with the declared one.
var ErrFormatMismatch = fmt.Errorf("%w: declared type does not match content", ErrUnsupportedFormat)

// CheckDeclared compares the sniffed format f with what the client declared:
// a media type ("image/png", parameters allowed) and/or a file name
// ("photo.png"). Empty values are not checked; application/octet-stream is
// treated as undeclared. A mismatch returns an error wrapping
// [ErrFormatMismatch] (and so [ErrUnsupportedFormat]).
func CheckDeclared(f Format, contentType, filename string) error {
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return fmt.Errorf("%w: content type %q: %w", ErrFormatMismatch, contentType, err)
		}
		if mt != "application/octet-stream" && mt != f.MIMEType() && !(f == JPEG && mt == "image/jpg") {
			return fmt.Errorf("%w: declared %s, content is %s", ErrFormatMismatch, mt, f)
		}
	}
	if filename != "" {
		ext := strings.ToLower(path.Ext(strings.ReplaceAll(filename, "\\", "/")))
		want := map[Format][]string{JPEG: {".jpg", ".jpeg", ".jpe", ".jfif"}, PNG: {".png"}, GIF: {".gif"}, WebP: {".webp"}}[f]
		ok := false
		for _, e := range want {
			ok = ok || ext == e
		}
		if !ok {
			return fmt.Errorf("%w: file name %q, content is %s", ErrFormatMismatch, filename, f)
		}
	}
	return nil
}
