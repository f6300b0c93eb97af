package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/limits"
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

// TestVerifyMemoryBound: while one verify body is being received, a
// second that would take the edge past its verify memory is refused at
// once with 503 verify_capacity; once the first is done, verifies are
// accepted again.
func TestVerifyMemoryBound(t *testing.T) {
	lim := limits.Default()
	lim.MaxUploadBytes = 200 << 10
	edge := proxyEdge(t, echoOrigin(t), func(c *Config) {
		c.Limits, c.VerifyMemory = lim, lim.MaxUploadBytes+multipartSlack
	})
	conn, err := net.Dial("tcp", strings.TrimPrefix(edge, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	// A verify of 150 KB whose body stops after its first 20 KB.
	fmt.Fprintf(conn, "POST /api/v1/verify HTTP/1.1\r\nHost: edge\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: %d\r\n\r\n", 150<<10)
	_, _ = conn.Write(bytes.Repeat([]byte("a"), 20<<10))
	var r response
	// Retry for a while: a loaded machine under the race detector can take
	// over a second to read the first request's headers or see its close.
	// First, until the edge has taken the first request's reservation.
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		if r = probeVerify(t, edge, 150<<10); r.status == 503 {
			break
		}
	}
	mustStatus(t, r, 503, "a second verify while the first holds the memory")
	if r.json(t)["code"] != "verify_capacity" || r.header.Get("Retry-After") == "" {
		t.Errorf("%v %s", r.header, r.body)
	}
	conn.Close()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		if r = probeVerify(t, edge, 150<<10); r.status != 503 {
			break
		}
	}
	if r.status == 503 {
		t.Fatalf("verify still refused after the first request ended: %s", r.body)
	}
}

// probeVerify sends a verify of n bytes the way a careful client does:
// headers first, the body only once the edge has not answered them. A
// refusal comes before any body byte is sent, so it is read whole; a
// client that pushed the body blindly would race the edge's close and
// could see a connection reset instead of the 503.
func probeVerify(t *testing.T, edge string, n int) response {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(edge, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/verify HTTP/1.1\r\nHost: edge\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", n)
	read := func() (*http.Response, error) { return http.ReadResponse(bufio.NewReader(conn), nil) }
	// A refusal is written as soon as the headers are read; two seconds
	// of silence leave room for a slow, busy machine.
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	resp, err := read()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() { // accepted: the edge waits for the body
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write(make([]byte, n)); err != nil {
			t.Fatalf("sending the body: %v", err)
		}
		resp, err = read()
	}
	if err != nil {
		t.Fatalf("reading the edge's answer: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}
