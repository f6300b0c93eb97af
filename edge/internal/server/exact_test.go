package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

// countingEngine counts the files its engine analyses.
type countingEngine struct {
	verifier.Engine
	analyses atomic.Int64
}

func (c *countingEngine) Analyze(ctx context.Context, file []byte) (verifier.Analysis, error) {
	c.analyses.Add(1)
	return c.Engine.Analyze(ctx, file)
}

// TestExactProbe: at a wasm and a native edge, the service's own signed
// output is answered without analysing it (the exact-only lookup), a
// copy of it and a picture nobody signed are analysed after the probe,
// and with the probe off every file is analysed. An edge without the
// C2PA module does not probe a file that may carry a manifest: it passes
// it to the origin, as before. Every answer is the origin's own verify
// answer byte for byte, and one verify at an edge counts once (or never,
// for a picture nobody signed).
func TestExactProbe(t *testing.T) {
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32")
	engines := map[string]*countingEngine{}
	edges := map[string]string{}
	for _, e := range []struct {
		name string
		opts edgeOpts
	}{
		{"wasm", edgeOpts{}},
		{"native", edgeOpts{engine: "native"}},
		{"wasm, probe off", edgeOpts{mutate: func(c *Config) { c.NoExactProbe = true }}},
		{"wasm, no C2PA module", edgeOpts{noC2PA: true}},
	} {
		name, mutate := e.name, e.opts.mutate
		e.opts.mutate = func(c *Config) {
			if mutate != nil {
				mutate(c)
			}
			engines[name] = &countingEngine{Engine: c.Engine}
			c.Engine = engines[name]
		}
		edges[name], _ = startEdge(t, origin, e.opts)
	}
	s := newSigner(t, origin, "desk@exact.edge.example")
	signed, _ := s.sign(t, origin, testImage(t, "meadow.jpg"))
	img, err := jpeg.Decode(bytes.NewReader(signed))
	if err != nil {
		t.Fatal(err)
	}
	stats := func() float64 { return s.totalVerified(t, origin) }
	for _, tt := range []struct {
		name string
		file []byte
		// exact: the file is the signed output, answered unanalysed;
		// counted: a verify counts for the signer.
		exact, counted bool
	}{
		{"own signed output", signed, true, true},
		{"re-encoded copy", jpegOf(t, img, 85), false, true},
		{"nobody's picture", unrelated(t, 41, 800, 600), false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, got := verifyEverywhere(t, origin, edges, tt.file)
			for name, r := range got {
				// The signed output carries the service's manifest.
				forwarded := tt.exact && name == "wasm, no C2PA module"
				if by := r.header.Get("X-Verified-By"); strings.HasPrefix(by, "edge ") == forwarded {
					t.Errorf("%s: X-Verified-By %q, want the origin's answer: %v", name, by, forwarded)
				}
			}
			for name, edge := range edges {
				analyses := engines[name].analyses.Load()
				before := stats()
				mustStatus(t, upload(t, edge+"/api/v1/verify", nextClient(), "", tt.file, nil), 200, name+" verify")
				inc := 0.0
				if tt.counted {
					inc = 1
				}
				if after := stats(); after != before+inc {
					t.Errorf("%s: total_verified %v -> %v after one verify, want +%v", name, before, after, inc)
				}
				want := int64(1)
				if tt.exact && (name == "wasm" || name == "native") {
					want = 0
				}
				if n := engines[name].analyses.Load() - analyses; n != want {
					t.Errorf("%s: %d analyses, want %d", name, n, want)
				}
			}
		})
	}
}

// lookupSeen is one lookup request a fake origin received.
type lookupSeen struct {
	ExactOnly, Report, HasPHash bool
}

