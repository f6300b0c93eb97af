package server

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

// TestLookupAnswersOwnC2PA: a lookup with c2pa_manifest for the signed
// output of a record this service signed answers the c2pa member of the
// origin's /verify response for that file, read from the kept file; for
// another signer's manifest it answers the CA certificate and no member;
// and a kept file whose bytes no longer hash to its name gives no member.
func TestLookupAnswersOwnC2PA(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSignerOrg("desk@own-c2pa.example", "Own C2PA News")
	signed, _ := ts.signTestdata(s, "meadow.jpg", "sign meadow")
	camera := cameraManifest(t, photo(t, 5, 320, 240))
	lookup := func(file []byte) wire.LookupResponse {
		t.Helper()
		f, err := facts.Analyze(file, limits.Default(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		w := f.Wire()
		r := ts.do("POST", "/api/v1/verify/lookup", "", map[string]any{"sha256": w.SHA256, "perceptual_hash": w.PerceptualHash,
			"watermark": w.Watermark, "c2pa_manifest": true})
		ts.mustStatus(r, 200, "lookup")
		var lr wire.LookupResponse
		if err := json.Unmarshal(r.body, &lr); err != nil {
			t.Fatal(err)
		}
		return lr
	}

	want := ts.verifyWire(signed).C2PA
	lr := lookup(signed)
	if want == nil || !want.Ours || !reflect.DeepEqual(lr.C2PA, want) || lr.C2PACA == "" {
		t.Fatalf("own signed output: lookup c2pa %+v (ca %d bytes), /verify c2pa %+v", lr.C2PA, len(lr.C2PACA), want)
	}
	if lr := lookup(camera); lr.C2PA != nil || lr.C2PACA == "" {
		t.Errorf("third-party manifest: lookup c2pa %+v, ca %d bytes; want no member and the CA", lr.C2PA, len(lr.C2PACA))
	}

	// The kept file changed on disk: its bytes are no longer the signed
	// output, so the origin does not speak for them.
	name := sha256Hex(signed)
	var kept string
	_ = filepath.WalkDir(ts.dataDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			kept = p
		}
		return nil
	})
	if kept == "" {
		t.Fatal("the signed file is not kept under the data directory")
	}
	tampered := append([]byte(nil), signed...)
	tampered[len(tampered)-3] ^= 0x40
	if err := os.Chmod(kept, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept, tampered, 0o600); err != nil {
		t.Fatal(err)
	}
	if lr := lookup(signed); lr.C2PA != nil || len(lr.Candidates) == 0 {
		t.Errorf("kept file tampered with: lookup c2pa %+v with %d candidates; want no member, the record still a candidate", lr.C2PA, len(lr.Candidates))
	}
}
