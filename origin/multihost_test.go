package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/sharedlimit/redistest"
	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/origin/internal/blobs/s3test"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
	"github.com/provenant/provenant/origin/origintest/originproc"
)

// TestSharedLimitsAcrossOrigins: two origin processes given one
// redis-server (--ratelimit-redis) give a client one verify quota between
// them, not one each: with a quota of 5, the sixth verify is refused by
// either origin with the usual 429 problem and headers, and another
// client keeps its own quota.
func TestSharedLimitsAcrossOrigins(t *testing.T) {
	rds := redistest.Start(t)
	var origins []*originproc.Origin
	for range 2 {
		origins = append(origins, originproc.Start(t, originproc.Options{SelfExec: true, Args: []string{
			"--ratelimit-redis", rds.URL(), "--ratelimit-timeout", "5s", "--limit-verify", "5", "--trusted-proxies", "127.0.0.1/32"}}))
	}
	c := &http.Client{Timeout: 30 * time.Second}
	verify := func(o *originproc.Origin, client string) *http.Response {
		req, _ := http.NewRequest("POST", o.URL+"/api/v1/verify", strings.NewReader("not a picture"))
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("X-Forwarded-For", client)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for i := range 5 {
		resp := verify(origins[i%2], "198.51.100.7")
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			t.Fatalf("verify %d (origin %d) refused within the quota", i+1, i%2)
		}
	}
	for i, o := range origins {
		resp := verify(o, "198.51.100.7")
		var p struct{ Code string }
		_ = json.NewDecoder(resp.Body).Decode(&p)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || p.Code != "rate_limited" || resp.Header.Get("Retry-After") == "" ||
			resp.Header.Get("RateLimit-Policy") != `"verify";q=5;w=60` || !strings.Contains(resp.Header.Get("RateLimit"), "r=0") {
			t.Errorf("origin %d past the shared quota: %d %q, headers %v", i, resp.StatusCode, p.Code, resp.Header)
		}
	}
	resp := verify(origins[1], "198.51.100.8")
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		t.Error("another client was refused")
	}
}

// TestSignedFilesOnS3: an origin on PostgreSQL keeping its signed files
// in a real S3 store (SeaweedFS). A signed file is served with its ETag
// and byte ranges; with the store down a sign answers 503
// storage_unavailable and commits no record; once the store is back,
// signing works and the earlier file is intact.
func TestSignedFilesOnS3(t *testing.T) {
	if testing.Short() {
		t.Skip("PostgreSQL and SeaweedFS")
	}
	s3 := s3test.Start(t)
	pgURL := pgtest.Start(t).NewDatabase()
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	cfg := s3.Config("signed")
	// The operator creates the bucket; the origin refuses to start without it.
	bucket, err := blobs.OpenS3(t.Context(), blobs.S3Config{Endpoint: cfg.Endpoint, Bucket: cfg.Bucket, Prefix: "files/",
		AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey, CreateBucket: true})
	if err != nil {
		t.Fatal(err)
	}
	o := originproc.Start(t, originproc.Options{SelfExec: true,
		Args: []string{"--store", "postgres", "--postgres-url", pgURL, "--s3-endpoint", cfg.Endpoint, "--s3-bucket", cfg.Bucket, "--s3-prefix", "files/"},
		Env:  []string{"PROVENANT_MASTER_KEY=" + hex.EncodeToString(master), "PROVENANT_S3_ACCESS_KEY=" + s3test.AccessKey, "PROVENANT_S3_SECRET_KEY=" + s3test.SecretKey}})
	c := scaleClient{t: t, c: &http.Client{Timeout: 60 * time.Second}}
	m := c.must(c.do("POST", o.URL+"/api/v1/auth/register", "", map[string]string{
		"email": "s3@example.com", "password": "correct horse battery staple", "org_name": "Bucket News", "org_type": "news_org"}), 201, "register")
	token, _ := m["access_token"].(string)
	m = c.must(c.do("POST", o.URL+"/api/v1/keys/signing-keys", token, map[string]string{"name": "desk", "origin_type": "camera_image"}), 201, "signing key")
	keyID, _ := m["id"].(string)
	m = c.must(c.do("POST", o.URL+"/api/v1/keys/api-keys", token, map[string]any{"name": "s3"}), 201, "API key")
	apiKey, _ := m["key"].(string)

	m = c.must(c.sign(o.URL, apiKey, keyID, "a.jpg", scalePhoto(1)), 201, "sign")
	id, _ := m["record_id"].(string)
	sha, _ := m["sha256"].(string)
	file := func(hdr map[string]string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", o.URL+"/api/v1/content-records/"+id+"/file", nil)
		req.Header.Set("Authorization", "Bearer "+apiKey)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := c.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, whole := file(nil)
	if got := sha256.Sum256(whole); resp.StatusCode != 200 || hex.EncodeToString(got[:]) != sha || resp.Header.Get("ETag") != `"`+sha+`"` {
		t.Fatalf("GET file: %d, %d bytes, ETag %q; want 200, the signed file (%s)", resp.StatusCode, len(whole), resp.Header.Get("ETag"), sha)
	}
	resp, part := file(map[string]string{"Range": "bytes=100-1099"})
	if resp.StatusCode != 206 || !bytes.Equal(part, whole[100:1100]) || resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 100-1099/%d", len(whole)) {
		t.Errorf("Range: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Range"), len(part))
	}
	if resp, _ := file(map[string]string{"If-None-Match": `"` + sha + `"`}); resp.StatusCode != 304 {
		t.Errorf("If-None-Match: %d, want 304", resp.StatusCode)
	}
	if b, err := bucket.Open(t.Context(), sha); err != nil || b.Size() != int64(len(whole)) {
		t.Errorf("the signed file is not in the bucket under files/<2 hex>/<sha256>: %v", err)
	} else {
		_ = b.Close()
	}

	s3.Stop()
	began := time.Now()
	r := c.sign(o.URL, apiKey, keyID, "b.jpg", scalePhoto(2))
	t.Logf("sign with the object store down answered %d in %v", r.status, time.Since(began))
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(r.body, &p)
	if r.status != 503 || p.Code != "storage_unavailable" {
		t.Fatalf("sign with the object store down: %d %s, want 503 storage_unavailable", r.status, r.body)
	}
	list := c.must(c.do("GET", o.URL+"/api/v1/content-records", apiKey, nil), 200, "records")
	if recs, _ := list["items"].([]any); len(recs) != 1 {
		t.Errorf("%d records after a failed sign, want 1: %v", len(recs), list)
	}

	s3.Restart()
	c.must(c.sign(o.URL, apiKey, keyID, "b.jpg", scalePhoto(2)), 201, "sign after the store came back")
	if resp, again := file(nil); resp.StatusCode != 200 || !bytes.Equal(again, whole) {
		t.Errorf("the first file after the outage: %d, %d bytes", resp.StatusCode, len(again))
	}
}
