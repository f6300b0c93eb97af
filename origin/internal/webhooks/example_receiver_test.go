package webhooks

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/webhooks/example"
)

// TestExampleReceiverAcceptsDeliveries runs the documented receiver against
// the real dispatcher: it verifies the signature, survives a rotation while
// holding only the old secret, and processes a retried delivery once.
func TestExampleReceiverAcceptsDeliveries(t *testing.T) {
	e := newEnv(t, nil)
	var mu sync.Mutex
	calls, failNext := 0, true
	rc := &example.Receiver{Handle: func(string, []byte) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if failNext {
			failNext = false
			return errors.New("database down")
		}
		return nil
	}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	w, secret := e.create("acct-a", srv.URL, nil)
	rc.Secrets = []string{secret}

	e.publish(events.ContentSigned, map[string]any{"record_id": "r1"}, "acct-a")
	e.dispatch() // Handle fails: 500
	e.clock.Advance(time.Minute)
	e.dispatch() // retried, processed
	d := e.deliveries("acct-a", w.ID, "")[0]
	if d.Status != StatusSucceeded || len(d.Attempts) != 2 || d.Attempts[0].StatusCode != 500 || d.Attempts[1].StatusCode != 204 {
		t.Fatalf("delivery %s attempts %+v, want 500 then 204", d.Status, d.Attempts)
	}

	if _, _, err := e.svc.RotateSecret(context.Background(), "acct-a", w.ID); err != nil {
		t.Fatal(err)
	}
	e.publish(events.ContentVerified, map[string]any{}, "acct-a")
	e.dispatch()
	got := e.deliveries("acct-a", w.ID, StatusSucceeded)
	if len(got) != 2 {
		t.Errorf("after rotation, receiver holding the old secret: %d succeeded, want 2", len(got))
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 3 {
		t.Errorf("Handle called %d times, want 3 (fail, success, post-rotation)", calls)
	}
}
