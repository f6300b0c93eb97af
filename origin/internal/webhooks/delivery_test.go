package webhooks

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
)

func TestDeliverySignedOverRawBody(t *testing.T) {
	e := newEnv(t, nil)
	rcv := newReceiver(t, 200)
	w, secret := e.create("acct-a", rcv.srv.URL+"/hook", nil)
	if !strings.HasPrefix(secret, SecretPrefix) {
		t.Fatalf("secret %q lacks prefix %q", secret, SecretPrefix)
	}
	e.publish(events.ContentSigned, map[string]any{"record_id": "r1", "sha256": "ab"}, "acct-a")
	if n := e.dispatch(); n != 1 {
		t.Fatalf("DispatchDue started %d attempts, want 1", n)
	}
	reqs := rcv.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if !VerifySignature(secret, r.body, r.header.Get(HeaderSignature)) {
		t.Errorf("X-Service-Signature %q does not verify over the raw body", r.header.Get(HeaderSignature))
	}
	if VerifySignature(secret, append(r.body, ' '), r.header.Get(HeaderSignature)) {
		t.Errorf("signature verifies over a modified body")
	}
	dels := e.deliveries("acct-a", w.ID, "")
	if len(dels) != 1 {
		t.Fatalf("deliveries = %d, want 1", len(dels))
	}
	d := dels[0]
	if string(d.Body) != string(r.body) {
		t.Errorf("sent body %q != stored body %q", r.body, d.Body)
	}
	wantHeaders := map[string]string{
		HeaderEvent:        events.ContentSigned,
		HeaderDelivery:     d.ID,
		HeaderTimestamp:    "2026-03-04T10:00:00Z",
		HeaderStdID:        d.ID,
		HeaderStdTimestamp: strconv.FormatInt(t0.Unix(), 10),
		"Content-Type":     "application/json",
	}
	for h, want := range wantHeaders {
		if got := r.header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	std, err := SignStandard(secret, d.ID, t0, r.body)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.header.Get(HeaderStdSignature); got != std {
		t.Errorf("webhook-signature = %q, want %q", got, std)
	}
	if got := r.header.Get(HeaderSignaturePrevious); got != "" {
		t.Errorf("X-Service-Signature-Previous = %q before any rotation, want empty", got)
	}
	m := decodeJSON(t, r.body)
	if m["event"] != events.ContentSigned || m["timestamp"] != "2026-03-04T10:00:00Z" {
		t.Errorf("envelope = %v, want event content.signed and timestamp 2026-03-04T10:00:00Z", m)
	}
	if data, _ := m["data"].(map[string]any); data["record_id"] != "r1" {
		t.Errorf("envelope data = %v, want record_id r1", m["data"])
	}
	if d.Status != StatusSucceeded || len(d.Attempts) != 1 || d.Attempts[0].StatusCode != 200 {
		t.Errorf("delivery = status %s attempts %+v, want succeeded with one 200 attempt", d.Status, d.Attempts)
	}
	if n := e.dispatch(); n != 0 {
		t.Errorf("second DispatchDue started %d attempts, want 0 (delivered)", n)
	}
}

// TestStandardWebhooksVector checks SignStandard against the test vector of
// the Standard Webhooks reference libraries.
func TestStandardWebhooksVector(t *testing.T) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	id := "msg_p5jXN8AQM9LWM0D4loKWxJek"
	ts := time.Unix(1614265330, 0)
	body := []byte(`{"test": 2432232314}`)
	got, err := SignStandard(secret, id, ts, body)
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("SignStandard = %q, want %q", got, want)
	}
}

