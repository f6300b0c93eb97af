package httpapi

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"mime/multipart"
	"os"
	"strings"
	"testing"
)

func buildMultipart(t testing.TB, files map[string][]byte, fields map[string]string) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	for name, data := range files {
		w, _ := mw.CreateFormFile(name, name+".bin")
		_, _ = w.Write(data)
	}
	_ = mw.Close()
	return mw.Boundary(), b.Bytes()
}

var testSpec = uploadSpec{FileFields: []string{"file"}, TextFields: []string{"return_file"}, MaxFiles: 1, MaxFileBytes: 1000, MaxTotalBytes: 4000}

func TestParseMultipart(t *testing.T) {
	data := bytes.Repeat([]byte("abc"), 100)
	bnd, body := buildMultipart(t, map[string][]byte{"file": data}, map[string]string{"return_file": "true"})
	f, err := parseMultipart(&capReader{r: bytes.NewReader(body), n: testSpec.MaxTotalBytes}, bnd, testSpec, len(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Files) != 1 || !bytes.Equal(f.Files[0].Data, data) || f.Files[0].SHA256 != sha256.Sum256(data) || f.Fields["return_file"] != "true" {
		t.Fatalf("parsed = %+v, want the file with its SHA-256 and return_file=true", f)
	}
	tests := []struct {
		name   string
		files  map[string][]byte
		fields map[string]string
		total  int64
		code   string
	}{
		{"file over cap", map[string][]byte{"file": make([]byte, 1001)}, nil, 4000, CodeBodyTooLarge},
		{"body over cap", map[string][]byte{"file": make([]byte, 900)}, nil, 500, CodeBodyTooLarge},
		{"unknown field", nil, map[string]string{"x": "1"}, 4000, CodeUnknownField},
		{"text too long", nil, map[string]string{"return_file": strings.Repeat("t", maxTextPart+1)}, 4000, CodeValidation},
	}
	for _, tt := range tests {
		bnd, body := buildMultipart(t, tt.files, tt.fields)
		spec := testSpec
		_, err := parseMultipart(&capReader{r: bytes.NewReader(body), n: tt.total}, bnd, spec, len(body))
		var p *Problem
		if !errors.As(err, &p) || p.Code != tt.code {
			t.Errorf("%s: err = %v, want problem %s", tt.name, err, tt.code)
		}
	}
}

func TestCapReader(t *testing.T) {
	for _, tt := range []struct {
		size, cap int
		wantErr   bool
	}{{10, 10, false}, {11, 10, true}, {0, 0, false}, {1, 0, true}} {
		b, err := io.ReadAll(&capReader{r: bytes.NewReader(make([]byte, tt.size)), n: int64(tt.cap)})
		if gotErr := errors.Is(err, errBodyCap); gotErr != tt.wantErr {
			t.Errorf("capReader(size %d, cap %d): err %v, want cap error %v", tt.size, tt.cap, err, tt.wantErr)
		}
		if !tt.wantErr && len(b) != tt.size {
			t.Errorf("capReader(size %d, cap %d) read %d bytes", tt.size, tt.cap, len(b))
		}
	}
}

func TestPrefersHTML(t *testing.T) {
	for _, tt := range []struct {
		accept string
		want   bool
	}{
		{"", false},
		{"application/json", false},
		{"text/html", true},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true},
		{"application/json, text/html;q=0.5", false},
		{"text/html;q=0.5, application/json", false},
		{"*/*", false},
	} {
		if got := prefersHTML([]byte(tt.accept)); got != tt.want {
			t.Errorf("prefersHTML(%q) = %v, want %v", tt.accept, got, tt.want)
		}
	}
}

