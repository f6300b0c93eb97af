package client

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// FuzzParseRetryAfter: any header value gives a wait that is never
// negative, and a number of seconds gives exactly that many.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "7", "-3", "999999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT", " 5 ", "1.5"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d := parseRetryAfter(v, now)
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %v < 0", v, d)
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && n < 1<<30 && d != time.Duration(n)*time.Second {
			t.Fatalf("parseRetryAfter(%q) = %v", v, d)
		}
	})
}

// FuzzReadError: any error body becomes an *Error carrying the HTTP
// status (never the body's claim), whatever the body holds.
func FuzzReadError(f *testing.F) {
	f.Add(429, "application/problem+json", []byte(`{"type":"x","title":"t","status":200,"code":"rate_limited","errors":[{"field":"a","detail":"b"}]}`))
	f.Add(500, "text/html", []byte("<html>"))
	f.Add(404, "application/json", []byte(`[1,2`))
	f.Add(400, "application/problem+json", []byte(`{"status":"four hundred","errors":{}}`))
	f.Fuzz(func(t *testing.T, status int, ct string, body []byte) {
		if status < 400 || status > 599 {
			return
		}
		u, _ := url.Parse("http://origin.example/api/v1/sign?signing_key_id=k")
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}},
			Body: io.NopCloser(bytes.NewReader(body)), Request: &http.Request{Method: "POST", URL: u}}
		e := readError(resp, time.Now())
		if e.Status != status || e.Title == "" || e.URL != "http://origin.example/api/v1/sign" {
			t.Fatalf("readError = %+v", e)
		}
		_ = e.Error()
	})
}