func TestRetryScheduleSameDeliveryID(t *testing.T) {
	e := newEnv(t, nil)
	rcv, w, _ := e.hooked(500, 500, 200)
	e.publish(events.ContentSigned, map[string]any{"n": 1}, "acct-a")

	steps := []struct {
		advance   time.Duration
		wantStart int
		wantReqs  int
	}{
		{0, 1, 1},                              // attempt 1 at once
		{59 * time.Second, 0, 1},               // not yet
		{time.Second, 1, 2},                    // attempt 2 at +1 min
		{4*time.Minute + 59*time.Second, 0, 2}, // not yet
		{time.Second, 1, 3},                    // attempt 3 at +5 min
		{time.Hour, 0, 3},                      // succeeded: nothing more
	}
	for i, s := range steps {
		e.clock.Advance(s.advance)
		if got := e.dispatch(); got != s.wantStart {
			t.Errorf("step %d (+%v): started %d attempts, want %d", i, s.advance, got, s.wantStart)
		}
		if got := len(rcv.requests()); got != s.wantReqs {
			t.Errorf("step %d: receiver has %d requests, want %d", i, got, s.wantReqs)
		}
	}
	reqs := rcv.requests()
	id := reqs[0].header.Get(HeaderDelivery)
	for i, r := range reqs {
		if got := r.header.Get(HeaderDelivery); got != id || got == "" {
			t.Errorf("attempt %d delivery id = %q, want %q", i+1, got, id)
		}
		if string(r.body) != string(reqs[0].body) {
			t.Errorf("attempt %d body differs from attempt 1", i+1)
		}
	}
	d := e.deliveries("acct-a", w.ID, "")[0]
	if d.Status != StatusSucceeded {
		t.Errorf("status = %s, want succeeded", d.Status)
	}
	wantAt := []time.Time{t0, t0.Add(time.Minute), t0.Add(6 * time.Minute)}
	wantCode := []int{500, 500, 200}
	if len(d.Attempts) != 3 {
		t.Fatalf("attempts = %+v, want 3", d.Attempts)
	}
	for i, a := range d.Attempts {
		if !a.At.Equal(wantAt[i]) || a.StatusCode != wantCode[i] || a.Number != i+1 {
			t.Errorf("attempt %d = %+v, want at %v code %d", i+1, a, wantAt[i], wantCode[i])
		}
	}
	if d.Attempts[0].Error != "http_status" || d.Attempts[2].Error != "" {
		t.Errorf("attempt errors = %q, %q; want http_status then empty", d.Attempts[0].Error, d.Attempts[2].Error)
	}
}

func TestFailedAfterThreeThenManualRetry(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Timeout = 400 * time.Millisecond })
	rcv := newReceiver(t)
	rcv.hang = true // never answers: every attempt times out
	w, _ := e.create("acct-a", rcv.srv.URL, nil)
	e.publish(events.BatchAnchored, map[string]any{"batch_id": "b1"}, "acct-a")
	for _, adv := range []time.Duration{0, time.Minute, 5 * time.Minute} {
		e.clock.Advance(adv)
		if n := e.dispatch(); n != 1 {
			t.Fatalf("after +%v: started %d, want 1", adv, n)
		}
	}
	e.clock.Advance(time.Hour)
	if n := e.dispatch(); n != 0 {
		t.Fatalf("after exhaustion: started %d, want 0", n)
	}
	failed := e.deliveries("acct-a", w.ID, StatusFailed)
	if len(failed) != 1 {
		t.Fatalf("failed deliveries = %d, want 1", len(failed))
	}
	d := failed[0]
	for i, a := range d.Attempts {
		if a.Error != "timeout" || a.StatusCode != 0 {
			t.Errorf("attempt %d = %+v, want timeout without status", i+1, a)
		}
	}
	if got := len(e.deliveries("acct-a", w.ID, StatusPending)); got != 0 {
		t.Errorf("pending deliveries = %d, want 0", got)
	}

	if _, err := e.svc.Retry(context.Background(), "acct-b", d.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Retry by another account: %v, want ErrNotFound", err)
	}
	rcv.mu.Lock()
	rcv.hang, rcv.got = false, nil
	rcv.script = []int{204}
	rcv.mu.Unlock()
	rd, err := e.svc.Retry(context.Background(), "acct-a", d.ID)
	if err != nil {
		t.Fatalf("Retry: %v", err)
	}
	if rd.Status != StatusPending || rd.ID != d.ID {
		t.Errorf("Retry returned %s/%s, want pending/%s", rd.ID, rd.Status, d.ID)
	}
	if n := e.dispatch(); n != 1 {
		t.Fatalf("after retry: started %d, want 1", n)
	}
	reqs := rcv.requests()
	if len(reqs) != 1 || reqs[0].header.Get(HeaderDelivery) != d.ID {
		t.Fatalf("manual retry requests = %d (id %q), want 1 with id %s", len(reqs), reqs[0].header.Get(HeaderDelivery), d.ID)
	}
	got, err := e.svc.GetDelivery(context.Background(), "acct-a", d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusSucceeded || len(got.Attempts) != 4 || !got.Attempts[3].Manual || got.Attempts[3].StatusCode != 204 {
		t.Errorf("after manual retry: status %s attempts %+v, want succeeded with a 4th manual 204 attempt", got.Status, got.Attempts)
	}
	if _, err := e.svc.Retry(context.Background(), "acct-a", d.ID); !errors.Is(err, ErrNotRetryable) {
		t.Errorf("Retry of a succeeded delivery: %v, want ErrNotRetryable", err)
	}
}

