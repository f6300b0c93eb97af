package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/clock"
)

// idemRequest is one idempotent request, sent as built (JSON or a
// multipart body) with its key.
type idemRequest struct {
	path, token, key string
	contentType      string
	body             []byte
}

func jsonRequest(path, token, key string, v any) idemRequest {
	b, _ := json.Marshal(v)
	return idemRequest{path: path, token: token, key: key, contentType: "application/json", body: b}
}

func batchRequest(s signer, key string, files ...[]byte) idemRequest {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for i, f := range files {
		w, _ := mw.CreateFormFile("files", fmt.Sprintf("p%d.jpg", i))
		_, _ = w.Write(f)
	}
	_ = mw.Close()
	return idemRequest{path: "/api/v1/sign-batch?signing_key_id=" + s.keyID, token: s.apiKey, key: key,
		contentType: mw.FormDataContentType(), body: body.Bytes()}
}

// send posts r to base, without an Idempotency-Key when r has none; a
// transport error is returned, not fatal (the origin may die under it).
func (r idemRequest) send(base string) (response, error) {
	req, err := http.NewRequest("POST", base+r.path, bytes.NewReader(r.body))
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Content-Type", r.contentType)
	req.Header.Set("Authorization", "Bearer "+r.token)
	if r.key != "" {
		req.Header.Set("Idempotency-Key", r.key)
	}
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}, err
}

func (ts *testServer) countItems(path, token string) int {
	ts.t.Helper()
	r := ts.do("GET", path+"?limit=100", token, nil)
	ts.mustStatus(r, 200, "list "+path)
	items, _ := r.json(ts.t)["items"].([]any)
	return len(items)
}

// TestIdempotentWritesSurviveKillBetweenCommits kills the origin
// (SIGKILL, from inside) after the write of an idempotent API key,
// signing key, webhook or sign-batch committed and before its response
// was stored. The retry on the restarted origin answers from the claim
// the write's transaction carried (Idempotent-Replayed), nothing is
// created twice, and a replayed API key's text authenticates: the secret
// shown once came back from its sealed copy. A batch dies after its
// first item's record (the record-commit kill point comes first): the
// retry answers that item from its claim and signs the others.
func TestIdempotentWritesSurviveKillBetweenCommits(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns subprocesses")
	}
	dir := t.TempDir()
	// Real time throughout: the session token must be valid on the
	// child and the restarted origins, which run on the wall clock.
	setup := startServer(t, dir, clock.NewFake(time.Now()))
	s := setup.newSigner("idem-routes@example.com")
	setup.stop()
	pics := [][]byte{photo(t, 71, 320, 240), photo(t, 72, 320, 240), photo(t, 73, 320, 240)}

	for _, tc := range []struct {
		name   string
		req    idemRequest
		list   string
		status int
		added  int
	}{
		{"api key", jsonRequest("/api/v1/keys/api-keys", s.token, "crash-ak", map[string]any{"name": "ci", "scopes": []string{"read"}}), "/api/v1/keys/api-keys", 201, 1},
		{"signing key", jsonRequest("/api/v1/keys/signing-keys", s.token, "crash-sk", map[string]any{"name": "Cam", "origin_type": "camera_image"}), "/api/v1/keys/signing-keys", 201, 1},
		{"webhook", jsonRequest("/api/v1/webhooks", s.apiKey, "crash-wh", map[string]any{"url": "http://127.0.0.1:9/hook"}), "/api/v1/webhooks", 201, 1},
		{"sign-batch", batchRequest(s, "crash-batch", pics...), "/api/v1/content-records", 200, len(pics)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			listToken := s.token
			if tc.name == "sign-batch" || tc.name == "webhook" {
				listToken = s.apiKey
			}
			before := startServer(t, dir, clock.NewFake(time.Now()))
			n0 := before.countItems(tc.list, listToken)
			before.stop()

			child := startCrashChild(t, idemCrashChildEnv, dir)
			answered := make(chan int, 1)
			go func() {
				if r, err := tc.req.send(child.base); err == nil {
					answered <- r.status
				}
			}()
			child.diedBeforeAnswering(answered, "after the write")

			ts := startServer(t, dir, clock.NewFake(time.Now().Add(time.Second)))
			start := time.Now()
			r, err := tc.req.send(ts.base)
			if err != nil {
				t.Fatal(err)
			}
			ts.mustStatus(r, tc.status, "retry after the crash")
			// The dead origin's lease lapses by itself.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the retry took %v", d)
			}
			if tc.name != "sign-batch" && r.header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("retry not marked as a replay: %v %s", r.header, r.body)
			}
			if got := ts.countItems(tc.list, listToken); got != n0+tc.added {
				t.Errorf("%d created after the crash and the retry, want %d", got-n0, tc.added)
			}
			switch tc.name {
			case "api key":
				text, _ := r.json(t)["key"].(string)
				if a := ts.do("GET", "/api/v1/content-records", text, nil); a.status != 200 {
					t.Errorf("the replayed API key does not authenticate: %d %s", a.status, a.body)
				}
			case "webhook":
				if sec, _ := r.json(t)["secret"].(string); sec == "" {
					t.Errorf("the replayed webhook has no secret: %s", r.body)
				}
			case "sign-batch":
				var br struct {
					Succeeded int `json:"succeeded"`
				}
				_ = json.Unmarshal(r.body, &br)
				if br.Succeeded != len(pics) {
					t.Errorf("batch retry: %s", r.body)
				}
			}
			again, err := tc.req.send(ts.base)
			if err != nil {
				t.Fatal(err)
			}
			if again.status != tc.status || again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, r.body) {
				t.Errorf("second retry: %d replayed %q, body equal %v", again.status, again.header.Get("Idempotent-Replayed"), bytes.Equal(again.body, r.body))
			}
			ts.stop()
		})
	}
}