// FuzzParseMultipart feeds arbitrary bodies to the upload parser: it must
// never panic, never return more than MaxFiles files or a file over
// MaxFileBytes, and every error must be a *Problem.
func FuzzParseMultipart(f *testing.F) {
	bnd, body := buildMultipart(f, map[string][]byte{"file": []byte("hello")}, map[string]string{"return_file": "false"})
	f.Add(bnd, body)
	f.Add("xyz", []byte("--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nabc\r\n--xyz--\r\n"))
	f.Add("b", []byte("--b\r\n\r\n--b--"))
	f.Add("b", []byte(""))
	f.Fuzz(func(t *testing.T, boundary string, body []byte) {
		if boundary == "" {
			return
		}
		form, err := parseMultipart(&capReader{r: bytes.NewReader(body), n: testSpec.MaxTotalBytes}, boundary, testSpec, len(body))
		if err != nil {
			var p *Problem
			if !errors.As(err, &p) {
				t.Fatalf("error %v is not a *Problem", err)
			}
			return
		}
		if len(form.Files) > testSpec.MaxFiles {
			t.Fatalf("%d files > MaxFiles", len(form.Files))
		}
		for _, fl := range form.Files {
			if int64(len(fl.Data)) > testSpec.MaxFileBytes || fl.SHA256 != sha256.Sum256(fl.Data) {
				t.Fatalf("file of %d bytes with hash mismatch or over cap", len(fl.Data))
			}
		}
	})
}

// TestParseMultipartSpool: on a route that spools, a part whose first
// bytes match goes to a file (hashed on the way, Data nil) up to its own
// cap, above the in-memory cap; anything else is held in memory as
// before; Close and any refusal leave no spooled file behind.
func TestParseMultipartSpool(t *testing.T) {
	dir := t.TempDir()
	spec := testSpec
	spec.MaxTotalBytes = 1 << 20
	spec.Spool = &spoolSpec{Match: func(h []byte) bool { return bytes.HasPrefix(h, []byte("VIDEO")) }, MaxBytes: 50000, Dir: dir}
	parse := func(data []byte) (*uploadForm, error) {
		bnd, body := buildMultipart(t, map[string][]byte{"file": data}, nil)
		return parseMultipart(&capReader{r: bytes.NewReader(body), n: spec.MaxTotalBytes}, bnd, spec, len(body))
	}
	left := func() int {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	vid := append([]byte("VIDEO"), bytes.Repeat([]byte{7}, 40000)...)
	f, err := parse(vid)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(f.Files[0].Path)
	if err != nil || !bytes.Equal(got, vid) || f.Files[0].Data != nil || f.Files[0].SHA256 != sha256.Sum256(vid) {
		t.Fatalf("spooled file: %d bytes (%v), data %d bytes, want the %d bytes on disk with their SHA-256", len(got), err, len(f.Files[0].Data), len(vid))
	}
	f.Close()
	if n := left(); n != 0 {
		t.Fatalf("%d entries left after Close", n)
	}
	for _, tt := range []struct {
		name string
		data []byte
		code string
	}{
		{"spooled file over its cap", append([]byte("VIDEO"), make([]byte, 50000)...), CodeBodyTooLarge},
		{"other file over the memory cap", make([]byte, 1001), CodeBodyTooLarge},
	} {
		_, err := parse(tt.data)
		var p *Problem
		if !errors.As(err, &p) || p.Code != tt.code {
			t.Errorf("%s: err = %v, want problem %s", tt.name, err, tt.code)
		}
		if n := left(); n != 0 {
			t.Errorf("%s: %d entries left after the refusal", tt.name, n)
		}
	}
	small := []byte("VID")
	f, err = parse(small)
	if err != nil || f.Files[0].Path != "" || !bytes.Equal(f.Files[0].Data, small) {
		t.Fatalf("a part shorter than the sniffed prefix: %+v, %v; want it in memory", f, err)
	}
}

// TestParseMultipartBodyDeadline: a body whose read deadline passes
// mid-part is a late body (408 body_timeout), not a malformed one, while a
// body that ends early with no deadline involved stays malformed.
func TestParseMultipartBodyDeadline(t *testing.T) {
	bnd, body := buildMultipart(t, map[string][]byte{"file": bytes.Repeat([]byte("x"), 800)}, nil)
	cut := body[:len(body)/2]
	tests := []struct {
		name string
		tail error
		code string
	}{
		{"deadline passed", os.ErrDeadlineExceeded, CodeBodyTimeout},
		{"connection closed early", io.ErrUnexpectedEOF, CodeMalformedMultipart},
	}
	for _, tt := range tests {
		r := io.MultiReader(bytes.NewReader(cut), errReader{tt.tail})
		_, err := parseMultipart(&capReader{r: r, n: testSpec.MaxTotalBytes}, bnd, testSpec, len(body))
		var p *Problem
		if !errors.As(err, &p) || p.Code != tt.code {
			t.Errorf("%s: err = %v, want problem %s", tt.name, err, tt.code)
		}
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
