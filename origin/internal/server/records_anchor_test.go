package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/testkit"
)

// recorder is an events.Publisher and a content.AnchorQueue that remember
// what they were given (tests only: a real subscriber writes through txn).
type recorder struct {
	testkit.Events
	mu     sync.Mutex
	queued map[string]anchor.Hash
}

func (r *recorder) Publish(_ store.Txn, ev events.Event) error {
	r.Record(ev)
	return nil
}

func (r *recorder) Enqueue(_ store.Txn, e anchor.Entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.queued == nil {
		r.queued = map[string]anchor.Hash{}
	}
	r.queued[e.RecordID] = e.LeafHash
	return nil
}

// anchored is a ProofSource for a one-leaf batch: the root is the leaf.
type anchored struct{ rec *recorder }

func (a anchored) AnchorState(_ context.Context, id string, leaf anchor.Hash) (anchor.State, error) {
	a.rec.mu.Lock()
	defer a.rec.mu.Unlock()
	if q, ok := a.rec.queued[id]; !ok || q != leaf {
		return anchor.State{Outcome: anchor.Pending, Detail: "pending: queued for anchoring"}, nil
	}
	p := &anchor.Proof{Format: anchor.ProofFormat, RecordID: id, Status: anchor.StatusAnchored, LeafHash: leaf, BatchID: "1",
		TreeSize: 1, MerkleRoot: leaf, Network: "dev", TxHash: testTx, BlockNumber: 7}
	return anchor.State{Outcome: anchor.Verified, Detail: "Merkle proof verified in tx " + testTx.String(), Proof: p}, nil
}

var testTx = anchor.Hash{0xab, 0xc}

func TestEventsAndAnchoringSeam(t *testing.T) {
	rec := &recorder{}
	ts := startServer(t, "", nil, func(_ *Config, d *deps) {
		d.events, d.anchorQueue, d.proofs = rec, rec, anchored{rec}
	})
	s := ts.newSigner("anchor@example.com")
	r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "pic.jpg", photo(t, 11, 384, 288)}}, map[string]string{"return_file": "true"})
	ts.mustStatus(r, 201, "sign")
	id, marked := r.header.Get("X-Record-Id"), r.body
	if _, ok := rec.queued[id]; !ok {
		t.Fatalf("record %s was not queued for anchoring", id)
	}
	if len(rec.All()) != 1 || rec.All()[0].Type != events.ContentSigned || rec.All()[0].Accounts[0] != s.id {
		t.Fatalf("events = %+v, want one content.signed for the owner", rec.All())
	}
	var data map[string]any
	_ = json.Unmarshal(rec.All()[0].Data, &data)
	signer, _ := data["signer"].(map[string]any)
	if data["record_id"] != id || data["original_filename"] != "pic.jpg" || data["origin_type"] != "camera_image" ||
		data["blockchain_status"] != "pending" || signer["org_name"] != "Example News" || signer["key_name"] != "Newsroom camera" {
		t.Errorf("content.signed data = %s", rec.All()[0].Data)
	}

	// The batcher tells the server's listener that the batch is anchored,
	// inside its own transaction: the records are marked, then
	// batch.anchored is published to the owners.
	batch := anchor.AnchoredBatch{BatchID: "1", MerkleRoot: rec.queued[id], LeafCount: 1, TxHash: testTx, BlockNumber: 7,
		Network: "dev", RecordIDs: []string{id, "unknown-id"}, Accounts: map[string]int{s.id: 1}, AnchoredAt: ts.clock.Now()}
	err := ts.srv.store.Update(context.Background(), func(tx store.Txn) error { return ts.srv.anchored.BatchAnchored(tx, batch) })
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Types(); len(got) != 2 || got[1] != events.BatchAnchored {
		t.Fatalf("events after anchoring = %v, want batch.anchored second", got)
	}
	if ev := rec.All()[1]; len(ev.Accounts) != 1 || ev.Accounts[0] != s.id || !strings.Contains(string(ev.Data), `"record_ids":["`+id+`","unknown-id"]`) ||
		!strings.Contains(string(ev.Data), `"tx_hash":"`+testTx.String()+`"`) {
		t.Errorf("batch.anchored = %+v (%s), want the owner and the batch's records", ev, ev.Data)
	}
	v := ts.verify(marked)
	// The server's network is the embedded chain: not public, so the
	// anchor passes the check but adds no confidence.
	if !v.Authentic || v.Confidence != 0.98 || !v.Checks["blockchain"].Passed {
		t.Errorf("verify after anchoring = %+v, want authentic, confidence 0.98 (local chain), blockchain passed", v)
	}
	if got := rec.Types(); len(got) != 3 || got[2] != events.ContentVerified {
		t.Fatalf("events after verify = %v, want content.verified third", got)
	}
	_ = json.Unmarshal(rec.All()[2].Data, &data)
	if data["record_id"] != id || data["authentic"] != true || data["checks"] == nil {
		t.Errorf("content.verified data = %s", rec.All()[1].Data)
	}
	// Unknown files publish nothing.
	ts.verify(photo(t, 12, 384, 288))
	if got := rec.Types(); len(got) != 3 {
		t.Errorf("verifying an unknown file published an event: %v", got)
	}

	r = ts.do("GET", "/api/v1/content-records?blockchain_status=anchored", s.apiKey, nil)
	if !strings.Contains(string(r.body), id) || !strings.Contains(string(r.body), `"blockchain_tx":"`+testTx.String()+`"`) {
		t.Errorf("anchored filter = %s, want the record with its tx", r.body)
	}
	r = ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil)
	ts.mustStatus(r, 200, "detail")
	if !strings.Contains(string(r.body), `"proof":{"format":"`+anchor.ProofFormat+`"`) || !strings.Contains(string(r.body), `"anchor":{`) {
		t.Errorf("detail = %s, want the proof and the certificate's anchor", r.body)
	}
	r = ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	if !strings.Contains(string(r.body), `"blockchain_anchored":1`) || !strings.Contains(string(r.body), `"pending_batch":0`) || !strings.Contains(string(r.body), `"total_verified":1`) {
		t.Errorf("stats = %s, want 1 anchored, 0 pending, 1 verified", r.body)
	}
	// A replayed batch changes no record and no counter.
	_ = ts.srv.store.Update(context.Background(), func(tx store.Txn) error { return ts.srv.anchored.BatchAnchored(tx, batch) })
	r = ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	if !strings.Contains(string(r.body), `"blockchain_anchored":1`) {
		t.Errorf("stats after a replayed batch = %s, want still 1 anchored", r.body)
	}
}