func TestManualRetryFailingGoesBackToFailed(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Schedule = []time.Duration{} }) // one attempt per round
	_, w, _ := e.hooked(503)
	e.publish(events.ContentVerified, map[string]any{}, "acct-a")
	e.dispatch()
	d := e.deliveries("acct-a", w.ID, StatusFailed)
	if len(d) != 1 {
		t.Fatalf("failed = %d, want 1", len(d))
	}
	if _, err := e.svc.Retry(context.Background(), "acct-a", d[0].ID); err != nil {
		t.Fatal(err)
	}
	e.dispatch()
	e.clock.Advance(time.Hour)
	if n := e.dispatch(); n != 0 {
		t.Errorf("a failed manual retry scheduled %d more attempts, want 0", n)
	}
	got, _ := e.svc.GetDelivery(context.Background(), "acct-a", d[0].ID)
	if got.Status != StatusFailed || len(got.Attempts) != 2 {
		t.Errorf("status %s attempts %d, want failed with 2", got.Status, len(got.Attempts))
	}
}

func TestUnsubscribedAndInactiveNotSent(t *testing.T) {
	e := newEnv(t, nil)
	rcv := newReceiver(t, 200)
	anchoredOnly, _ := e.create("acct-a", rcv.srv.URL+"/anchored", []string{events.BatchAnchored})
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	e.publish(events.BatchAnchored, map[string]any{}, "acct-b") // another account's event
	e.dispatch()
	if got := len(rcv.requests()); got != 0 {
		t.Errorf("receiver got %d requests for unsubscribed/other-account events, want 0", got)
	}
	if got := len(e.deliveries("acct-a", anchoredOnly.ID, "")); got != 0 {
		t.Errorf("deliveries = %d, want 0", got)
	}
	// A pending delivery of a webhook deactivated before its attempt fails unsent.
	e.publish(events.BatchAnchored, map[string]any{}, "acct-a")
	off := false
	if _, err := e.svc.Update(context.Background(), "acct-a", anchoredOnly.ID, UpdateInput{Active: &off}); err != nil {
		t.Fatal(err)
	}
	e.publish(events.BatchAnchored, map[string]any{}, "acct-a") // not queued: inactive
	e.dispatch()
	if got := len(rcv.requests()); got != 0 {
		t.Errorf("inactive webhook got %d requests, want 0", got)
	}
	dels := e.deliveries("acct-a", anchoredOnly.ID, "")
	if len(dels) != 1 || dels[0].Status != StatusFailed || dels[0].LastError != "webhook_inactive" || len(dels[0].Attempts) != 0 {
		t.Errorf("deliveries = %+v, want one failed webhook_inactive without attempts", dels)
	}
	if _, err := e.svc.Retry(context.Background(), "acct-a", dels[0].ID); !errors.Is(err, ErrInactive) {
		t.Errorf("Retry on inactive webhook: %v, want ErrInactive", err)
	}
	on := true
	if _, err := e.svc.Update(context.Background(), "acct-a", anchoredOnly.ID, UpdateInput{Active: &on}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Retry(context.Background(), "acct-a", dels[0].ID); err != nil {
		t.Fatalf("Retry after reactivation: %v", err)
	}
	e.dispatch()
	got, _ := e.svc.GetDelivery(context.Background(), "acct-a", dels[0].ID)
	if got.Status != StatusSucceeded || len(got.Attempts) != 1 || !got.Attempts[0].Manual || got.Attempts[0].Number != 1 {
		t.Errorf("after reactivation and retry: %s %+v, want succeeded with one manual attempt numbered 1", got.Status, got.Attempts)
	}
	if n := len(rcv.requests()); n != 1 {
		t.Errorf("receiver got %d requests, want 1 (the retried delivery)", n)
	}
}

func TestOtherAccountsWebhooksInvisible(t *testing.T) {
	e := newEnv(t, nil)
	rcv, w, _ := e.hooked(200)
	ctx := context.Background()
	u := rcv.srv.URL + "/x"
	checks := map[string]error{}
	_, checks["Get"] = e.svc.Get(ctx, "acct-b", w.ID)
	_, checks["Update"] = e.svc.Update(ctx, "acct-b", w.ID, UpdateInput{URL: &u})
	_, _, checks["RotateSecret"] = e.svc.RotateSecret(ctx, "acct-b", w.ID)
	_, checks["ListDeliveries"] = e.svc.ListDeliveries(ctx, "acct-b", w.ID, "", "", 10)
	checks["Delete"] = e.svc.Delete(ctx, "acct-b", w.ID)
	for name, err := range checks {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s by another account: %v, want ErrNotFound", name, err)
		}
	}
	p, err := e.svc.List(ctx, "acct-b", "", 10)
	if err != nil || len(p.Items) != 0 {
		t.Errorf("List(acct-b) = %d items, %v; want 0", len(p.Items), err)
	}
	if got, err := e.svc.Get(ctx, "acct-a", w.ID); err != nil || got.URL != rcv.srv.URL {
		t.Errorf("owner's webhook after foreign attempts = %+v, %v; want unchanged", got, err)
	}
}