// TestIdempotencyAcrossOrigins sends the same idempotent request, under
// one key, at the same time to two origins sharing one PostgreSQL
// database: an API key creation (JWT) and a sign (API key). Every answer
// is the first request's, byte for byte, and one API key and one record
// exist: the second origin waited for the first's lease and replayed.
func TestIdempotencyAcrossOrigins(t *testing.T) {
	origins := originsOnPostgres(t, 2)
	a, b := origins[0], origins[1]
	s := a.newSigner("idem-origins@example.com")

	const perOrigin = 4
	for _, tc := range []struct {
		name  string
		req   idemRequest
		list  string
		token string
	}{
		{"api key", jsonRequest("/api/v1/keys/api-keys", s.token, "origins-ak", map[string]any{"name": "shared", "scopes": []string{"read"}}), "/api/v1/keys/api-keys", s.token},
		{"sign", signForm(s, "origins-sign", photo(t, 91, 640, 480), nil), "/api/v1/content-records", s.apiKey},
	} {
		n0 := a.countItems(tc.list, tc.token)
		var mu sync.Mutex
		var bodies [][]byte
		replayed := 0
		var wg sync.WaitGroup
		for i := range 2 * perOrigin {
			o := []*testServer{a, b}[i%2]
			wg.Go(func() {
				r, err := tc.req.send(o.base)
				if err != nil || r.status != 201 {
					t.Errorf("%s: %d %s %v", tc.name, r.status, r.body, err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				bodies = append(bodies, r.body)
				if r.header.Get("Idempotent-Replayed") == "true" {
					replayed++
				}
			})
		}
		wg.Wait()
		for _, body := range bodies[1:] {
			if !bytes.Equal(body, bodies[0]) {
				t.Errorf("%s: answers differ: %.120s… and %.120s…", tc.name, bodies[0], body)
			}
		}
		if replayed != 2*perOrigin-1 {
			t.Errorf("%s: %d of %d answers replayed, want all but the first", tc.name, replayed, 2*perOrigin)
		}
		for _, o := range []*testServer{a, b} {
			if got := o.countItems(tc.list, tc.token); got != n0+1 {
				t.Errorf("%s: %d created by %d requests under one key on two origins, want 1", tc.name, got-n0, 2*perOrigin)
			}
		}
	}
}
