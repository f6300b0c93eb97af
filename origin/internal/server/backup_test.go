package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/wire"
)

// TestBackupRestoreDrill is the operator's drill: sign and anchor, take an
// online backup through the admin listener, wipe the data directory,
// restore into a new one, and check that the records verify with their
// anchored proofs on the restored chain, that signing works (the secrets
// came back), and that the webhook queue resumes: a delivery that failed
// before the backup is retried and delivered after the restore.
func TestBackupRestoreDrill(t *testing.T) {
	rcv := newHookReceiver(t, 500, 200)
	dir := t.TempDir()
	opts := func(c *Config, _ *deps) {
		c.AdminAddr = "127.0.0.1:0"
		c.Webhooks = loopbackWebhooks()
	}
	ts := startServer(t, dir, nil, batchesOf(2), opts)
	s := ts.newSigner("drill@example.com")
	ts.subscribe(s, rcv.srv.URL, "batch.anchored")
	marked, ids := ts.signPhotos(s, 2, 500)
	// Anchored, and the batch.anchored delivery failed once (500) and
	// waits for its retry a minute later on the test clock.
	deadline := time.Now().Add(60 * time.Second)
	for {
		anchored := true
		for _, id := range ids {
			r := ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil)
			anchored = anchored && r.json(t)["blockchain_status"] == "anchored"
		}
		if anchored && scrape(t, ts)["provenant_webhook_attempts_total{outcome=http_status}"] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("records not anchored, or the first delivery attempt not recorded, within 60s")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A blob directory (the demo pictures live there) travels whole.
	blob := []byte("demo picture bytes")
	if err := os.MkdirAll(filepath.Join(dir, demoSubdir, "pictures"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, demoSubdir, "pictures", "a.jpg"), blob, 0o600); err != nil {
		t.Fatal(err)
	}

	// Online backup over the admin listener, while the server runs.
	resp, err := http.Get("http://" + ts.srv.AdminAddr().String() + "/backup")
	if err != nil {
		t.Fatal(err)
	}
	archive, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /backup = %d, %v", resp.StatusCode, err)
	}
	ts.stop()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	if err := Restore(t.Context(), bytes.NewReader(archive), restored, nil); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if err := Restore(t.Context(), bytes.NewReader(archive), restored, nil); !errors.Is(err, ErrRestoreTarget) {
		t.Errorf("Restore into a non-empty dir = %v, want ErrRestoreTarget", err)
	}
	if err := Restore(t.Context(), bytes.NewReader(archive[:len(archive)/2]), filepath.Join(t.TempDir(), "half"), nil); err == nil {
		t.Error("Restore of a truncated archive succeeded, want an error")
	}

	if got, err := os.ReadFile(filepath.Join(restored, demoSubdir, "pictures", "a.jpg")); err != nil || !bytes.Equal(got, blob) {
		t.Errorf("restored blob = %q, %v; want %q", got, err, blob)
	}

	// Two minutes later on the restored origin: the retry is due.
	ts2 := startServer(t, restored, clock.NewFake(t0.Add(2*time.Minute)), batchesOf(2), opts)
	for i, m := range marked {
		r := ts2.upload("/api/v1/verify", "", []namedFile{{"file", "x.jpg", m}}, nil)
		ts2.mustStatus(r, 200, "verify after restore")
		var v wire.VerifyResponse
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatal(err)
		}
		bc := v.Checks.Blockchain
		if !v.Authentic || !bc.Passed || !strings.HasPrefix(bc.Details, "Merkle proof verified") || v.BlockchainTx == "" {
			t.Errorf("verify(file %d) after restore: authentic=%v blockchain=%+v; want authentic with the proof verified on the restored chain", i, v.Authentic, bc)
		}
		if f := ts2.download("/api/v1/content-records/"+ids[i]+"/file", s.apiKey, nil); f.status != 200 || !bytes.Equal(f.body, m) {
			t.Errorf("signed file %d after restore: %d, %d bytes; want the %d bytes signed", i, f.status, len(f.body), len(m))
		}
	}
	r := ts2.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "p.jpg", photo(t, 599, 640, 480)}}, nil)
	ts2.mustStatus(r, 201, "sign after restore (API key, signing key and master key restored)")
	for deadline := time.Now().Add(30 * time.Second); rcv.count() < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("webhook retry not delivered after restore within 30s (receiver saw %d requests)", rcv.count())
		}
	}
	h1, b1 := rcv.request(0)
	h2, b2 := rcv.request(1)
	if h1.Get("X-Service-Event") != "batch.anchored" || !bytes.Equal(b1, b2) {
		t.Errorf("retried delivery after restore = %s %q, want the same batch.anchored body as before the backup (%s)", h2.Get("X-Service-Event"), b2, b1)
	}
}

func TestIsBlobEntry(t *testing.T) {
	for name, want := range map[string]bool{
		"demo/a.jpg":          true,
		"demo/pictures/b.png": true,
		"demo":                false,
		"../demo/a.jpg":       false,
		"/demo/a.jpg":         false,
		"secrets/master.key":  false,
		"demonstration/a.jpg": false,
		"badger.backup":       false,
	} {
		if got := isBlobEntry(path.Clean(name)); got != want {
			t.Errorf("isBlobEntry(%q) = %v, want %v", name, got, want)
		}
	}
}
