package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOversizedUploadGetsProblem: a file over the upload limit is answered
// 413 body_too_large, and the client reads that answer instead of a
// connection reset, whether it declares the length or streams chunks.
func TestOversizedUploadGetsProblem(t *testing.T) {
	ts := startServer(t, "", nil)
	body, ct := multipartBody("big.png", bytes.Repeat([]byte{0x89}, 35_000_000))
	tests := []struct {
		name string
		body func() io.Reader
	}{
		{"content-length", func() io.Reader { return bytes.NewReader(body.Bytes()) }},
		// A reader without Len makes net/http send chunks.
		{"chunked", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(body.Bytes())} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", ts.base+"/api/v1/verify", tt.body())
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", ct)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("POST /api/v1/verify: %v", err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			r := response{status: resp.StatusCode, header: resp.Header, body: b}
			if r.status != 413 {
				t.Fatalf("status %d, want 413; body %s", r.status, r.body)
			}
			if code := r.problemCode(t); code != "body_too_large" {
				t.Errorf("code %q, want body_too_large", code)
			}
		})
	}
}

// TestOversizedUploadWriteThenRead: a client that sends its whole request
// before reading (as simple clients do) still reads the 413 problem: the
// server reads and discards the rest of the body before it answers and
// closes, so no reset destroys the answer.
func TestOversizedUploadWriteThenRead(t *testing.T) {
	ts := startServer(t, "", nil)
	body, ct := multipartBody("big.png", bytes.Repeat([]byte{0x89}, 35_000_000))
	host := strings.TrimPrefix(ts.base, "http://")
	tests := []struct {
		name   string
		header string
		body   func(w io.Writer) error
	}{
		{"content-length", "Content-Length: " + strconv.Itoa(body.Len()) + "\r\n", func(w io.Writer) error {
			_, err := w.Write(body.Bytes())
			return err
		}},
		{"chunked", "Transfer-Encoding: chunked\r\n", func(w io.Writer) error {
			b := body.Bytes()
			for len(b) > 0 {
				n := min(len(b), 1<<20)
				if _, err := fmt.Fprintf(w, "%x\r\n%s\r\n", n, b[:n]); err != nil {
					return err
				}
				b = b[n:]
			}
			_, err := io.WriteString(w, "0\r\n\r\n")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(60 * time.Second))
			head := "POST /api/v1/verify HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: " + ct + "\r\n" + tt.header + "\r\n"
			bw := bufio.NewWriterSize(c, 1<<16)
			werr := func() error {
				if _, err := bw.WriteString(head); err != nil {
					return err
				}
				if err := tt.body(bw); err != nil {
					return err
				}
				return bw.Flush()
			}()
			if werr != nil {
				t.Errorf("writing the request: %v (the server closed before reading the body)", werr)
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("reading the response: %v", err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			r := response{status: resp.StatusCode, header: resp.Header, body: b}
			if r.status != 413 {
				t.Fatalf("status %d, want 413; body %s", r.status, b)
			}
			if code := r.problemCode(t); code != "body_too_large" {
				t.Errorf("code %q, want body_too_large", code)
			}
		})
	}
}
