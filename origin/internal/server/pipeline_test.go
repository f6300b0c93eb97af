package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// TestSignAnchorVerifyPipeline runs the whole product over real HTTP: files
// signed through the API are batched, their Merkle root is anchored on the
// embedded go-ethereum chain, the batch's owner gets batch.anchored on a
// real receiver, and verify then passes the blockchain check by reading the
// root back from the chain — also after a restart on the same data dir.
func TestSignAnchorVerifyPipeline(t *testing.T) {
	rcv := newHookReceiver(t)
	dir := t.TempDir()
	opts := func(c *Config, _ *deps) {
		c.Anchor.BatchSize = 3
		c.Anchor.PollInterval = 20 * time.Millisecond
		c.Webhooks = loopbackWebhooks()
	}
	ts := startServer(t, dir, nil, opts)
	s := ts.newSigner("anchors@example.com")
	ts.subscribe(s, rcv.srv.URL, "batch.anchored")

	marked, ids := ts.signPhotos(s, 3, 100)

	// The third record closes the batch; wait for every record to be anchored.
	ts.waitAnchored(s, ids...)

	// The detail carries a proof that verifies against the chain without the
	// service's word: recompute it here with the chain the server reads.
	r := ts.do("GET", "/api/v1/content-records/"+ids[0], s.apiKey, nil)
	var detail struct {
		BlockchainTx string           `json:"blockchain_tx"`
		Certificate  wire.Certificate `json:"certificate"`
		Anchoring    struct {
			Status string       `json:"status"`
			Detail string       `json:"detail"`
			Proof  anchor.Proof `json:"proof"`
		} `json:"anchoring"`
	}
	if err := json.Unmarshal(r.body, &detail); err != nil {
		t.Fatalf("detail %s: %v", r.body, err)
	}
	if detail.Anchoring.Status != "verified" || detail.BlockchainTx == "" || detail.Certificate.Anchor == nil {
		t.Fatalf("detail anchoring = %+v, tx %q, certificate anchor %v; want verified with tx and anchor", detail.Anchoring, detail.BlockchainTx, detail.Certificate.Anchor)
	}
	cert, err := record.CertificateFromWire(detail.Certificate, limits.Default())
	if err != nil {
		t.Fatalf("CertificateFromWire: %v", err)
	}
	if _, err := cert.Verify(); err != nil {
		t.Errorf("certificate does not verify offline: %v", err)
	}
	res, err := anchor.Verify(t.Context(), ts.srv.chain, anchor.Hash(cert.Signed.LeafHash()), detail.Anchoring.Proof, 1)
	if err != nil || !res.Passed() {
		t.Errorf("anchor.Verify(detail proof) = %+v, %v; want verified", res, err)
	}
	tampered := detail.Anchoring.Proof
	tampered.MerkleRoot[0] ^= 1
	if res, _ := anchor.Verify(t.Context(), ts.srv.chain, anchor.Hash(cert.Signed.LeafHash()), tampered, 1); res.Passed() {
		t.Errorf("anchor.Verify(tampered root) passed, want failure")
	}

	checkVerify := func(ts *testServer, what string) {
		t.Helper()
		for i, m := range marked {
			r := ts.upload("/api/v1/verify", "", []namedFile{{"file", "x.jpg", m}}, nil)
			ts.mustStatus(r, 200, what)
			var v wire.VerifyResponse
			if err := json.Unmarshal(r.body, &v); err != nil {
				t.Fatal(err)
			}
			bc := v.Checks.Blockchain
			if !v.Authentic || !bc.Passed || !strings.HasPrefix(bc.Details, "Merkle proof verified") || v.BlockchainTx == "" || !strings.Contains(bc.Details, v.BlockchainTx) {
				t.Errorf("%s: verify(file %d) authentic=%v blockchain=%+v tx=%q; want authentic, proof verified on chain", what, i, v.Authentic, bc, v.BlockchainTx)
			}
		}
	}
	checkVerify(ts, "verify after anchoring")

	// Dashboard counters follow the anchoring.
	r = ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	st := r.json(t)
	if st["blockchain_anchored"] != float64(3) || st["pending_batch"] != float64(0) {
		t.Errorf("dashboard = %s, want 3 anchored, 0 pending", r.body)
	}

	// batch.anchored reached the owner's receiver with the batch's records.
	for deadline := time.Now().Add(10 * time.Second); rcv.count() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no batch.anchored delivery within 10s")
		}
	}
	h, body := rcv.request(0)
	var ev struct {
		Event string `json:"event"`
		Data  struct {
			RecordIDs []string `json:"record_ids"`
			TxHash    string   `json:"tx_hash"`
			LeafCount int      `json:"leaf_count"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	if h.Get("X-Service-Event") != "batch.anchored" || ev.Data.LeafCount != 3 || len(ev.Data.RecordIDs) != 3 || ev.Data.TxHash != detail.BlockchainTx {
		t.Errorf("batch.anchored = %s (event header %q), want 3 records in tx %s", body, h.Get("X-Service-Event"), detail.BlockchainTx)
	}

	// A restart keeps the chain: every proof still verifies.
	ts.stop()
	ts2 := startServer(t, dir, nil, opts)
	checkVerify(ts2, "verify after restart")
}
