package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/webhooks"
)

// TestWebhookTestEvent: POST /api/v1/webhooks/{id}/test queues a signed
// webhook.test delivery to that webhook only, whatever it subscribes to;
// another account's webhook is not found, an inactive one is refused; a
// key with the webhooks scope may send it, a Bearer JWT may not (the web
// app's cookie session may: see TestWebAppSession).
func TestWebhookTestEvent(t *testing.T) {
	ws := startWebhookServer(t, "")
	rcv := newHookReceiver(t, 200)
	acct := ws.register("hooks@web.example", "correct horse battery")
	key, _ := ws.createAPIKey(acct.token, map[string]any{"name": "hooks"})
	other := ws.apiKeyFor("other@web.example")

	r := ws.do("POST", "/api/v1/webhooks", key, map[string]any{"url": rcv.srv.URL + "/hook", "events": []string{"batch.anchored"}})
	ws.mustStatus(r, 201, "create webhook")
	created := r.json(t)
	id, secret := created["id"].(string), created["secret"].(string)

	if r := ws.do("POST", "/api/v1/webhooks/"+id+"/test", acct.token, nil); r.status != 401 || r.problemCode(t) != "credential_kind_not_allowed" {
		t.Errorf("test event with a Bearer JWT = %d %s, want 401 credential_kind_not_allowed (API key only)", r.status, r.body)
	}
	r = ws.do("POST", "/api/v1/webhooks/"+id+"/test", key, nil)
	ws.mustStatus(r, 202, "test event with the API key")
	d := r.json(t)
	if d["event"] != webhooks.TestEvent || d["status"] != "pending" || d["webhook_id"] != id {
		t.Errorf("test delivery = %s, want a pending webhook.test for %s", r.body, id)
	}
	if res := ws.waitAttempt("test event"); res.Status != webhooks.StatusSucceeded {
		t.Fatalf("test delivery attempt = %+v, want succeeded", res)
	}
	hdr, body := rcv.request(0)
	var env struct {
		Event string            `json:"event"`
		Data  map[string]string `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Event != webhooks.TestEvent || env.Data["webhook_id"] != id {
		t.Errorf("received body %s (%v), want a webhook.test envelope naming %s", body, err, id)
	}
	if got := hdr.Get(webhooks.HeaderSignature); got != webhooks.Sign(secret, body) {
		t.Errorf("signature %q, want the webhook secret's %q", got, webhooks.Sign(secret, body))
	}
	r = ws.do("GET", "/api/v1/webhooks/"+id+"/deliveries", key, nil)
	ws.mustStatus(r, 200, "deliveries")
	if !strings.Contains(string(r.body), `"event":"webhook.test"`) || !strings.Contains(string(r.body), `"status":"succeeded"`) {
		t.Errorf("deliveries do not list the succeeded test: %s", r.body)
	}

	if r := ws.do("POST", "/api/v1/webhooks/"+id+"/test", other, nil); r.status != 404 || r.problemCode(t) != "not_found" {
		t.Errorf("another account's test = %d %s, want 404 not_found", r.status, r.body)
	}
	r = ws.do("PUT", "/api/v1/webhooks/"+id, key, map[string]any{"active": false})
	ws.mustStatus(r, 200, "deactivate")
	if r := ws.do("POST", "/api/v1/webhooks/"+id+"/test", key, nil); r.status != 409 || r.problemCode(t) != "webhook_inactive" {
		t.Errorf("test of an inactive webhook = %d %s, want 409 webhook_inactive", r.status, r.body)
	}
	if rcv.count() != 1 {
		t.Errorf("receiver got %d requests, want 1", rcv.count())
	}
}

// TestDashboardDaily: the stats carry 30 days, oldest first, today last;
// a signature and a verification count on today.
func TestDashboardDaily(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSignerOrg("daily@web.example", "Daily News")
	r := ts.signFile(s, readTestdata(t, "meadow.jpg"), nil)
	ts.mustStatus(r, 201, "sign")
	r = ts.upload("/api/v1/verify", "", []namedFile{{"file", "signed.jpg", r.body}}, nil)
	ts.mustStatus(r, 200, "verify")

	r = ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	ts.mustStatus(r, 200, "stats")
	var st struct {
		Daily []struct {
			Date     string `json:"date"`
			Signed   int    `json:"signed"`
			Verified int    `json:"verified"`
		} `json:"daily"`
	}
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Daily) != 30 {
		t.Fatalf("daily has %d days, want 30: %s", len(st.Daily), r.body)
	}
	today := ts.clock.Now().UTC().Format("2006-01-02")
	first := ts.clock.Now().UTC().AddDate(0, 0, -29).Format("2006-01-02")
	last := st.Daily[29]
	if st.Daily[0].Date != first || last.Date != today || last.Signed != 1 || last.Verified != 1 {
		t.Errorf("daily from %s to %+v, want from %s to %s with 1 signed and 1 verified", st.Daily[0].Date, last, first, today)
	}
	for _, d := range st.Daily[:29] {
		if d.Signed != 0 || d.Verified != 0 {
			t.Errorf("day %+v counts activity of today", d)
		}
	}
	// The next day, today's figures move one place back.
	ts.clock.Advance(24 * time.Hour)
	r = ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": s.email, "password": s.password})
	ts.mustStatus(r, 200, "log in again")
	token, _ := r.json(t)["access_token"].(string)
	r = ts.do("GET", "/api/v1/dashboard/stats", token, nil)
	ts.mustStatus(r, 200, "stats a day later")
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatal(err)
	}
	if st.Daily[28].Signed != 1 || st.Daily[29].Signed != 0 {
		t.Errorf("a day later: yesterday %+v, today %+v; want 1 then 0", st.Daily[28], st.Daily[29])
	}
}
