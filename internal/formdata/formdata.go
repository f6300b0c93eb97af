// Package formdata builds the multipart/form-data body an upload form
// posts: text fields, then one file. The origin's sign, verify and register
// routes and the edge's verify read their uploads as such a body; the
// tests, benchmarks and soak runs that post to them build it here.
package formdata

import (
	"bytes"
	"maps"
	"mime/multipart"
	"slices"
)

// File returns a body holding fields, in name order (the same arguments
// give the same body but for the boundary), then data as the file part
// named field with the file name filename, and the Content-Type header
// that goes with the body.
func File(field, filename string, data []byte, fields map[string]string) (body []byte, contentType string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	// Writes to a bytes.Buffer do not fail: the errors below are nil.
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		_ = mw.WriteField(k, fields[k])
	}
	w, _ := mw.CreateFormFile(field, filename)
	_, _ = w.Write(data)
	_ = mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}