func TestRestartResumesPending(t *testing.T) {
	e := newEnv(t, nil)
	rcv, w, _ := e.hooked(500, 200)
	e.publish(events.ContentSigned, map[string]any{"n": 1}, "acct-a")
	e.publish(events.ContentSigned, map[string]any{"n": 2}, "acct-a")
	e.dispatch() // n=1 fails (500), n=2 succeeds... order not fixed; both attempted once
	e.close()
	e.open() // a new Service on the same data dir
	e.clock.Advance(30 * time.Second)
	if n := e.dispatch(); n != 0 {
		t.Errorf("after restart at +30s: started %d, want 0 (attempt 2 is due at +1 min)", n)
	}
	e.clock.Advance(30 * time.Second)
	if n := e.dispatch(); n != 1 {
		t.Errorf("after restart at +1 min: started %d, want 1", n)
	}
	if got := len(e.deliveries("acct-a", w.ID, StatusSucceeded)); got != 2 {
		t.Errorf("succeeded = %d, want 2", got)
	}
	reqs := rcv.requests()
	if len(reqs) != 3 || reqs[0].header.Get(HeaderDelivery) == reqs[1].header.Get(HeaderDelivery) {
		t.Fatalf("requests = %d, want 3 with two distinct ids", len(reqs))
	}
	if reqs[2].header.Get(HeaderDelivery) != reqs[0].header.Get(HeaderDelivery) {
		t.Errorf("retry after restart has id %q, want %q (the failed first one)", reqs[2].header.Get(HeaderDelivery), reqs[0].header.Get(HeaderDelivery))
	}
}

