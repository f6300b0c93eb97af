package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/compress"
)

const badgeCC = "public, max-age=30, stale-while-revalidate=30"

var badgeSVG = []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="150" height="20"><rect width="70" height="20" fill="#24292f"/>` +
	strings.Repeat(`<text x="35" y="14" fill="#fff" font-family="Verdana" font-size="11">Provenant</text>`, 6) + `</svg>`)

func badge() object {
	return object{ctype: "image/svg+xml; charset=utf-8", cc: badgeCC, etag: `"b1"`, body: badgeSVG,
		extra: map[string]string{"Access-Control-Allow-Origin": "*"}}
}

func TestMissThenHit(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/api/v1/widget/badge/r1.svg"
	f.origin.set(path, badge())

	r := f.get(t, path)
	if r.StatusCode() != 200 || xcache(r) != "MISS" || !bytes.Equal(r.Body(), badgeSVG) {
		t.Fatalf("first: %d %s %q", r.StatusCode(), xcache(r), r.Body())
	}
	f.clock.Advance(10 * time.Second)
	r = f.get(t, path)
	if r.StatusCode() != 200 || xcache(r) != "HIT" || !bytes.Equal(r.Body(), badgeSVG) {
		t.Fatalf("second: %d %s", r.StatusCode(), xcache(r))
	}
	if got := string(r.Header.Peek("Age")); got != "10" {
		t.Errorf("Age = %q, want 10", got)
	}
	for _, h := range []string{"Cache-Control", "Access-Control-Allow-Origin", "ETag"} {
		if len(r.Header.Peek(h)) == 0 {
			t.Errorf("HIT lost the %s header", h)
		}
	}
	if ct := string(r.Header.ContentType()); ct != "image/svg+xml; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	// HEAD shares GET's entry and states the length without a body.
	r = f.do(t, fasthttp.MethodHead, path)
	if xcache(r) != "HIT" || r.Header.ContentLength() != len(badgeSVG) || len(r.Body()) != 0 {
		t.Errorf("HEAD: %s length %d body %d", xcache(r), r.Header.ContentLength(), len(r.Body()))
	}
	if hits, _, _ := f.origin.count(path); hits != 1 {
		t.Errorf("origin hits = %d, want 1", hits)
	}
	// A query string is another object.
	r = f.get(t, path+"?v=2")
	if xcache(r) != "MISS" {
		t.Errorf("other query: %s", xcache(r))
	}
}

func TestRevalidated(t *testing.T) {
	tests := []struct {
		name    string
		cc      string
		advance time.Duration
	}{
		{"no-cache revalidates every use", "no-cache", 0},
		{"max-age ran out", "public, max-age=60", 61 * time.Second},
		{"must-revalidate after max-age", "public, max-age=5, must-revalidate, stale-while-revalidate=60", 6 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			const path = "/api/v1/content-records/r1/certificate"
			body := []byte(`{"record_id":"r1","status":"active"}`)
			f.origin.set(path, object{ctype: "application/json", cc: tt.cc, etag: `"c1"`, vary: "Accept", body: body})

			if r := f.get(t, path, "Accept", "application/json"); xcache(r) != "MISS" {
				t.Fatalf("first: %s", xcache(r))
			}
			f.clock.Advance(tt.advance)
			r := f.get(t, path, "Accept", "application/json")
			if r.StatusCode() != 200 || xcache(r) != "REVALIDATED" || !bytes.Equal(r.Body(), body) {
				t.Fatalf("second: %d %s %q", r.StatusCode(), xcache(r), r.Body())
			}
			hits, conditional, notModified := f.origin.count(path)
			if hits != 2 || conditional != 1 || notModified != 1 {
				t.Errorf("origin: hits %d, If-None-Match %d, 304s %d; want 2, 1, 1", hits, conditional, notModified)
			}
			if string(r.Header.Peek("Vary")) != "Accept" {
				t.Errorf("Vary = %q", r.Header.Peek("Vary"))
			}
		})
	}
}

func TestLastModifiedValidator(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/assets/app-3.css"
	lm := "Wed, 01 Jan 2025 00:00:00 GMT"
	f.origin.set(path, object{ctype: "text/css", cc: "public, max-age=10", body: []byte("body{}"),
		extra: map[string]string{"Last-Modified": lm}})
	f.get(t, path)
	f.clock.Advance(11 * time.Second)
	if r := f.get(t, path); xcache(r) != "REVALIDATED" || string(r.Body()) != "body{}" {
		t.Fatalf("after max-age: %s %q", xcache(r), r.Body())
	}
	if hits, conditional, notModified := f.origin.count(path); hits != 2 || conditional != 1 || notModified != 1 {
		t.Fatalf("origin: hits %d, conditional %d, 304s %d", hits, conditional, notModified)
	}
	tests := []struct {
		ims    string
		status int
	}{
		{lm, 304},
		{"Thu, 02 Jan 2025 00:00:00 GMT", 304},
		{"Tue, 31 Dec 2024 00:00:00 GMT", 200},
		{"not a date", 200},
	}
	for _, tt := range tests {
		if r := f.get(t, path, "If-Modified-Since", tt.ims); r.StatusCode() != tt.status {
			t.Errorf("If-Modified-Since %s: %d, want %d", tt.ims, r.StatusCode(), tt.status)
		}
	}
}

func TestRevalidationGetsNewBody(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/api/v1/widget/badge/r2.svg"
	f.origin.set(path, badge())
	f.get(t, path)
	revoked := badge()
	revoked.etag, revoked.body = `"b2"`, []byte(`<svg>revoked</svg>`)
	f.origin.set(path, revoked)
	f.clock.Advance(31 * time.Second) // past max-age, inside stale-while-revalidate
	if r := f.get(t, path); xcache(r) != "STALE" || !bytes.Equal(r.Body(), badgeSVG) {
		t.Fatalf("stale answer: %s %q", xcache(r), r.Body())
	}
	f.cache.bg.Wait()
	r := f.get(t, path)
	if xcache(r) != "HIT" || string(r.Body()) != "<svg>revoked</svg>" || string(r.Header.Peek("ETag")) != `"b2"` {
		t.Fatalf("after refresh: %s %q %s", xcache(r), r.Body(), r.Header.Peek("ETag"))
	}
}

func TestStaleCopyDroppedWhenNoLongerCacheable(t *testing.T) {
	for _, etag := range []string{`"b1"`, `"b9"`} { // the refresh gets a 304, or a new body
		t.Run(etag, func(t *testing.T) {
			f := newFixture(t, nil)
			const path = "/api/v1/widget/badge/r5.svg"
			f.origin.set(path, badge())
			f.get(t, path)
			now := badge()
			now.cc, now.etag = "no-store", etag
			f.origin.set(path, now)
			f.clock.Advance(35 * time.Second)
			if r := f.get(t, path); xcache(r) != "STALE" {
				t.Fatalf("first stale request: %s", xcache(r))
			}
			f.cache.bg.Wait()
			if r := f.get(t, path); xcache(r) != "MISS" {
				t.Fatalf("after the refresh: %s", xcache(r))
			}
		})
	}
}

func TestFailedRefreshWaitsBeforeRetrying(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/api/v1/widget/badge/r6.svg"
	f.origin.set(path, badge())
	f.get(t, path)
	f.origin.fail.Store(true)
	f.clock.Advance(35 * time.Second)
	for range 5 {
		if r := f.get(t, path); xcache(r) != "STALE" {
			t.Fatalf("stale request: %s", xcache(r))
		}
		f.cache.bg.Wait()
	}
	if hits, _, _ := f.origin.count(path); hits != 2 {
		t.Fatalf("origin asked %d times, want one failed refresh after the first fetch", hits)
	}
	f.clock.Advance(refreshRetry)
	f.get(t, path)
	f.cache.bg.Wait()
	if hits, _, _ := f.origin.count(path); hits != 3 {
		t.Fatalf("origin asked %d times, want a retry after %v", hits, refreshRetry)
	}
}

func TestFreshnessSources(t *testing.T) {
	date := newFakeClock().Now()
	tests := []struct {
		name     string
		cc       string
		extra    map[string]string
		freshFor time.Duration
	}{
		{"max-age", "max-age=20", nil, 20 * time.Second},
		{"s-maxage wins over max-age", "max-age=5, s-maxage=20", nil, 20 * time.Second},
		{"repeated max-age: the shorter", "max-age=60, max-age=20", nil, 20 * time.Second},
		{"origin's Age counts", "max-age=30", map[string]string{"Age": "10"}, 20 * time.Second},
		{"Expires minus Date", "", map[string]string{
			"Date": date.Format(http.TimeFormat), "Expires": date.Add(20 * time.Second).Format(http.TimeFormat)}, 20 * time.Second},
		{"max-age wins over Expires", "max-age=20", map[string]string{
			"Date": date.Format(http.TimeFormat), "Expires": date.Add(time.Hour).Format(http.TimeFormat)}, 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			const path = "/assets/app.css"
			f.origin.set(path, object{ctype: "text/css", cc: tt.cc, extra: tt.extra, body: []byte("body{}")})
			f.get(t, path)
			f.clock.Advance(tt.freshFor - time.Second)
			if r := f.get(t, path); xcache(r) != "HIT" {
				t.Fatalf("1 s before expiry: %s", xcache(r))
			}
			f.clock.Advance(time.Second)
			if r := f.get(t, path); xcache(r) != "MISS" {
				t.Fatalf("at expiry: %s", xcache(r))
			}
		})
	}
}

func TestVaryAccept(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/api/v1/content-records/r1/certificate"
	jsonBody, htmlBody := []byte(`{"record_id":"r1"}`), []byte(`<!doctype html><p>r1</p>`)
	f.origin.set(path, object{ctype: "application/json", cc: "public, max-age=60", etag: `"c1"`, vary: "Accept",
		body: jsonBody, byAccept: map[string][]byte{"text/html": htmlBody}})
	for i, want := range []string{"MISS", "HIT"} {
		if r := f.get(t, path, "Accept", "application/json"); xcache(r) != want || !bytes.Equal(r.Body(), jsonBody) {
			t.Fatalf("json %d: %s %q", i, xcache(r), r.Body())
		}
		if r := f.get(t, path, "Accept", "text/html"); xcache(r) != want || !bytes.Equal(r.Body(), htmlBody) {
			t.Fatalf("html %d: %s %q", i, xcache(r), r.Body())
		}
	}
	// Case and spaces do not make another entry.
	if r := f.get(t, path, "Accept", "Text/HTML "); xcache(r) != "HIT" || !bytes.Equal(r.Body(), htmlBody) {
		t.Fatalf("normalised accept: %s %q", xcache(r), r.Body())
	}
}

func TestStaleRules(t *testing.T) {
	const path = "/api/v1/widget/embed.js"
	js := []byte(strings.Repeat("console.log('provenant');\n", 40))
	type step struct {
		advance time.Duration
		want    string // X-Cache, or "503"
	}
	tests := []struct {
		name     string
		cc       string
		maxStale time.Duration
		failure  string // "stop" or "500"
		steps    []step
	}{
		{"stale-if-error while stopped, then 503", "public, max-age=10, stale-if-error=300", 30 * time.Second, "stop",
			[]step{{5 * time.Second, "HIT"}, {10 * time.Second, "STALE"}, {24 * time.Second, "STALE"}, {2 * time.Second, "503"}}},
		{"stale-if-error while the origin errs", "public, max-age=10, stale-if-error=20", time.Minute, "500",
			[]step{{15 * time.Second, "STALE"}, {14 * time.Second, "STALE"}, {2 * time.Second, "500"}}},
		{"no stale without the directive", "public, max-age=10", time.Minute, "stop",
			[]step{{11 * time.Second, "503"}}},
		{"stale-while-revalidate bounded by MaxStale", "public, max-age=10, stale-while-revalidate=600", 20 * time.Second, "stop",
			[]step{{15 * time.Second, "STALE"}, {14 * time.Second, "STALE"}, {2 * time.Second, "503"}}},
		{"no-cache is never served stale", "no-cache, stale-if-error=600", time.Minute, "stop",
			[]step{{0, "503"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.MaxStale = tt.maxStale })
			f.origin.set(path, object{ctype: "text/javascript; charset=utf-8", cc: tt.cc, etag: `"js1"`, body: js})
			if r := f.get(t, path); xcache(r) != "MISS" {
				t.Fatalf("first: %s", xcache(r))
			}
			if tt.failure == "stop" {
				f.origin.stop()
			} else {
				f.origin.fail.Store(true)
			}
			for i, s := range tt.steps {
				f.clock.Advance(s.advance)
				r := f.get(t, path)
				f.cache.bg.Wait()
				switch s.want {
				case "503":
					if r.StatusCode() != 503 || string(r.Header.ContentType()) != "application/problem+json" {
						t.Fatalf("step %d: %d %s, want 503 problem", i, r.StatusCode(), r.Header.ContentType())
					}
					var p struct {
						Code   string `json:"code"`
						Status int    `json:"status"`
					}
					if err := json.Unmarshal(r.Body(), &p); err != nil || p.Code != "origin_unavailable" || p.Status != 503 {
						t.Fatalf("step %d: problem %s (%v)", i, r.Body(), err)
					}
				case "500":
					if r.StatusCode() != 500 || xcache(r) != "MISS" {
						t.Fatalf("step %d: %d %s, want the origin's 500", i, r.StatusCode(), xcache(r))
					}
				default:
					if xcache(r) != s.want || r.StatusCode() != 200 || !bytes.Equal(r.Body(), js) {
						t.Fatalf("step %d: %d %s, want %s", i, r.StatusCode(), xcache(r), s.want)
					}
				}
			}
		})
	}
}

func TestStaleWhileRevalidateRefreshesOnce(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/api/v1/widget/badge/r3.svg"
	f.origin.set(path, badge())
	f.get(t, path)
	f.clock.Advance(40 * time.Second) // max-age 30, stale-while-revalidate 30
	gate := make(chan struct{})
	f.origin.mu.Lock()
	f.origin.gate = gate
	f.origin.mu.Unlock()
	for i := range 5 {
		if r := f.get(t, path); xcache(r) != "STALE" {
			t.Fatalf("request %d: %s", i, xcache(r))
		}
	}
	close(gate)
	f.cache.bg.Wait()
	hits, conditional, notModified := f.origin.count(path)
	if hits != 2 || conditional != 1 || notModified != 1 {
		t.Fatalf("origin: hits %d, conditional %d, 304s %d; want one background revalidation", hits, conditional, notModified)
	}
	if r := f.get(t, path); xcache(r) != "HIT" {
		t.Fatalf("after refresh: %s", xcache(r))
	}
	// The stale window ends; with the origin gone the badge is no more.
	f.origin.stop()
	f.clock.Advance(61 * time.Second)
	if r := f.get(t, path); r.StatusCode() != 503 {
		t.Fatalf("after the window: %d %s", r.StatusCode(), xcache(r))
	}
	f.origin.restart()
	if r := f.get(t, path); r.StatusCode() != 200 {
		t.Fatalf("origin back: %d %s", r.StatusCode(), xcache(r))
	}
}

// inFlight counts the goroutines inside a singleflight call: the one
// fetching and those waiting for its answer.
func inFlight() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "singleflight.(*Group).Do(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

func TestConcurrentMissesCoalesce(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/api/v1/widget/verifier-abc.wasm"
	wasm := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00"), 4096)
	f.origin.set(path, object{ctype: "application/wasm", cc: "public, max-age=31536000, immutable", etag: `"w"`, body: wasm})
	gate := make(chan struct{})
	arrived := make(chan struct{}, 100)
	f.origin.mu.Lock()
	f.origin.gate, f.origin.arrived = gate, arrived
	f.origin.mu.Unlock()

	const n = 24
	var wg sync.WaitGroup
	results := make([]*fasthttp.Response, n)
	for i := range n {
		wg.Go(func() { results[i] = f.get(t, path) })
	}
	<-arrived // the first fetch reached the origin and waits there
	// Let the fetch finish only once every request has joined it: a fixed
	// pause after they entered Serve let a descheduled one (loaded machine,
	// race detector) reach the flight after it ended and fetch again.
	for deadline := time.Now().Add(30 * time.Second); inFlight() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests joined the fetch in flight", inFlight(), n)
		}
	}
	close(gate)
	wg.Wait()
	if hits, _, _ := f.origin.count(path); hits != 1 {
		t.Fatalf("origin fetches = %d, want 1", hits)
	}
	for i, r := range results {
		if r.StatusCode() != 200 || !bytes.Equal(r.Body(), wasm) {
			t.Fatalf("request %d: %d, %d bytes", i, r.StatusCode(), len(r.Body()))
		}
	}
}

func TestByteBoundEvicts(t *testing.T) {
	const maxBytes = 64 << 10
	f := newFixture(t, func(c *Config) { c.MaxBytes = maxBytes })
	body := bytes.Repeat([]byte{0xAB}, 6<<10)
	const n = 40
	for i := range n {
		f.origin.set(fmt.Sprintf("/assets/a%d.bin", i), object{ctype: "application/octet-stream", cc: "public, max-age=600", body: body})
	}
	for i := range n {
		if r := f.get(t, fmt.Sprintf("/assets/a%d.bin", i)); xcache(r) != "MISS" {
			t.Fatalf("first a%d: %s", i, xcache(r))
		}
	}
	f.cache.store.CleanUp()
	if w := f.cache.store.WeightedSize(); w > maxBytes {
		t.Fatalf("weighted size %d > MaxBytes %d", w, maxBytes)
	}
	// Which objects stayed is the store's policy; that some did and some
	// did not is the bound at work. A request then tells them apart.
	var resident, evicted []string
	for i := range n {
		path := fmt.Sprintf("/assets/a%d.bin", i)
		if _, ok := f.cache.store.GetEntryQuietly("edge.test " + path); ok {
			resident = append(resident, path)
		} else {
			evicted = append(evicted, path)
		}
	}
	if len(resident) == 0 || len(evicted) == 0 {
		t.Fatalf("%d of %d objects resident under a %d-byte bound", len(resident), n, maxBytes)
	}
	if r := f.get(t, resident[0]); xcache(r) != "HIT" {
		t.Errorf("resident %s: %s", resident[0], xcache(r))
	}
	if r := f.get(t, evicted[0]); xcache(r) != "MISS" {
		t.Errorf("evicted %s: %s", evicted[0], xcache(r))
	}
	// An object larger than a quarter of the bound is served, never stored.
	big := bytes.Repeat([]byte{0xCD}, maxBytes/2)
	f.origin.set("/assets/big.bin", object{ctype: "application/octet-stream", cc: "public, max-age=600", body: big})
	for i := range 2 {
		if r := f.get(t, "/assets/big.bin"); xcache(r) != "MISS" || !bytes.Equal(r.Body(), big) {
			t.Fatalf("big %d: %s %d bytes", i, xcache(r), len(r.Body()))
		}
	}
}

func TestCompressedVariantCountsInWeight(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/api/v1/widget/worker.js"
	js := []byte(strings.Repeat("self.onmessage = (e) => postMessage(e.data);\n", 200))
	f.origin.set(path, object{ctype: "text/javascript", cc: "public, max-age=300", etag: `"k"`, body: js})
	f.get(t, path)
	f.cache.store.CleanUp()
	before := f.cache.store.WeightedSize()
	f.get(t, path, "Accept-Encoding", "gzip")
	f.cache.store.CleanUp()
	after := f.cache.store.WeightedSize()
	if after <= before {
		t.Fatalf("weight %d after the gzip variant, %d before", after, before)
	}
}

func TestErrorAnswersKeptAtMostErrorTTL(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.ErrorTTL = 5 * time.Second })
	const path = "/api/v1/widget/badge/missing.svg"
	nf := badge()
	nf.status, nf.body = 404, []byte(`<svg>not found</svg>`)
	f.origin.set(path, nf)
	steps := []struct {
		advance time.Duration
		want    string
	}{{0, "MISS"}, {4 * time.Second, "HIT"}, {2 * time.Second, "MISS"}, {4 * time.Second, "HIT"}}
	for i, s := range steps {
		f.clock.Advance(s.advance)
		r := f.get(t, path)
		if r.StatusCode() != 404 || xcache(r) != s.want {
			t.Fatalf("step %d: %d %s, want 404 %s", i, r.StatusCode(), xcache(r), s.want)
		}
	}
	// An error answer is never served stale, even inside its window.
	f.origin.stop()
	f.clock.Advance(6 * time.Second)
	if r := f.get(t, path); r.StatusCode() != 503 {
		t.Fatalf("stopped origin: %d %s", r.StatusCode(), xcache(r))
	}
}

func TestNeverStored(t *testing.T) {
	tests := []struct {
		name    string
		obj     object
		headers []string
	}{
		{"no-store", object{cc: "no-store"}, nil},
		{"private", object{cc: "private, max-age=60"}, nil},
		{"Set-Cookie", object{cc: "public, max-age=60", extra: map[string]string{"Set-Cookie": "s=1"}}, nil},
		{"Authorization request", object{cc: "public, max-age=60"}, []string{"Authorization", "Bearer x", "X-Forwarded-For", "203.0.113.9"}},
		{"origin 500", object{cc: "public, max-age=60", status: 500}, nil},
		{"400 answer", object{cc: "public, max-age=60", status: 400}, nil},
		{"no freshness and no validator", object{}, nil},
		{"Vary on a header not forwarded", object{cc: "public, max-age=60", vary: "Cookie"}, []string{"Cookie", "s=1"}},
		{"Vary *", object{cc: "public, max-age=60", vary: "*"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			const path = "/demo/x"
			obj := tt.obj
			obj.ctype, obj.body = "text/plain", []byte("answer")
			f.origin.set(path, obj)
			for i := range 3 {
				r := f.get(t, path, tt.headers...)
				if xcache(r) != "MISS" || string(r.Body()) != "answer" {
					t.Fatalf("request %d: %s %q", i, xcache(r), r.Body())
				}
			}
			hits, _, _ := f.origin.count(path)
			if hits < 3 {
				t.Fatalf("origin hits %d, want every request to reach it", hits)
			}
			f.origin.mu.Lock()
			defer f.origin.mu.Unlock()
			if f.origin.xff != 0 {
				t.Fatal("a client's X-Forwarded-For reached the origin")
			}
		})
	}
}

func TestCredentialsNeverForwardedOnSharedFetch(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/assets/app-1.js"
	f.origin.set(path, object{ctype: "text/javascript", cc: "public, max-age=60", body: []byte("x")})
	f.get(t, path, "Cookie", "session=secret")
	f.origin.mu.Lock()
	defer f.origin.mu.Unlock()
	if f.origin.auths != 0 {
		t.Fatalf("a shared fetch carried the client's cookie")
	}
	for _, ae := range f.origin.accepts {
		if ae != "identity" {
			t.Fatalf("fetch asked for Accept-Encoding %q, want identity", ae)
		}
	}
}

func decode(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	switch coding {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return out
	case "zstd":
		zr, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		out, err := zr.DecodeAll(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	case "br":
		out, err := fasthttp.AppendUnbrotliBytes(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		return out
	case "":
		return b
	}
	t.Fatalf("unknown coding %q", coding)
	return nil
}

func TestCompressedResponsesDecodeToIdentity(t *testing.T) {
	objects := map[string]object{
		"/api/v1/widget/badge/r1.svg": badge(),
		"/api/v1/widget/embed.js": {ctype: "text/javascript; charset=utf-8", cc: "public, max-age=300", etag: `"e"`,
			body: []byte(strings.Repeat("(function(){document.querySelectorAll('[data-provenant]');})();\n", 50))},
		"/api/v1/widget/manifest.json": {ctype: "application/json", cc: "public, max-age=60",
			body: []byte(strings.Repeat(`{"wasm":"/api/v1/widget/verifier-0123.wasm","sha256":"00ff","size":5000000}`, 8))},
		"/api/v1/widget/verifier-0123.wasm": {ctype: "application/wasm", cc: "public, max-age=31536000, immutable", etag: `"w"`,
			body: bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00\x01\x07\x01\x60\x02\x7f\x7f\x01\x7f"), 2000)},
		// The origin ignores the identity request: the cache decodes.
		"/demo/page": {ctype: "text/html; charset=utf-8", cc: "public, max-age=60", encoded: "gzip",
			body: []byte("<!doctype html>" + strings.Repeat("<p>Provenant demo</p>", 100))},
	}
	tests := []struct {
		acceptEncoding, want string
	}{
		{"gzip", "gzip"},
		{"zstd", "zstd"},
		{"br", "br"},
		{"gzip, deflate, br, zstd", "zstd"},
		{"gzip;q=1, br;q=0.9, zstd;q=0.5", "gzip"},
		{"br;q=0.8, *;q=0.1", "br"},
		{"identity", ""},
		{"", ""},
		{"zstd;q=0, br;q=0, gzip;q=0", ""},
	}
	f := newFixture(t, nil)
	for path, obj := range objects {
		f.origin.set(path, obj)
	}
	for path, obj := range objects {
		for _, tt := range tests {
			t.Run(path+"/"+tt.acceptEncoding, func(t *testing.T) {
				for range 2 { // the variant is computed on the first, reused on the second
					r := f.get(t, path, "Accept-Encoding", tt.acceptEncoding)
					if r.StatusCode() != 200 {
						t.Fatalf("status %d", r.StatusCode())
					}
					got := string(r.Header.ContentEncoding())
					if got != tt.want {
						t.Fatalf("Content-Encoding %q, want %q", got, tt.want)
					}
					if !bytes.Equal(decode(t, got, r.Body()), obj.body) {
						t.Fatalf("decoded body differs from the identity bytes")
					}
					if !strings.Contains(string(r.Header.Peek("Vary")), "Accept-Encoding") {
						t.Fatalf("Vary = %q", r.Header.Peek("Vary"))
					}
					if etag := string(r.Header.Peek("ETag")); got != "" && etag != "" && !strings.HasPrefix(etag, "W/") {
						t.Fatalf("compressed answer carries strong ETag %s", etag)
					}
				}
			})
		}
	}
}

// TestUnderCompressHandler: as the edge composes them, the compression
// handler leaves the cache's answers as the cache encoded them.
func TestUnderCompressHandler(t *testing.T) {
	f := newWrappedFixture(t, nil, func(h fasthttp.RequestHandler) fasthttp.RequestHandler {
		return compress.Handler(h, compress.Config{MinSize: 512})
	})
	js := []byte(strings.Repeat("console.log('provenant');\n", 100))
	f.origin.set("/a.js", object{ctype: "text/javascript", cc: "public, max-age=60", etag: `"a"`, body: js})
	f.origin.set("/tiny.js", object{ctype: "text/javascript", cc: "public, max-age=60", body: []byte("x()")})
	for _, ae := range []string{"gzip", "br", "zstd", ""} {
		r := f.get(t, "/a.js", "Accept-Encoding", ae)
		coding := string(r.Header.ContentEncoding())
		if coding != ae || !bytes.Equal(decode(t, coding, r.Body()), js) {
			t.Fatalf("%q: Content-Encoding %q", ae, coding)
		}
		if v := r.Header.PeekAll("Vary"); len(v) != 1 || string(v[0]) != "Accept-Encoding" {
			t.Fatalf("%q: Vary %q", ae, v)
		}
		if r := f.get(t, "/tiny.js", "Accept-Encoding", ae); len(r.Header.ContentEncoding()) != 0 || string(r.Body()) != "x()" {
			t.Fatalf("%q: tiny body sent as %q", ae, r.Header.ContentEncoding())
		}
	}
}

func TestImagesNeverCompressed(t *testing.T) {
	f := newFixture(t, nil)
	body := bytes.Repeat([]byte{0}, 16<<10) // very compressible bytes
	for _, ct := range []string{"image/png", "image/jpeg", "image/webp", "video/mp4", "application/octet-stream"} {
		path := "/assets/x." + strconv.Itoa(len(ct))
		f.origin.set(path, object{ctype: ct, cc: "public, max-age=60", body: body})
		for range 2 {
			r := f.get(t, path, "Accept-Encoding", "gzip, br, zstd")
			if ce := r.Header.ContentEncoding(); len(ce) != 0 || !bytes.Equal(r.Body(), body) {
				t.Fatalf("%s: Content-Encoding %q", ct, ce)
			}
		}
	}
}

func TestClientIfNoneMatch(t *testing.T) {
	f := newFixture(t, nil)
	const path = "/api/v1/widget/badge/r4.svg"
	f.origin.set(path, badge())
	tests := []struct {
		inm    string
		status int
	}{
		{`"b1"`, 304},
		{`W/"b1"`, 304},
		{`"zz", "b1"`, 304},
		{`*`, 304},
		{`"other"`, 200},
	}
	f.get(t, path)
	for _, tt := range tests {
		r := f.get(t, path, "If-None-Match", tt.inm, "Accept-Encoding", "gzip")
		if r.StatusCode() != tt.status || xcache(r) != "HIT" {
			t.Fatalf("If-None-Match %s: %d %s, want %d HIT", tt.inm, r.StatusCode(), xcache(r), tt.status)
		}
		if tt.status == 304 && (len(r.Body()) != 0 || string(r.Header.Peek("ETag")) != `"b1"`) {
			t.Fatalf("304 with body %q, ETag %s", r.Body(), r.Header.Peek("ETag"))
		}
	}
	if _, conditional, _ := f.origin.count(path); conditional != 0 {
		t.Fatalf("the client's If-None-Match reached the origin")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	origin := &fasthttp.HostClient{Addr: "127.0.0.1:1"}
	for name, cfg := range map[string]Config{
		"no origin":         {MaxBytes: 1},
		"no bound":          {Origin: origin},
		"negative MaxStale": {Origin: origin, MaxBytes: 1, MaxStale: -1},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}