// fakeLookupOrigin answers the exact-only lookup with exact (status and
// body) and the full lookup with no candidates, and records every lookup.
func fakeLookupOrigin(t *testing.T, status int, exact string) (string, func() []lookupSeen) {
	t.Helper()
	var mu sync.Mutex
	var seen []lookupSeen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != lookupPath {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var lr wire.LookupRequest
		if err := json.Unmarshal(b, &lr); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		seen = append(seen, lookupSeen{lr.ExactOnly, lr.Report, lr.PerceptualHash != ""})
		mu.Unlock()
		if lr.ExactOnly {
			if status == 429 {
				w.Header().Set("Retry-After", "7")
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, exact)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"candidates":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []lookupSeen {
		mu.Lock()
		defer mu.Unlock()
		return append([]lookupSeen(nil), seen...)
	}
}

// TestExactProbeFallbacks: what the edge does with each answer to its
// exact-only lookup. Not exact (204): the file is analysed and looked up
// in full with report. A refusal (429) is relayed, nothing analysed. An
// exact answer whose candidates hold no signed record of this file (the
// origin counted it, the edge cannot decide from it): analysed and looked
// up in full without report, so it is counted once. An origin that does
// not know exact_only (400 unknown_field) counted nothing: as not exact.
// With the probe off: the full lookup alone, with report.
func TestExactProbeFallbacks(t *testing.T) {
	file := unrelated(t, 42, 640, 480)
	unverifiable := `{"candidates":[{"record_id":"00000000-0000-4000-8000-000000000000","record":"AAAA","signature_hex":"00","source":"sign","status":"active","created_at":"2026-01-01T00:00:00Z","anchor_state":"pending"}]}`
	full := lookupSeen{Report: true, HasPHash: true}
	for _, tt := range []struct {
		name   string
		status int
		exact  string
		off    bool
		want   int
		// analyses of the file; the lookups the origin saw, in order.
		analyses int64
		seen     []lookupSeen
	}{
		{"not exact", 204, "", false, 200, 1, []lookupSeen{{ExactOnly: true, Report: true}, full}},
		{"refused", 429, `{"code":"rate_limited"}`, false, 429, 0, []lookupSeen{{ExactOnly: true, Report: true}}},
		{"an origin without exact_only", 400, `{"code":"unknown_field","status":400}`, false, 200, 1,
			[]lookupSeen{{ExactOnly: true, Report: true}, full}},
		{"another bad request", 400, `{"code":"invalid_field","status":400}`, false, 400, 0, []lookupSeen{{ExactOnly: true, Report: true}}},
		{"exact, no signed record of the file", 200, unverifiable, false, 200, 1,
			[]lookupSeen{{ExactOnly: true, Report: true}, {HasPHash: true}}},
		{"probe off", 200, unverifiable, true, 200, 1, []lookupSeen{full}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			origin, seen := fakeLookupOrigin(t, tt.status, tt.exact)
			eng := &countingEngine{Engine: verifier.Native{Limits: limits.Default()}}
			edge, _ := serveEdge(t, Config{Origin: origin, Engine: eng, NoExactProbe: tt.off, OriginTimeout: 30 * time.Second,
				DialTimeout: 300 * time.Millisecond})
			r := upload(t, edge+"/api/v1/verify", nextClient(), "", file, nil)
			if r.status != tt.want {
				t.Fatalf("verify: %d %s, want %d", r.status, r.body, tt.want)
			}
			if tt.status == 429 && r.header.Get("Retry-After") != "7" {
				t.Errorf("the origin's refusal was not relayed: Retry-After %q", r.header.Get("Retry-After"))
			}
			if n := eng.analyses.Load(); n != tt.analyses {
				t.Errorf("%d analyses, want %d", n, tt.analyses)
			}
			if got := seen(); !slices.Equal(got, tt.seen) {
				t.Errorf("lookups %+v, want %+v", got, tt.seen)
			}
		})
	}
}

// TestExactProbeChecksTheRecord: the edge decides without analysis only
// from a record it checked to be the service's signed output of this very
// file. An exact answer carrying a real signed record of another file, or
// this file's record marked registered, is not taken: the file is
// analysed and looked up in full without report (the origin counted it).
func TestExactProbeChecksTheRecord(t *testing.T) {
	origin, _ := startOrigin(t)
	s := newSigner(t, origin, "desk@checks.edge.example")
	signed, id := s.sign(t, origin, testImage(t, "meadow.jpg"))
	sum := sha256.Sum256(signed)
	r := doJSON(t, "POST", origin+lookupPath, "", wire.LookupRequest{SHA256: hex.EncodeToString(sum[:]), ExactOnly: true})
	mustStatus(t, r, 200, "exact lookup")
	answer := string(r.body)
	if !strings.Contains(answer, `"source":"sign"`) || !strings.Contains(answer, id) {
		t.Fatalf("exact answer %s does not carry the signed record %s", answer, id)
	}
	for _, tt := range []struct {
		name, answer string
		file         []byte
	}{
		{"another file's record", answer, unrelated(t, 43, 640, 480)},
		{"this file's record, registered", strings.ReplaceAll(answer, `"source":"sign"`, `"source":"register"`), signed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake, seen := fakeLookupOrigin(t, 200, tt.answer)
			eng := &countingEngine{Engine: verifier.Native{Limits: limits.Default()}}
			edge, _ := serveEdge(t, Config{Origin: fake, Engine: eng, OriginTimeout: 30 * time.Second, DialTimeout: 300 * time.Millisecond})
			mustStatus(t, upload(t, edge+"/api/v1/verify", nextClient(), "", tt.file, nil), 200, "edge verify")
			if n := eng.analyses.Load(); n != 1 {
				t.Errorf("%d analyses, want 1", n)
			}
			if got, want := seen(), []lookupSeen{{ExactOnly: true, Report: true}, {HasPHash: true}}; !slices.Equal(got, want) {
				t.Errorf("lookups %+v, want %+v", got, want)
			}
		})
	}
}