func TestSlowEndpointDoesNotDelayOthers(t *testing.T) {
	results := make(chan AttemptResult, 100)
	e := newEnv(t, func(c *Config) {
		c.Workers, c.PerEndpoint = 4, 2
		c.PollInterval = 5 * time.Millisecond
		c.OnAttempt = func(r AttemptResult) { results <- r }
		// The slow endpoint must hang until it is released: with the
		// usual 2 s, a loaded machine could let its attempts time out
		// (an unexpected result) before the fast ones were counted.
		c.Timeout = time.Minute
	})
	slow := newReceiver(t, 200)
	slow.hang = true
	fast := newReceiver(t, 200)
	_, _ = e.create("acct-slow", slow.srv.URL, nil)
	fastHook, _ := e.create("acct-fast", fast.srv.URL, nil)
	for i := 0; i < 6; i++ {
		e.publish(events.ContentSigned, map[string]any{"n": i}, "acct-slow")
	}
	for i := 0; i < 6; i++ {
		e.publish(events.ContentSigned, map[string]any{"n": i}, "acct-fast")
	}
	e.svc.Start()
	deadline := time.After(10 * time.Second)
	for done := 0; done < 6; {
		select {
		case r := <-results:
			if r.WebhookID != fastHook.ID || r.Status != StatusSucceeded {
				t.Fatalf("unexpected result %+v while the slow endpoint hangs", r)
			}
			done++
		case <-deadline:
			t.Fatalf("fast endpoint got only %d of 6 deliveries while the slow one hangs", done)
		}
	}
	// Wait until two slow requests hang at the receiver, so the count
	// below measures the cap and not a request still on its way.
	for arrived := 0; arrived < 2; arrived++ {
		select {
		case <-slow.notify:
		case <-deadline:
			t.Fatalf("only %d slow requests reached the receiver, want 2", arrived)
		}
	}
	if got := len(slow.requests()); got != 2 {
		t.Errorf("slow endpoint has %d concurrent requests, want the per-endpoint cap 2", got)
	}
	close(slow.release)
	slow.mu.Lock()
	slow.hang = false
	slow.mu.Unlock()
	for done := 0; done < 6; {
		select {
		case r := <-results:
			if r.Status == StatusSucceeded {
				done++
			}
		case <-deadline:
			t.Fatalf("slow endpoint: only %d of 6 delivered after release", done)
		}
	}
}

func TestRotateSecretSignsWithBothDuringGrace(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.RotationGrace = time.Hour })
	rcv, w, oldSecret := e.hooked(200)
	_, newSecret, err := e.svc.RotateSecret(context.Background(), "acct-a", w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if newSecret == oldSecret || !strings.HasPrefix(newSecret, SecretPrefix) {
		t.Fatalf("rotated secret %q is not a fresh whsec_ secret", newSecret)
	}
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	e.dispatch()
	e.clock.Advance(time.Hour)
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	e.dispatch()
	reqs := rcv.requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	in, after := reqs[0], reqs[1]
	if !VerifySignature(newSecret, in.body, in.header.Get(HeaderSignature)) {
		t.Errorf("during grace: X-Service-Signature not by the new secret")
	}
	if !VerifySignature(oldSecret, in.body, in.header.Get(HeaderSignaturePrevious)) {
		t.Errorf("during grace: X-Service-Signature-Previous not by the old secret")
	}
	if n := len(strings.Fields(in.header.Get(HeaderStdSignature))); n != 2 {
		t.Errorf("during grace: webhook-signature has %d entries, want 2", n)
	}
	if !VerifySignature(newSecret, after.body, after.header.Get(HeaderSignature)) || after.header.Get(HeaderSignaturePrevious) != "" {
		t.Errorf("after grace: want only the new secret's signature")
	}
}

