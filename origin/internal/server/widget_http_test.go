package server

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/wire"
)

// sendWith makes one request with extra headers and returns the response.
func (ts *testServer) sendWith(method, path string, hdr map[string]string) response {
	ts.t.Helper()
	req, err := http.NewRequest(method, ts.base+path, nil)
	if err != nil {
		ts.t.Fatalf("NewRequest: %v", err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return ts.roundTrip(req)
}

func (ts *testServer) roundTrip(req *http.Request) response {
	ts.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return response{status: resp.StatusCode, header: resp.Header, body: []byte(b.String())}
}

// badgeText returns the <title> of an SVG badge after checking that it
// parses as XML with an svg root.
func badgeText(t *testing.T, r response) string {
	t.Helper()
	var doc struct {
		XMLName xml.Name
		Title   string `xml:"title"`
	}
	if err := xml.Unmarshal(r.body, &doc); err != nil {
		t.Fatalf("badge is not XML: %v\n%s", err, r.body)
	}
	if doc.XMLName.Local != "svg" {
		t.Fatalf("badge root <%s>, want <svg>", doc.XMLName.Local)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "image/svg+xml") {
		t.Errorf("Content-Type %q, want image/svg+xml", ct)
	}
	return doc.Title
}

// TestBadges: each record state has its own badge text, an unknown record
// or organisation a "not found" badge with 404, the org badge counts
// signed (not revoked) and anchored records, revocation changes the badge
// (and its ETag), and If-None-Match answers 304.
func TestBadges(t *testing.T) {
	ts := startServer(t, "", nil, batchesOf(2))
	s := ts.newSignerOrg("desk@badge.example", "Badge News")
	var ids []string
	for i, seed := range []uint64{1, 2, 3} {
		r := ts.signFile(s, photo(t, seed, 640, 480), nil)
		ts.mustStatus(r, 201, "sign")
		ids = append(ids, r.header.Get("X-Record-Id"))
		if i == 1 { // the first two close a batch
			ts.waitAnchored(s, ids[0], ids[1])
		}
	}
	badge := func(id string) response { return ts.sendWith("GET", "/api/v1/widget/badge/"+id+".svg", nil) }

	r := badge(ids[0])
	ts.mustStatus(r, 200, "badge")
	if got := badgeText(t, r); got != "Provenant: record anchored · local chain — anchored on provenant-dev (chain id 1337), a "+wire.LocalChainDescription+
		"; a signed record; this badge checks no picture shown beside it" {
		t.Errorf("anchored record badge %q, want verified on the local chain, said not to be a public timestamp", got)
	}
	etag := r.header.Get("ETag")
	if cc := r.header.Get("Cache-Control"); !strings.Contains(cc, "max-age=30") || !strings.Contains(cc, "stale-while-revalidate") {
		t.Errorf("Cache-Control %q, want a short max-age and stale-while-revalidate", cc)
	}
	if r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("badge not cross-origin: ACAO %q", r.header.Get("Access-Control-Allow-Origin"))
	}
	r = ts.sendWith("GET", "/api/v1/widget/badge/"+ids[0]+".svg", map[string]string{"If-None-Match": etag})
	if r.status != 304 || len(r.body) != 0 {
		t.Errorf("If-None-Match with the current ETag: %d with %d bytes, want 304 and none", r.status, len(r.body))
	}
	if got := badgeText(t, badge(ids[2])); got != "Provenant: record pending anchoring — a signed record; this badge checks no picture shown beside it" {
		t.Errorf("pending record badge %q", got)
	}
	r = ts.do("DELETE", "/api/v1/content-records/"+ids[0], s.apiKey, map[string]string{"reason": "published in error"})
	ts.mustStatus(r, 200, "revoke")
	r = ts.sendWith("GET", "/api/v1/widget/badge/"+ids[0]+".svg", map[string]string{"If-None-Match": etag})
	ts.mustStatus(r, 200, "badge after revocation with the old ETag")
	if got := badgeText(t, r); got != "Provenant: record revoked — a signed record; this badge checks no picture shown beside it" {
		t.Errorf("revoked record badge %q", got)
	}
	for _, id := range []string{"00000000-0000-4000-8000-000000000000", "not-a-uuid"} {
		r := badge(id)
		ts.mustStatus(r, 404, "unknown record badge")
		if got := badgeText(t, r); got != "Provenant: not found" {
			t.Errorf("unknown record badge %q", got)
		}
	}

	r = ts.sendWith("GET", "/api/v1/widget/org-badge/"+url.PathEscape("badge news")+".svg", nil)
	ts.mustStatus(r, 200, "org badge")
	if got := badgeText(t, r); got != "unverified: Badge News: 2 signed · 2 anchored" && got != "unverified: Badge News: 2 signed · 1 anchored" {
		t.Errorf("org badge %q, want 2 signed (one revoked) and the anchored count", got)
	}
	hostile := `<script>alert("x")</script> & 'co'`
	r = ts.sendWith("GET", "/api/v1/widget/org-badge/"+url.PathEscape(hostile)+".svg", nil)
	ts.mustStatus(r, 404, "unknown org badge")
	if strings.Contains(string(r.body), "<script") {
		t.Fatalf("org name reached the SVG unescaped:\n%s", r.body)
	}
	if got := badgeText(t, r); got != hostile+": not found" {
		t.Errorf("unknown org badge %q, want the name escaped and restored by the XML parser", got)
	}
}

// signAnchored has s sign file, checks the origin answered 201 (saying
// what otherwise) and waits for the record to be anchored; it returns the
// record id and the signed file.
func (ts *testServer) signAnchored(s signer, file []byte, what string) (string, []byte) {
	ts.t.Helper()
	r := ts.signFile(s, file, nil)
	ts.mustStatus(r, 201, what)
	id := r.header.Get("X-Record-Id")
	ts.waitAnchored(s, id)
	return id, r.body
}

// anchoredRecord is a signed and anchored record: its id and signed file.
type anchoredRecord struct {
	id   string
	file []byte
}

// anchoredAround signs and anchors two photos of s (from seeds seed and
// seed+1) an hour apart, starting at the clock's time, and moves the clock
// on another hour: the records a key revocation with compromised_since
// between them keeps and drops.
func (ts *testServer) anchoredAround(s signer, seed uint64) (before, after anchoredRecord) {
	ts.t.Helper()
	before.id, before.file = ts.signAnchored(s, photo(ts.t, seed, 384, 288), "sign before")
	ts.clock.Advance(time.Hour)
	after.id, after.file = ts.signAnchored(s, photo(ts.t, seed+1, 384, 288), "sign after")
	ts.clock.Advance(time.Hour)
	return before, after
}

// waitAnchored waits until every id is anchored (60 s at most).
func (ts *testServer) waitAnchored(s signer, ids ...string) {
	ts.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for _, id := range ids {
		for {
			r := ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil)
			ts.mustStatus(r, 200, "record detail")
			if r.json(ts.t)["blockchain_status"] == "anchored" {
				break
			}
			if time.Now().After(deadline) {
				ts.t.Fatalf("record %s not anchored within 60s", id)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestCORS: public endpoints answer any origin without credentials and
// their preflights list methods, headers and max-age; authenticated
// endpoints get no CORS headers and no preflight; certificates have an
// ETag, HEAD and 304.
func TestCORS(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSignerOrg("desk@cors.example", "CORS News")
	r := ts.signFile(s, photo(t, 9, 640, 480), nil)
	ts.mustStatus(r, 201, "sign")
	id := r.header.Get("X-Record-Id")
	origin := map[string]string{"Origin": "https://publisher.example"}

	for _, tt := range []struct {
		name, path, method string
		wantMethods        string
	}{
		{"verify", "/api/v1/verify", "POST", "POST"},
		{"lookup", "/api/v1/verify/lookup", "POST", "POST"},
		{"certificate", "/api/v1/content-records/" + id + "/certificate", "GET", "GET, HEAD"},
		{"badge", "/api/v1/widget/badge/" + id + ".svg", "GET", "GET"},
		{"manifest", "/api/v1/widget/manifest.json", "GET", "GET"},
		{"embed", "/api/v1/widget/embed.js", "GET", "GET"},
	} {
		t.Run("preflight "+tt.name, func(t *testing.T) {
			r := ts.sendWith("OPTIONS", tt.path, map[string]string{"Origin": "https://publisher.example",
				"Access-Control-Request-Method": tt.method, "Access-Control-Request-Headers": "content-type"})
			if r.status != 204 {
				t.Fatalf("preflight status %d, want 204", r.status)
			}
			h := r.header
			if h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Methods") != tt.wantMethods ||
				!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "content-type") || h.Get("Access-Control-Max-Age") == "" {
				t.Errorf("preflight headers %v", h)
			}
			if h.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("preflight allows credentials")
			}
		})
	}

	r = ts.sendWith("GET", "/api/v1/content-records/"+id+"/certificate", origin)
	ts.mustStatus(r, 200, "certificate")
	if r.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Errorf("certificate CORS headers: ACAO %q, expose %q", r.header.Get("Access-Control-Allow-Origin"), r.header.Get("Access-Control-Expose-Headers"))
	}
	etag := r.header.Get("ETag")
	if etag == "" {
		t.Fatal("certificate has no ETag")
	}
	head := ts.sendWith("HEAD", "/api/v1/content-records/"+id+"/certificate", nil)
	if head.status != 200 || len(head.body) != 0 || head.header.Get("ETag") != etag {
		t.Errorf("HEAD: %d, %d body bytes, ETag %q; want 200, none, %q", head.status, len(head.body), head.header.Get("ETag"), etag)
	}
	r = ts.sendWith("GET", "/api/v1/content-records/"+id+"/certificate", map[string]string{"If-None-Match": etag})
	if r.status != 304 {
		t.Errorf("certificate with If-None-Match: %d, want 304", r.status)
	}
	r = ts.do("DELETE", "/api/v1/content-records/"+id, s.apiKey, map[string]string{"reason": "published in error"})
	ts.mustStatus(r, 200, "revoke")
	r = ts.sendWith("GET", "/api/v1/content-records/"+id+"/certificate", map[string]string{"If-None-Match": etag})
	if r.status != 200 || r.header.Get("ETag") == etag {
		t.Errorf("revoked certificate with the old ETag: %d, ETag %q; want 200 and a new ETag", r.status, r.header.Get("ETag"))
	}

	for _, name := range []string{"embed.js", "worker.js"} {
		r := ts.sendWith("GET", "/api/v1/widget/"+name, origin)
		ts.mustStatus(r, 200, name)
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") || r.header.Get("Access-Control-Allow-Origin") != "*" || r.header.Get("ETag") == "" {
			t.Errorf("%s: Content-Type %q, ACAO %q, ETag %q", name, ct, r.header.Get("Access-Control-Allow-Origin"), r.header.Get("ETag"))
		}
		if r2 := ts.sendWith("GET", "/api/v1/widget/"+name, map[string]string{"If-None-Match": r.header.Get("ETag")}); r2.status != 304 {
			t.Errorf("%s revalidation: %d, want 304", name, r2.status)
		}
	}

	// A rate-limited or failing public answer is still readable cross-origin.
	r = ts.sendWith("POST", "/api/v1/verify/lookup", origin)
	if r.status < 400 || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("lookup without a body: %d, ACAO %q; want a problem readable cross-origin", r.status, r.header.Get("Access-Control-Allow-Origin"))
	}

	for _, tt := range []struct{ name, method, path string }{
		{"sign", "POST", "/api/v1/sign"},
		{"records", "GET", "/api/v1/content-records"},
		{"login", "POST", "/api/v1/auth/login"},
	} {
		t.Run("no cors "+tt.name, func(t *testing.T) {
			r := ts.sendWith("OPTIONS", tt.path, map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": tt.method,
				"Access-Control-Request-Headers": "authorization"})
			if r.status < 400 || r.header.Get("Access-Control-Allow-Origin") != "" || r.header.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("preflight of %s: %d, ACAO %q, credentials %q; want refused", tt.path, r.status,
					r.header.Get("Access-Control-Allow-Origin"), r.header.Get("Access-Control-Allow-Credentials"))
			}
		})
	}
	r = ts.sendWith("GET", "/api/v1/content-records", map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer " + s.apiKey})
	ts.mustStatus(r, 200, "list records")
	if r.header.Get("Access-Control-Allow-Origin") != "" || r.header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("authenticated route answers cross-origin: ACAO %q", r.header.Get("Access-Control-Allow-Origin"))
	}
}
