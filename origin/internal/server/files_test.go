package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/formdata"
	"github.com/provenant/provenant/shared/clock"
)

// download GETs path with the headers given.
func (ts *testServer) download(path, token string, hdr map[string]string) response {
	ts.t.Helper()
	req, err := http.NewRequest("GET", ts.base+path, nil)
	if err != nil {
		ts.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return ts.sendReq(req)
}

// sha256Hex is the SHA-256 of b in lower-case hex, as records, headers
// and kept files name it.
func sha256Hex(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestSignedFileKept: a file signed with return_file=false (the default)
// is downloadable by its owner afterwards, byte for byte the file the
// record's sha256 names, with ETag, Range and the original name; a
// file returned at signing is the same one kept; batch items carry their
// download URL; other accounts and registered records have no file.
func TestSignedFileKept(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("files@example.com")
	r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "Harbour at dawn.jpg", photo(t, 51, 384, 288)}}, nil)
	ts.mustStatus(r, 201, "sign")
	res := r.json(t)
	id, sum := res["record_id"].(string), res["sha256"].(string)
	url, _ := res["download_url"].(string)
	if url != "/api/v1/content-records/"+id+"/file" {
		t.Fatalf("download_url = %q", url)
	}

	if got := ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil).json(t)["download_url"]; got != url {
		t.Errorf("record detail download_url = %v, want %s", got, url)
	}
	f := ts.download(url, s.apiKey, nil)
	ts.mustStatus(f, 200, "download")
	if sha256Hex(f.body) != sum {
		t.Fatalf("downloaded file hashes to %s, record says %s", sha256Hex(f.body), sum)
	}
	if et := f.header.Get("ETag"); et != `"`+sum+`"` {
		t.Errorf("ETag %q, want the quoted sha256", et)
	}
	if cd := f.header.Get("Content-Disposition"); !strings.Contains(cd, `filename="Harbour at dawn.signed.jpg"`) {
		t.Errorf("Content-Disposition %q, want the original name", cd)
	}
	if ct := f.header.Get("Content-Type"); ct != "image/jpeg" {
		t.Errorf("Content-Type %q", ct)
	}
	if f.header.Get("Accept-Ranges") != "bytes" {
		t.Errorf("no Accept-Ranges: bytes")
	}
	n := len(f.body)
	for _, tc := range []struct {
		rng, ifRange string
		status       int
		body         []byte
		contentRange string
	}{
		{"bytes=0-9", "", 206, f.body[:10], "bytes 0-9/" + itoa(n)},
		{"bytes=10-", "", 206, f.body[10:], "bytes 10-" + itoa(n-1) + "/" + itoa(n)},
		{"bytes=-5", "", 206, f.body[n-5:], "bytes " + itoa(n-5) + "-" + itoa(n-1) + "/" + itoa(n)},
		{"bytes=5-999999999", "", 206, f.body[5:], "bytes 5-" + itoa(n-1) + "/" + itoa(n)},
		{"bytes=0-1,4-5", "", 200, f.body, ""},
		{"bytes=3-1", "", 200, f.body, ""},
		{"items=0-1", "", 200, f.body, ""},
		{"bytes=0-9", `"` + sum + `"`, 206, f.body[:10], "bytes 0-9/" + itoa(n)},
		{"bytes=0-9", `"stale"`, 200, f.body, ""},
		{"bytes=" + itoa(n) + "-", "", 416, nil, "bytes */" + itoa(n)},
	} {
		h := map[string]string{"Range": tc.rng}
		if tc.ifRange != "" {
			h["If-Range"] = tc.ifRange
		}
		g := ts.download(url, s.apiKey, h)
		if g.status != tc.status || g.header.Get("Content-Range") != tc.contentRange {
			t.Errorf("Range %s (If-Range %s): %d %q, want %d %q", tc.rng, tc.ifRange, g.status, g.header.Get("Content-Range"), tc.status, tc.contentRange)
			continue
		}
		if tc.body != nil && string(g.body) != string(tc.body) {
			t.Errorf("Range %s: %d bytes, want %d", tc.rng, len(g.body), len(tc.body))
		}
		if tc.status == 416 && g.problemCode(t) != "range_not_satisfiable" {
			t.Errorf("416 without its problem code: %s", g.body)
		}
	}
	if g := ts.download(url, s.apiKey, map[string]string{"If-None-Match": `"` + sum + `"`}); g.status != 304 || len(g.body) != 0 {
		t.Errorf("If-None-Match: %d with %d bytes, want 304 and none", g.status, len(g.body))
	}

	// The file returned at signing is the one kept.
	r = ts.signFile(s, photo(t, 52, 384, 288), nil)
	ts.mustStatus(r, 201, "sign with return_file")
	g := ts.download("/api/v1/content-records/"+r.header.Get("X-Record-Id")+"/file", s.apiKey, nil)
	if g.status != 200 || string(g.body) != string(r.body) {
		t.Errorf("kept file of a return_file sign: %d, %d bytes; want the %d bytes returned", g.status, len(g.body), len(r.body))
	}

	// Another account sees nothing.
	other := ts.newSigner("other-files@example.com")
	if g := ts.download(url, other.apiKey, nil); g.status != 404 {
		t.Errorf("another account's download: %d, want 404", g.status)
	}
	if g := ts.download(url, "", nil); g.status != 401 {
		t.Errorf("anonymous download: %d, want 401", g.status)
	}

	// Batch items carry their download URL.
	br := ts.upload("/api/v1/sign-batch?signing_key_id="+s.keyID, s.apiKey,
		[]namedFile{{"files", "a.jpg", photo(t, 53, 384, 288)}, {"files", "b.jpg", photo(t, 54, 384, 288)}}, nil)
	ts.mustStatus(br, 200, "sign-batch")
	var batch struct {
		Items []struct {
			Result struct {
				SHA256      string `json:"sha256"`
				DownloadURL string `json:"download_url"`
			} `json:"result"`
		} `json:"items"`
	}
	if err := json.Unmarshal(br.body, &batch); err != nil || len(batch.Items) != 2 {
		t.Fatalf("batch %s: %v", br.body, err)
	}
	for i, it := range batch.Items {
		g := ts.download(it.Result.DownloadURL, s.apiKey, nil)
		if g.status != 200 || sha256Hex(g.body) != it.Result.SHA256 {
			t.Errorf("batch item %d: download %q → %d, hash %s, want %s", i, it.Result.DownloadURL, g.status, sha256Hex(g.body), it.Result.SHA256)
		}
	}
}