func TestDeleteRemovesWebhookAndQueue(t *testing.T) {
	e := newEnv(t, nil)
	rcv, w, _ := e.hooked(200)
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	if err := e.svc.Delete(context.Background(), "acct-a", w.ID); err != nil {
		t.Fatal(err)
	}
	if n := e.dispatch(); n != 0 {
		t.Errorf("after delete: started %d attempts, want 0", n)
	}
	if _, err := e.svc.Get(context.Background(), "acct-a", w.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after delete: %v, want ErrNotFound", err)
	}
	if err := e.svc.Delete(context.Background(), "acct-a", w.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
	if got := len(rcv.requests()); got != 0 {
		t.Errorf("receiver got %d requests, want 0", got)
	}
}

func TestSecretsNeverLogged(t *testing.T) {
	e := newEnv(t, nil)
	_, w, secret := e.hooked(500)
	_, secret2, _ := e.svc.RotateSecret(context.Background(), "acct-a", w.ID)
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	for _, adv := range []time.Duration{0, time.Minute, 5 * time.Minute} {
		e.clock.Advance(adv)
		e.dispatch()
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "webhook delivery failed") {
		t.Fatalf("expected a failure log line, got %q", logs)
	}
	for _, s := range []string{secret, secret2, strings.TrimPrefix(secret, SecretPrefix)} {
		if strings.Contains(logs, s) {
			t.Errorf("logs contain a secret")
		}
	}
}

func TestEventsValidation(t *testing.T) {
	e := newEnv(t, nil)
	rcv := newReceiver(t, 200)
	tests := []struct {
		name    string
		events  []string
		want    []string
		wantErr bool
	}{
		{"omitted means all", nil, EventTypes(), false},
		{"subset keeps canonical order", []string{events.ContentVerified, events.ContentSigned}, []string{events.ContentSigned, events.ContentVerified}, false},
		{"duplicates collapse", []string{events.BatchAnchored, events.BatchAnchored}, []string{events.BatchAnchored}, false},
		{"empty refused", []string{}, nil, true},
		{"unknown refused", []string{"content.deleted"}, nil, true},
	}
	for _, tc := range tests {
		w, _, err := e.svc.Create(context.Background(), "acct-"+tc.name, CreateInput{URL: rcv.srv.URL, Events: tc.events})
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: Create err = %v, wantErr %v", tc.name, err, tc.wantErr)
			continue
		}
		if err == nil && strings.Join(w.Events, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: events = %v, want %v", tc.name, w.Events, tc.want)
		}
	}
}

func TestWebhookLimitPerAccount(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxPerAccount = 2 })
	rcv := newReceiver(t, 200)
	e.create("acct-a", rcv.srv.URL, nil)
	e.create("acct-a", rcv.srv.URL, nil)
	if _, _, err := e.svc.Create(context.Background(), "acct-a", CreateInput{URL: rcv.srv.URL}); !errors.Is(err, ErrLimit) {
		t.Errorf("third Create: %v, want ErrLimit", err)
	}
}

