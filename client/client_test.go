package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// waits records the waits a client asked for instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) wait(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func newTestClient(t *testing.T, url string, w *waits) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: url, Token: "iai_test", Wait: w.wait, MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// script answers the n-th request with steps[n] (the last one repeats) and
// records every request's method, path, Idempotency-Key and body.
type script struct {
	mu    sync.Mutex
	steps []func(w http.ResponseWriter)
	reqs  []seen
}

type seen struct {
	method, path, key, auth, contentType string
	length                               int64
	body                                 string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, seen{r.Method, r.URL.Path, r.Header.Get("Idempotency-Key"), r.Header.Get("Authorization"),
		r.Header.Get("Content-Type"), r.ContentLength, string(b)})
	step := s.steps[min(n, len(s.steps)-1)]
	s.mu.Unlock()
	step(w)
}

func (s *script) seen() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

func problem(status int, code string, retryAfter string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Request-Id", "req-1")
		w.WriteHeader(status)
		io.WriteString(w, `{"type":"urn:provenant:problem:`+code+`","title":"t","status":`+strconv.Itoa(status)+
			`,"code":"`+code+`","detail":"d","field":"email","errors":[{"field":"email","detail":"bad"},{"field":"org_name","detail":"worse"}]}`)
	}
}

func okJSON(body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, body)
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		first      func(http.ResponseWriter)
		minWait    time.Duration
		maxWait    time.Duration
		wantTries  int
		wantStatus int
	}{
		{"429 with Retry-After seconds", problem(429, "rate_limited", "3"), 3 * time.Second, 3 * time.Second, 2, 0},
		{"503 with Retry-After", problem(503, "decode_capacity", "5"), 5 * time.Second, 5 * time.Second, 2, 0},
		{"500 without Retry-After backs off", problem(500, "internal_error", ""), 0, 10 * time.Millisecond, 2, 0},
		{"408 body_timeout is sent again", problem(408, "body_timeout", ""), 0, 10 * time.Millisecond, 2, 0},
		{"400 is not retried", problem(400, "malformed_multipart", ""), 0, 0, 1, 400},
		{"HTTP-date Retry-After", problem(429, "rate_limited", time.Now().Add(2*time.Hour).UTC().Format(http.TimeFormat)), 0, 0, 1, 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{steps: []func(http.ResponseWriter){tt.first, okJSON(`{"id":"k1","name":"n"}`)}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			w := &waits{}
			c := newTestClient(t, srv.URL, w)
			_, err := c.CreateSigningKey(context.Background(), CreateSigningKeyRequest{Name: "n", OriginType: "camera_image"})
			if tt.wantStatus != 0 {
				// Two hours is beyond MaxWait: the error comes back at once.
				var e *Error
				if !errors.As(err, &e) || e.Status != tt.wantStatus || (e.Status == 429 && e.RetryAfter < time.Hour) {
					t.Fatalf("err = %v, want a %d *Error with its Retry-After", err, tt.wantStatus)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got := s.seen()
			if len(got) != tt.wantTries {
				t.Fatalf("%d requests, want %d", len(got), tt.wantTries)
			}
			ws := w.all()
			if len(ws) != tt.wantTries-1 {
				t.Fatalf("waits = %v, want %d", ws, tt.wantTries-1)
			}
			for _, d := range ws {
				if d < tt.minWait || d > tt.maxWait {
					t.Errorf("waited %v, want within [%v, %v]", d, tt.minWait, tt.maxWait)
				}
			}
		})
	}
}

func TestIdempotencyKeyReusedAcrossRetries(t *testing.T) {
	s := &script{steps: []func(http.ResponseWriter){problem(503, "internal_error", "1"), problem(502, "", ""), okJSON(`{"id":"r"}`)}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := newTestClient(t, srv.URL, &waits{})
	ctx := context.Background()
	if _, err := c.RegisterContent(ctx, RegisterContentRequest{RecordID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RegisterContent(ctx, RegisterContentRequest{RecordID: "r"}); err != nil {
		t.Fatal(err)
	}
	got := s.seen()
	if len(got) != 4 {
		t.Fatalf("%d requests, want 4", len(got))
	}
	k := got[0].key
	if len(k) != 36 || k[14] != '4' {
		t.Fatalf("Idempotency-Key %q is not a UUIDv4", k)
	}
	for i, r := range got[:3] {
		if r.key != k {
			t.Errorf("attempt %d sent key %q, want %q (the first attempt's)", i, r.key, k)
		}
		if r.body != got[0].body {
			t.Errorf("attempt %d sent another body", i)
		}
	}
	if got[3].key == k || got[3].key == "" {
		t.Errorf("a second call sent key %q, want a fresh one", got[3].key)
	}
	// Reads carry none.
	if _, err := c.ListAPIKeys(ctx, PageOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := s.seen()[4]; r.method != "GET" || r.key != "" {
		t.Errorf("GET sent Idempotency-Key %q", r.key)
	}
}

func TestTypedProblem(t *testing.T) {
	s := &script{steps: []func(http.ResponseWriter){problem(400, "validation_failed", "")}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	w := &waits{}
	c := newTestClient(t, srv.URL, w)
	_, err := c.RegisterAccount(context.Background(), RegisterAccountRequest{Email: "x"})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %T %v, want *Error", err, err)
	}
	if e.Status != 400 || e.Code != "validation_failed" || e.Field != "email" || len(e.Errors) != 2 || e.Errors[1].Field != "org_name" || e.RequestID != "req-1" {
		t.Errorf("problem = %+v", e)
	}
	if !IsCode(err, "validation_failed") || IsCode(err, "rate_limited") {
		t.Error("IsCode does not branch on the code")
	}
	if n := len(s.seen()); n != 1 || len(w.all()) != 0 {
		t.Errorf("a 400 was retried (%d requests)", n)
	}
	if msg := err.Error(); !strings.Contains(msg, "validation_failed") || !strings.Contains(msg, "org_name: worse") {
		t.Errorf("Error() = %q", msg)
	}
}

func TestNonProblemError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(404)
		io.WriteString(w, "<html>nope</html>")
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, &waits{})
	_, err := c.Me(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Status != 404 || e.Code != "" || e.Title != "Not Found" {
		t.Fatalf("err = %#v", err)
	}
}

func TestNetworkErrorRetriedThenTyped(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more: connection refused
	w := &waits{}
	c := newTestClient(t, "http://"+addr, w)
	_, err = c.OriginTypes(context.Background())
	var ne *NetworkError
	if !errors.As(err, &ne) {
		t.Fatalf("err = %T %v, want *NetworkError", err, err)
	}
	if n := len(w.all()); n != DefaultMaxRetries {
		t.Errorf("%d waits, want %d retries", n, DefaultMaxRetries)
	}
	for i, d := range w.all() {
		if ceil := min(40*time.Millisecond, 10*time.Millisecond<<i); d < 0 || d > ceil {
			t.Errorf("backoff %d = %v, want within [0, %v]", i, d, ceil)
		}
	}
}

func TestContextCancelStopsRetries(t *testing.T) {
	s := &script{steps: []func(http.ResponseWriter){problem(503, "decode_capacity", "1")}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := New(Config{BaseURL: srv.URL, Wait: func(context.Context, time.Duration) error { cancel(); return context.Canceled }})
	_, err := c.OriginTypes(ctx)
	var e *Error
	if !errors.As(err, &e) || e.Code != "decode_capacity" || len(s.seen()) != 1 {
		t.Fatalf("err = %v after %d requests, want the 503 after one", err, len(s.seen()))
	}
}

func TestStreamingUploadFraming(t *testing.T) {
	var gotName, gotData, gotReturn string
	var gotLen int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotLen = r.ContentLength
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Errorf("ParseMultipartForm: %v", err)
		}
		f, h, err := r.FormFile("file")
		if err == nil {
			b, _ := io.ReadAll(f)
			gotName, gotData = h.Filename, string(b)
		}
		gotReturn = r.FormValue("derivative_of")
		okJSON(`{"record_id":"r"}`)(w)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, &waits{})
	data := strings.Repeat("pixels", 1000)
	up := BytesUpload("photo.jpg", []byte(data))
	body, err := multipartBody([]part{{field: "file", file: &up}, {field: "derivative_of", text: "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := body.open()
	all, _ := io.ReadAll(rc)
	if int64(len(all)) != body.length {
		t.Fatalf("declared length %d, body is %d bytes", body.length, len(all))
	}
	if _, err := c.Sign(context.Background(), SignRequest{File: up, SigningKeyID: "k", DerivativeOf: "abc"}); err != nil {
		t.Fatal(err)
	}
	if gotName != "photo.jpg" || gotData != data || gotReturn != "abc" || gotLen <= int64(len(data)) {
		t.Errorf("server saw name %q, %d bytes, derivative_of %q, Content-Length %d", gotName, len(gotData), gotReturn, gotLen)
	}
	// A reader of unknown length goes chunked and is sent once.
	if _, err := c.Verify(context.Background(), ReaderUpload("r.jpg", strings.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	if gotLen != -1 || gotData != data {
		t.Errorf("reader upload: Content-Length %d, %d bytes", gotLen, len(gotData))
	}
}

func TestReaderUploadNotResent(t *testing.T) {
	s := &script{steps: []func(http.ResponseWriter){problem(503, "decode_capacity", "1"), okJSON(`{}`)}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := newTestClient(t, srv.URL, &waits{})
	_, err := c.Verify(context.Background(), ReaderUpload("r.jpg", strings.NewReader("abc")))
	if !IsCode(err, "decode_capacity") {
		t.Fatalf("err = %v, want the first attempt's decode_capacity", err)
	}
	if n := len(s.seen()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"7", 7 * time.Second}, {"-1", 0}, {"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDownloadResumes(t *testing.T) {
	file := bytes.Repeat([]byte("signed picture bytes "), 5000)
	sum := sha256.Sum256(file)
	sumHex := hex.EncodeToString(sum[:])
	etag := `"` + sumHex + `"`
	var mu sync.Mutex
	var ranges []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := len(ranges)
		ranges = append(ranges, r.Header.Get("Range")+"|"+r.Header.Get("If-Range"))
		mu.Unlock()
		w.Header().Set("ETag", etag)
		w.Header().Set("X-Content-SHA256", sumHex)
		w.Header().Set("Content-Type", "image/jpeg")
		if n == 0 {
			// Cut the first transfer after 1000 bytes.
			w.Header().Set("Content-Length", strconv.Itoa(len(file)))
			w.WriteHeader(200)
			w.Write(file[:1000])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(file))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, &waits{})
	var dst bytes.Buffer
	f, err := c.DownloadFile(context.Background(), "rec", &dst)
	if err != nil {
		t.Fatalf("DownloadFile: %v", err)
	}
	if !bytes.Equal(dst.Bytes(), file) || f.Size != int64(len(file)) || f.SHA256 != sumHex || f.Ext() != ".jpg" {
		t.Fatalf("got %d bytes (%+v), want the %d-byte file", dst.Len(), f, len(file))
	}
	if len(ranges) != 2 || ranges[1] != "bytes=1000-|"+etag {
		t.Errorf("requests' Range|If-Range = %q, want a resume at 1000 on the ETag", ranges)
	}
}

func TestDownloadDigestMismatch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-SHA256", strings.Repeat("0", 64))
		w.Write([]byte("not the signed file"))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, &waits{})
	if _, err := c.DownloadFile(context.Background(), "rec", io.Discard); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("err = %v, want ErrDigestMismatch", err)
	}
}