// multipartBody is a form with one file field, name holding data, and
// its content type.
func multipartBody(name string, data []byte) (*bytes.Buffer, string) {
	b, ct := formdata.File("file", name, data, nil)
	return bytes.NewBuffer(b), ct
}

// TestSignedFileSurvivesKill9 signs through a child origin with
// return_file=false, several signs in flight, and kills it with SIGKILL
// as soon as the first answer arrives. After a restart on the same data
// dir, every record that exists (answered or not) downloads, and hashes
// to its sha256: a record is never stored without its file.
func TestSignedFileSurvivesKill9(t *testing.T) {
	dir, s := signerForChild(t, "crash-files@example.com")

	child := startCrashChild(t, crashChildEnv, dir)

	// Four clients keep signing, each a fresh picture, until the child
	// dies; the kill comes after the third answer, so signs are in flight
	// at every stage (decode, watermark, blob write, commit).
	const workers, pictures = 4, 32
	pics := make(chan []byte, pictures)
	for i := range pictures {
		pics <- photo(t, uint64(60+i), 384, 288)
	}
	close(pics)
	answered := make(chan string, pictures)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for pic := range pics {
				r, err := postMultipart(child.base+"/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, "p.jpg", pic)
				if err != nil {
					return
				}
				var m map[string]any
				if r.status == 201 && json.Unmarshal(r.body, &m) == nil {
					answered <- m["record_id"].(string)
				}
			}
		})
	}
	ids := map[string]bool{}
	deadline := time.After(60 * time.Second)
	for n := 0; n < 3; n++ {
		select {
		case id := <-answered:
			ids[id] = true
		case <-deadline:
			t.Fatal("fewer than 3 signs answered within 60s")
		}
	}
	child.kill9() // SIGKILL, signs in flight
	wg.Wait()
	close(answered)
	for id := range answered {
		ids[id] = true
	}

	restarted := startServer(t, dir, clock.NewFake(time.Now().Add(time.Second)))
	list := restarted.do("GET", "/api/v1/content-records?limit=100", s.apiKey, nil)
	restarted.mustStatus(list, 200, "list after restart")
	var page struct {
		Items []struct {
			ID     string `json:"id"`
			SHA256 string `json:"sha256"`
		} `json:"items"`
	}
	if err := json.Unmarshal(list.body, &page); err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, it := range page.Items {
		stored[it.ID] = true
		g := restarted.download("/api/v1/content-records/"+it.ID+"/file", s.apiKey, nil)
		if g.status != 200 || sha256Hex(g.body) != it.SHA256 {
			t.Errorf("record %s after SIGKILL: download %d, hash %s, want 200 and %s", it.ID, g.status, sha256Hex(g.body), it.SHA256)
		}
	}
	if len(stored) < 3 {
		t.Errorf("%d records after restart, want at least the 3 answered before the kill", len(stored))
	}
	for id := range ids {
		if !stored[id] {
			t.Errorf("record %s was answered 201 before the kill but is gone after restart", id)
		}
	}
	t.Logf("answered before the kill: %d; stored after restart: %d", len(ids), len(stored))
}

// postMultipart sends one file to url with return_file=false, without the
// test's fatal helpers (it runs in goroutines that outlive the child).
func postMultipart(url, token, name string, data []byte) (response, error) {
	body, ct := multipartBody(name, data)
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+token)
	return exchange(req)
}