// TestFailButPersistedIsDeduplicated: the receiver processes the event but
// answers 500 (as if it crashed before acknowledging); the retry carries the
// same delivery id, so a deduplicating receiver processes it exactly once.
func TestFailButPersistedIsDeduplicated(t *testing.T) {
	e := newEnv(t, nil)
	var mu sync.Mutex
	processed := map[string]int{}
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		id := r.Header.Get(HeaderDelivery)
		if processed[id] == 0 {
			processed[id]++ // persisted...
		}
		if calls == 1 {
			w.WriteHeader(http.StatusInternalServerError) // ...but not acknowledged
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	w, _ := e.create("acct-a", srv.URL, nil)
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	e.dispatch()
	e.clock.Advance(time.Minute)
	e.dispatch()
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 || len(processed) != 1 {
		t.Errorf("calls = %d, distinct delivery ids = %d; want 2 calls with one id", calls, len(processed))
	}
	if d := e.deliveries("acct-a", w.ID, StatusSucceeded); len(d) != 1 || processed[d[0].ID] != 1 {
		t.Errorf("delivery not succeeded once under its id: %+v", processed)
	}
}

// TestConcurrentOutcomesAllRecorded drives many concurrent attempts through
// the group-committing recorder and checks every outcome is recorded once.
func TestConcurrentOutcomesAllRecorded(t *testing.T) {
	const hooks, perHook = 10, 8
	results := make(chan AttemptResult, hooks*perHook)
	e := newEnv(t, func(c *Config) {
		c.PollInterval = 5 * time.Millisecond
		c.OnAttempt = func(r AttemptResult) { results <- r }
	})
	rcv := newReceiver(t, 204)
	var ids []string
	for i := 0; i < hooks; i++ {
		w, _ := e.create("acct-"+strconv.Itoa(i), rcv.srv.URL, nil)
		ids = append(ids, w.ID)
		for j := 0; j < perHook; j++ {
			e.publish(events.ContentSigned, map[string]any{"n": j}, "acct-"+strconv.Itoa(i))
		}
	}
	e.svc.Start()
	seen := map[string]bool{}
	timeout := time.After(20 * time.Second)
	for len(seen) < hooks*perHook {
		select {
		case r := <-results:
			if seen[r.DeliveryID] || r.Status != StatusSucceeded {
				t.Fatalf("result %+v: duplicate or not succeeded", r)
			}
			seen[r.DeliveryID] = true
		case <-timeout:
			t.Fatalf("only %d of %d outcomes recorded", len(seen), hooks*perHook)
		}
	}
	for i, id := range ids {
		for _, d := range e.deliveries("acct-"+strconv.Itoa(i), id, "") {
			if d.Status != StatusSucceeded || len(d.Attempts) != 1 {
				t.Errorf("delivery %s: %s with %d attempts, want succeeded with 1", d.ID, d.Status, len(d.Attempts))
			}
		}
	}
	if got := len(rcv.requests()); got != hooks*perHook {
		t.Errorf("receiver got %d requests, want %d", got, hooks*perHook)
	}
}

// TestDeliveryOwnerChecksEachRefuse pins both halves of getOwnDelivery: a
// delivery is the caller's only if the delivery says so and its webhook is
// the caller's. A stored delivery naming acct-b under acct-a's webhook (a
// state no code path writes) is refused to acct-a by the delivery's own
// account and to acct-b by the webhook's, so removing either check fails
// one of the two halves below.
func TestDeliveryOwnerChecksEachRefuse(t *testing.T) {
	e := newEnv(t, nil)
	_, w, _ := e.hooked(500)
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	e.dispatch()
	dels := e.deliveries("acct-a", w.ID, "")
	if len(dels) != 1 {
		t.Fatalf("deliveries = %d, want 1", len(dels))
	}
	ctx := context.Background()
	if _, err := e.svc.GetDelivery(ctx, "acct-a", dels[0].ID); err != nil {
		t.Fatalf("owner's GetDelivery before the rewrite: %v", err)
	}
	err := e.st.Update(ctx, func(tx store.Txn) error {
		d, err := getDelivery(tx, dels[0].ID)
		if err != nil {
			return err
		}
		d.AccountID = "acct-b"
		return putDelivery(tx, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, owner := range []string{"acct-a", "acct-b"} {
		if _, err := e.svc.GetDelivery(ctx, owner, dels[0].ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetDelivery(%s) of a delivery naming acct-b under acct-a's webhook: %v, want ErrNotFound", owner, err)
		}
		if _, err := e.svc.Retry(ctx, owner, dels[0].ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("Retry(%s) of a delivery naming acct-b under acct-a's webhook: %v, want ErrNotFound", owner, err)
		}
	}
}
