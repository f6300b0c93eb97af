package server

import (
	"strings"
	"testing"
)

// TestVerifyOnlyOrigin: an origin restarted on the same data without the
// geometric index (--geometric-index=false) is ready, verifies a
// re-encoded copy of a picture signed before and refuses a sign with 503
// verify_only_origin.
func TestVerifyOnlyOrigin(t *testing.T) {
	ts := startServer(t, "", nil)
	news := ts.newSignerOrg("desk@news.example", "News Desk")
	signed, id := ts.signTestdata(news, "meadow.jpg", "sign before the restart")
	dataDir, clk := ts.dataDir, ts.clock
	ts.stop()

	ts = startServer(t, dataDir, clk, func(c *Config, _ *deps) { c.NearIndex.WithoutGeometric = true })
	r := ts.do("GET", "/ready", "", nil)
	ts.mustStatus(r, 200, "ready")
	if !strings.Contains(string(r.body), `"near_index":"ok"`) {
		t.Errorf("/ready = %s, want near_index ok", r.body)
	}
	if v := ts.verify(reencode(t, signed, 0.9, 80)); v.RecordID != id {
		t.Errorf("verify of a re-encoded copy on the verify-only origin: record %q, want %s", v.RecordID, id)
	}
	r = ts.signFile(news, readTestdata(t, "water.jpg"), nil)
	ts.mustStatus(r, 503, "sign on a verify-only origin")
	if p := r.signProblem(t); p.Code != "verify_only_origin" {
		t.Errorf("sign on a verify-only origin: problem %+v, want verify_only_origin", p)
	}
}
