package server

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2pafacts"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

// TestOwnSignedPicturesSkipC2PAModule: the service's own signed output,
// manifest and all, is verified at the wasm edge without the C2PA module
// (the lookup answers the c2pa member from the bytes the origin kept),
// while a picture carrying another signer's manifest, a signed output
// the origin no longer keeps, and another certificate's manifest naming
// a record of this service still go through it. Every answer is the
// origin's own verify answer byte for byte, and each verification at the
// edge is counted once.
func TestOwnSignedPicturesSkipC2PAModule(t *testing.T) {
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32")
	edge, srv := startEdge(t, origin, edgeOpts{})
	w, ok := srv.cfg.Engine.(*verifier.Wasm)
	if !ok {
		t.Fatalf("engine %T, want the wasm engine", srv.cfg.Engine)
	}
	s := newSigner(t, origin, "desk@c2pa.edge.example")
	signed, id := s.sign(t, origin, testImage(t, "meadow.jpg"))
	gone, _ := s.sign(t, origin, testImage(t, "water.jpg"))
	sum := sha256.Sum256(gone)
	name := hex.EncodeToString(sum[:])
	// The origin's data directory is one of this test's temporary
	// directories: its blobs hold the signed output under its SHA-256.
	removed := false
	_ = filepath.WalkDir(filepath.Dir(t.TempDir()), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == name && os.Remove(p) == nil {
			removed = true
		}
		return nil
	})
	if !removed {
		t.Fatal("the origin keeps its signed output elsewhere")
	}
	camera, _, _, err := c2pa.Embed(unrelated(t, 31, 640, 480), c2pa.Manifest{ClaimGenerator: "Camera/1.0", Format: "image/jpeg",
		Actions: []c2pa.Action{{Action: "c2pa.created"}}}, c2patest.NewSigner(t, c2patest.CertOptions{Org: "Third Party Camera"}))
	if err != nil {
		t.Fatal(err)
	}
	// A manifest that names the signed record, signed by somebody else:
	// a claim that only adds that record as a candidate.
	claims, _, _, err := c2pa.Embed(unrelated(t, 32, 640, 480), c2pa.Manifest{ClaimGenerator: "Forger/1.0", Format: "image/jpeg",
		Actions:    []c2pa.Action{{Action: "c2pa.created"}},
		Assertions: []c2pa.Assertion{{Label: c2pafacts.RecordAssertion, Data: map[string]string{"record_id": id}}}},
		c2patest.NewSigner(t, c2patest.CertOptions{Org: "Somebody"}))
	if err != nil {
		t.Fatal(err)
	}
	stats := func() float64 { return s.totalVerified(t, origin) }
	for _, tt := range []struct {
		name string
		file []byte
		// module says the C2PA module must read the manifest at the edge;
		// trusted is the c2pa member's.
		module, trusted bool
		// counted: the verification counts for the signer.
		counted bool
	}{
		{"own signed output", signed, false, true, true},
		{"third-party manifest", camera, true, false, false},
		{"signed output not kept", gone, true, true, true},
		{"another certificate naming a record", claims, true, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := w.C2PACalls()
			want, got := verifyEverywhere(t, origin, map[string]string{"wasm": edge}, tt.file)
			if n := w.C2PACalls() - calls; (n > 0) != tt.module {
				t.Errorf("%d calls of the C2PA module, want them: %v", n, tt.module)
			}
			c, _ := want.json(t)["c2pa"].(map[string]any)
			if tr, _ := c["trusted"].(bool); c == nil || tr != tt.trusted {
				t.Fatalf("c2pa member %v, want trusted %v", c, tt.trusted)
			}
			if !strings.HasPrefix(got["wasm"].header.Get("X-Verified-By"), "edge wasm:") {
				t.Fatalf("X-Verified-By %q: the edge did not verify it", got["wasm"].header.Get("X-Verified-By"))
			}
			before := stats()
			mustStatus(t, upload(t, edge+"/api/v1/verify", nextClient(), "", tt.file, nil), 200, "edge verify")
			inc := 0.0
			if tt.counted {
				inc = 1
			}
			if after := stats(); after != before+inc {
				t.Errorf("total_verified %v -> %v after one verify at the edge, want +%v", before, after, inc)
			}
		})
	}
}
