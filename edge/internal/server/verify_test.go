package server

import (
	"bytes"
	"mime/multipart"
	"net/textproto"
	"testing"
)

func multipartOf(t testing.TB, parts ...[3]string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts { // name, filename, content
		h := textproto.MIMEHeader{}
		if p[1] != "" {
			h.Set("Content-Disposition", `form-data; name="`+p[0]+`"; filename="`+p[1]+`"`)
		} else {
			h.Set("Content-Disposition", `form-data; name="`+p[0]+`"`)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(p[2]))
	}
	_ = mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// TestSingleFile: only a body of exactly one non-empty "file" part with a
// file name is verified at the edge; anything else goes to the origin.
func TestSingleFile(t *testing.T) {
	for _, tt := range []struct {
		name  string
		parts [][3]string
		ok    bool
	}{
		{"one file", [][3]string{{"file", "a.jpg", "JPEGDATA"}}, true},
		{"empty file", [][3]string{{"file", "a.jpg", ""}}, false},
		{"no file name", [][3]string{{"file", "", "JPEGDATA"}}, false},
		{"other name", [][3]string{{"image", "a.jpg", "JPEGDATA"}}, false},
		{"two files", [][3]string{{"file", "a.jpg", "A"}, {"file", "b.jpg", "B"}}, false},
		{"file and a field", [][3]string{{"file", "a.jpg", "A"}, {"note", "", "x"}}, false},
		{"no parts", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, ct := multipartOf(t, tt.parts...)
			file, ok := singleFile([]byte(ct), body)
			if ok != tt.ok || (ok && string(file) != tt.parts[0][2]) {
				t.Fatalf("singleFile = %q, %v; want ok %v", file, ok, tt.ok)
			}
		})
	}
	if _, ok := singleFile([]byte("text/plain"), []byte("x")); ok {
		t.Error("a text/plain body was taken as a file")
	}
}

func FuzzSingleFile(f *testing.F) {
	body, ct := multipartOf(f, [3]string{"file", "a.jpg", "JPEGDATA"})
	f.Add([]byte(ct), body)
	f.Add([]byte("multipart/form-data; boundary=x"), []byte("--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nA\r\n--x--\r\n"))
	f.Add([]byte("multipart/form-data"), []byte("--"))
	f.Fuzz(func(t *testing.T, ct, body []byte) {
		file, ok := singleFile(ct, body)
		if ok && (len(file) == 0 || len(file) > len(body)) {
			t.Fatalf("file of %d bytes from a body of %d", len(file), len(body))
		}
	})
}
