package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/record"
)

// recorder is an events.Publisher and a content.AnchorQueue that remember
// what they were given (tests only: a real subscriber writes through txn).
type recorder struct {
	mu     sync.Mutex
	events []events.Event
	queued map[string][32]byte
}

func (r *recorder) Publish(_ store.Txn, ev events.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	return nil
}

func (r *recorder) Enqueue(_ store.Txn, id string, leaf [32]byte, _ string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.queued == nil {
		r.queued = map[string][32]byte{}
	}
	r.queued[id] = leaf
	return nil
}

// anchored is a ProofSource for a one-leaf batch: the root is the leaf.
type anchored struct{ rec *recorder }

func (a anchored) AnchorState(_ context.Context, id string, leaf [32]byte) (content.AnchorState, error) {
	a.rec.mu.Lock()
	defer a.rec.mu.Unlock()
	if q, ok := a.rec.queued[id]; !ok || q != leaf {
		return content.AnchorState{Outcome: content.AnchorPending, Detail: "pending: queued for anchoring"}, nil
	}
	an := &record.Anchor{BatchID: "b1", LeafIndex: 0, TreeSize: 1, Root: leaf, TxHash: "0xabc", BlockNumber: 7, Network: "dev"}
	return content.AnchorState{Outcome: content.AnchorVerified, Detail: "Merkle proof verified in tx 0xabc", Anchor: an, Proof: map[string]any{"tx_hash": "0xabc"}}, nil
}

func TestEventsAndAnchoringSeam(t *testing.T) {
	rec := &recorder{}
	ts := startServer(t, "", nil, func(c *Config) {
		c.Events, c.AnchorQueue, c.Proofs = rec, rec, anchored{rec}
	})
	s := ts.newSigner("anchor@example.com")
	r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "pic.jpg", photo(t, 11, 384, 288)}}, map[string]string{"return_file": "true"})
	ts.mustStatus(r, 201, "sign")
	id, marked := r.header.Get("X-Record-Id"), r.body
	if _, ok := rec.queued[id]; !ok {
		t.Fatalf("record %s was not queued for anchoring", id)
	}
	if len(rec.events) != 1 || rec.events[0].Type != events.ContentSigned || rec.events[0].Accounts[0] != s.id {
		t.Fatalf("events = %+v, want one content.signed for the owner", rec.events)
	}
	var data map[string]any
	_ = json.Unmarshal(rec.events[0].Data, &data)
	signer, _ := data["signer"].(map[string]any)
	if data["record_id"] != id || data["original_filename"] != "pic.jpg" || data["origin_type"] != "camera_image" ||
		data["blockchain_status"] != "pending" || signer["org_name"] != "Example News" || signer["key_name"] != "Newsroom camera" {
		t.Errorf("content.signed data = %s", rec.events[0].Data)
	}

	// The anchoring service marks the batch anchored inside its own
	// transaction.
	err := ts.srv.Store().Update(context.Background(), func(tx store.Txn) error {
		return ts.srv.Records().MarkAnchored(tx, []string{id, "unknown-id"}, "0xabc", ts.clock.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	v := ts.verify(marked)
	if !v.Authentic || v.Confidence != 1 || !v.Checks["blockchain"].Passed {
		t.Errorf("verify after anchoring = %+v, want authentic, confidence 1, blockchain passed", v)
	}
	if n := len(rec.events); n != 2 || rec.events[1].Type != events.ContentVerified {
		t.Fatalf("events after verify = %d, want content.verified second", n)
	}
	_ = json.Unmarshal(rec.events[1].Data, &data)
	if data["record_id"] != id || data["authentic"] != true || data["checks"] == nil {
		t.Errorf("content.verified data = %s", rec.events[1].Data)
	}
	// Unknown files publish nothing.
	ts.verify(photo(t, 12, 384, 288))
	if len(rec.events) != 2 {
		t.Errorf("verifying an unknown file published an event")
	}

	r = ts.do("GET", "/api/v1/content-records?blockchain_status=anchored", s.apiKey, nil)
	if !strings.Contains(string(r.body), id) || !strings.Contains(string(r.body), `"blockchain_tx":"0xabc"`) {
		t.Errorf("anchored filter = %s, want the record with its tx", r.body)
	}
	r = ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil)
	ts.mustStatus(r, 200, "detail")
	if !strings.Contains(string(r.body), `"proof":{"tx_hash":"0xabc"}`) || !strings.Contains(string(r.body), `"anchor":{`) {
		t.Errorf("detail = %s, want the proof and the certificate's anchor", r.body)
	}
	r = ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	if !strings.Contains(string(r.body), `"blockchain_anchored":1`) || !strings.Contains(string(r.body), `"pending_batch":0`) || !strings.Contains(string(r.body), `"total_verified":1`) {
		t.Errorf("stats = %s, want 1 anchored, 0 pending, 1 verified", r.body)
	}
	// MarkAnchored is idempotent.
	_ = ts.srv.Store().Update(context.Background(), func(tx store.Txn) error {
		return ts.srv.Records().MarkAnchored(tx, []string{id}, "0xabc", ts.clock.Now())
	})
	r = ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	if !strings.Contains(string(r.body), `"blockchain_anchored":1`) {
		t.Errorf("stats after a second MarkAnchored = %s, want still 1 anchored", r.body)
	}
}