// TestExactProbeOriginTimeout: an origin that does not answer the probe in
// time gets the same 504 the full lookup would, before any analysis.
func TestExactProbeOriginTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	eng := &countingEngine{Engine: verifier.Native{Limits: limits.Default()}}
	edge, _ := serveEdge(t, Config{Origin: srv.URL, Engine: eng, OriginTimeout: 300 * time.Millisecond, DialTimeout: 300 * time.Millisecond})
	r := upload(t, edge+"/api/v1/verify", nextClient(), "", unrelated(t, 44, 320, 240), nil)
	if r.status != 504 || !strings.Contains(string(r.body), codeOriginTimeout) {
		t.Errorf("verify: %d %s, want 504 %s", r.status, r.body, codeOriginTimeout)
	}
	if n := eng.analyses.Load(); n != 0 {
		t.Errorf("%d analyses, want none", n)
	}
}

// TestExactProbeSkipsOversizeFiles: a file over the upload limit (it fits
// in the body's multipart slack) is never probed: the origin's verify
// refuses such a file before its own shortcut, so the edge must not
// answer it from the exact lookup. The engine here takes it (its limits
// are the defaults), so it is analysed and looked up in full.
func TestExactProbeSkipsOversizeFiles(t *testing.T) {
	file := unrelated(t, 43, 320, 240)
	origin, seen := fakeLookupOrigin(t, 200, `{"candidates":[]}`)
	lim := limits.Default()
	lim.MaxUploadBytes = int64(len(file)) - 1
	eng := &countingEngine{Engine: verifier.Native{Limits: limits.Default()}}
	edge, _ := serveEdge(t, Config{Origin: origin, Engine: eng, Limits: lim, OriginTimeout: 30 * time.Second,
		DialTimeout: 300 * time.Millisecond})
	r := upload(t, edge+"/api/v1/verify", nextClient(), "", file, nil)
	if r.status != 200 {
		t.Fatalf("verify: %d %s", r.status, r.body)
	}
	if got, want := seen(), []lookupSeen{{Report: true, HasPHash: true}}; !slices.Equal(got, want) {
		t.Errorf("lookups %+v, want %+v (no exact probe)", got, want)
	}
}
