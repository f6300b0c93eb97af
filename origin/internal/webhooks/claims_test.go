package webhooks

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
	"github.com/provenant/provenant/shared/clock"
)

// node is one origin's webhook service on the shared database.
type node struct {
	st  store.Store
	svc *Service
}

// newNodes starts n origins' webhook services, with claims, on one new
// database; configure, if set, adjusts each one's Config before New.
func newNodes(t *testing.T, n int, clk clock.Clock, configure func(*Config)) []*node {
	t.Helper()
	url := pgtest.Start(t).NewDatabase()
	var nodes []*node
	for range n {
		st := pgtest.Open(t, url)
		cfg := Config{Store: st, Clock: clk, MasterKey: bytes.Repeat([]byte{7}, 32),
			Guard: NewGuard(GuardConfig{Allow: loopback}), Timeout: 2 * time.Second, Claims: true}
		if configure != nil {
			configure(&cfg)
		}
		svc, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(svc.Close)
		nodes = append(nodes, &node{st: st, svc: svc})
	}
	return nodes
}

func (nd *node) publish(t *testing.T, clk clock.Clock, i int) {
	t.Helper()
	raw, err := events.NewData(map[string]int{"n": i})
	if err != nil {
		t.Fatal(err)
	}
	ev := events.Event{Type: "content.signed", Time: clk.Now(), Accounts: []string{"acct"}, Data: raw}
	if err := nd.st.Update(context.Background(), func(tx store.Txn) error { return nd.svc.Publish(tx, ev) }); err != nil {
		t.Fatal(err)
	}
}

// TestClaimsOneAttemptPerNode: two origins dispatch the same queue at the
// same moments; with claims each delivery is attempted once, by one of
// them, and every delivery succeeds.
func TestClaimsOneAttemptPerNode(t *testing.T) {
	clk := clock.NewFake(t0)
	nodes := newNodes(t, 2, clk, nil)
	rcv := newReceiver(t)
	if _, _, err := nodes[0].svc.Create(context.Background(), "acct", CreateInput{URL: rcv.srv.URL, Events: []string{"content.signed"}}); err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := range n {
		nodes[i%2].publish(t, clk, i)
	}
	for round := 0; round < 20 && len(rcv.requests()) < n; round++ {
		var wg sync.WaitGroup
		for _, nd := range nodes {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				if _, err := nd.svc.DispatchDue(ctx); err != nil {
					t.Errorf("DispatchDue: %v", err)
				}
			})
		}
		wg.Wait()
	}
	perID := map[string]int{}
	for _, r := range rcv.requests() {
		perID[r.header.Get(HeaderDelivery)]++
	}
	if len(perID) != n {
		t.Fatalf("%d distinct deliveries received, want %d", len(perID), n)
	}
	for id, c := range perID {
		if c != 1 {
			t.Errorf("delivery %s attempted %d times by the two origins, want once", id, c)
		}
	}
}

// TestClaimOfDeadNodeLapses: an origin claims a delivery and dies during
// the attempt (its outcome never recorded); the other origin leaves the
// claimed attempt alone until the claim lapses, then delivers it with the
// same delivery id. Nothing is lost.
func TestClaimOfDeadNodeLapses(t *testing.T) {
	clk := clock.NewFake(t0)
	nodes := newNodes(t, 2, clk, nil)
	rcv := newReceiver(t)
	rcv.mu.Lock()
	rcv.hang = true
	rcv.mu.Unlock()
	hook, _, err := nodes[0].svc.Create(context.Background(), "acct", CreateInput{URL: rcv.srv.URL, Events: []string{"content.signed"}})
	if err != nil {
		t.Fatal(err)
	}
	nodes[0].publish(t, clk, 1)
	done := make(chan struct{})
	go func() { defer close(done); _, _ = nodes[0].svc.DispatchDue(context.Background()) }()
	first := <-rcv.notify // A's attempt is at the receiver
	nodes[0].svc.Close()  // A dies mid-attempt: nothing recorded
	<-done
	rcv.mu.Lock()
	rcv.hang = false
	rcv.mu.Unlock()

	// B looks past the claimed delivery: no attempt started.
	if n, err := nodes[1].svc.DispatchDue(context.Background()); err != nil || n != 0 {
		t.Fatalf("DispatchDue on B while A's claim lives = %d, %v; want 0", n, err)
	}
	if got := len(rcv.requests()); got != 1 {
		t.Fatalf("B attempted a delivery A still holds the claim on (%d requests)", got)
	}
	clk.Advance(2*time.Second + ClaimGrace + time.Millisecond)
	if n, err := nodes[1].svc.DispatchDue(context.Background()); err != nil || n != 1 {
		t.Fatalf("DispatchDue on B after the claim lapsed = %d, %v", n, err)
	}
	reqs := rcv.requests()
	if len(reqs) != 2 || reqs[1].header.Get(HeaderDelivery) != first.header.Get(HeaderDelivery) {
		t.Fatalf("requests %d; want A's and B's attempt of the same delivery id", len(reqs))
	}
	ds, err := nodes[1].svc.ListDeliveries(context.Background(), "acct", hook.ID, StatusSucceeded, "", 10)
	if err != nil || len(ds.Items) != 1 {
		t.Fatalf("succeeded deliveries = %v, %v; want the one", ds.Items, err)
	}
}

// TestClaimedAttemptsAreSkipped: with one attempt per webhook per origin,
// while one origin's attempt is in flight (its receiver holds it), the
// other origin's pass looks past that claimed delivery and makes the next
// one, rather than stopping at the claimed head of the queue.
func TestClaimedAttemptsAreSkipped(t *testing.T) {
	clk := clock.NewFake(t0)
	release := make(chan struct{})
	var mu sync.Mutex
	got := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get(HeaderDelivery)] = true
		mu.Unlock()
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	nodes := newNodes(t, 2, clk, func(c *Config) { c.Timeout, c.PerEndpoint = 10*time.Second, 1 })
	if _, _, err := nodes[0].svc.Create(context.Background(), "acct", CreateInput{URL: srv.URL, Events: []string{"content.signed"}}); err != nil {
		t.Fatal(err)
	}
	nodes[0].publish(t, clk, 0)
	nodes[0].publish(t, clk, 1)
	received := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(got)
	}
	wait := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for received() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d deliveries received, want %d", received(), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := nodes[0].svc.dispatchDue(); err != nil {
		t.Fatal(err)
	}
	wait(1)
	if _, err := nodes[1].svc.dispatchDue(); err != nil {
		t.Fatal(err)
	}
	wait(2)
}
