package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/provenant/provenant/internal/ratelimit"
)

// scrape reads the admin listener's /metrics over HTTP and returns every
// sample as "name{label=value,...}" → value (histograms as _count and _sum).
func scrape(t *testing.T, ts *testServer) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + ts.srv.AdminAddr().String() + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape: status %d: %s", resp.StatusCode, b)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape: parse: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			key := name + "{"
			for i, l := range m.GetLabel() {
				if i > 0 {
					key += ","
				}
				key += l.GetName() + "=" + l.GetValue()
			}
			key += "}"
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Untyped != nil:
				out[key] = m.GetUntyped().GetValue()
			case m.Histogram != nil:
				out[name+"_count"+key[len(name):]] = float64(m.GetHistogram().GetSampleCount())
				out[name+"_sum"+key[len(name):]] = m.GetHistogram().GetSampleSum()
			}
		}
	}
	return out
}

// TestMetricsOnAdminListener signs, anchors, verifies (up to the rate
// limit) and delivers a webhook over real HTTP, then scrapes the admin
// listener and checks that each counter moved by what was done.
func TestMetricsOnAdminListener(t *testing.T) {
	rcv := newHookReceiver(t)
	ts := startServer(t, "", nil, batchesOf(2), func(c *Config, _ *deps) {
		c.AdminAddr = "127.0.0.1:0"
		c.Webhooks = loopbackWebhooks()
		c.Limits.Verify = ratelimit.Policy{Name: "verify", Quota: 3, Window: time.Minute}
	})
	before := scrape(t, ts)
	for _, name := range []string{"go_goroutines{}", "provenant_badger_lsm_bytes{}", "provenant_badger_vlog_bytes{}",
		"provenant_anchor_queue_records{}", "provenant_anchor_queue_oldest_age_seconds{}", "provenant_webhook_queue_deliveries{}",
		"provenant_connections_open{}", "provenant_connections_max{}", "provenant_connections_refused_total{reason=per_ip}",
		"provenant_connections_reclaimed_total{}", "provenant_accept_errors_total{}"} {
		if _, ok := before[name]; !ok {
			t.Errorf("metric %s missing from the first scrape", name)
		}
	}

	s := ts.newSigner("metrics@example.com")
	ts.subscribe(s, rcv.srv.URL, "batch.anchored")
	marked, _ := ts.signPhotos(s, 2, 300)
	// Re-encoded copies: verified by their watermark (a byte-identical file
	// is answered from its SHA-256 without extracting it).
	for i := range 3 {
		copyOf := reencode(t, marked[i%2], 0.9, 85)
		ts.mustStatus(ts.upload("/api/v1/verify", "", []namedFile{{"file", "x.jpg", copyOf}}, nil), 200, "verify")
	}
	ts.mustStatus(ts.upload("/api/v1/verify", "", []namedFile{{"file", "x.jpg", marked[0]}}, nil), 429, "verify over quota")

	// The batch of two anchors and batch.anchored is delivered: wait for
	// the attempt to be counted.
	var after map[string]float64
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		after = scrape(t, ts)
		if after["provenant_webhook_attempts_total{outcome=success}"] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no successful webhook attempt counted within 60s (receiver saw %d)", rcv.count())
		}
	}
	moved := func(key string) float64 { return after[key] - before[key] }
	tests := []struct {
		key  string
		want float64
		min  bool // at least want, rather than exactly
	}{
		{key: "provenant_http_requests_total{method=POST,route=/api/v1/sign,status=201}", want: 2},
		{key: "provenant_http_request_duration_seconds_count{method=POST,route=/api/v1/sign,status=201}", want: 2},
		{key: "provenant_http_requests_total{method=POST,route=/api/v1/verify,status=429}", want: 1},
		{key: "provenant_sign_total{outcome=signed}", want: 2},
		{key: "provenant_verify_total{match=unreported,outcome=rate_limited}", want: 1},
		{key: "provenant_ratelimit_rejections_total{policy=verify}", want: 1},
		{key: "provenant_watermark_detections_total{}", want: 3},
		{key: "provenant_anchor_batch_records_count{}", want: 1},
		{key: "provenant_anchor_batch_records_sum{}", want: 2},
		{key: "provenant_webhook_attempts_total{outcome=success}", want: 1},
	}
	for _, tt := range tests {
		if got := moved(tt.key); got != tt.want && !(tt.min && got >= tt.want) {
			t.Errorf("%s moved by %v, want %v", tt.key, got, tt.want)
		}
	}
	// Authentic verifications are counted whatever match kind the verdict
	// reports (none before the match member exists).
	authentic := 0.0
	for k, v := range after {
		if strings.HasPrefix(k, "provenant_verify_total{") && strings.Contains(k, "outcome=authentic") {
			authentic += v - before[k]
		}
	}
	if authentic != 3 {
		t.Errorf("authentic verifications moved by %v, want 3", authentic)
	}
	if after["provenant_anchor_queue_records{}"] != 0 {
		t.Errorf("anchor queue = %v after the batch closed, want 0", after["provenant_anchor_queue_records{}"])
	}
}

// TestPprofOnlyOnAdmin checks that profiles and metrics are served by the
// admin listener and by nothing on the public one.
func TestPprofOnlyOnAdmin(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.AdminAddr = "127.0.0.1:0" })
	admin := "http://" + ts.srv.AdminAddr().String()
	tests := []struct {
		name, url string
		want      int
	}{
		{"admin pprof index", admin + "/debug/pprof/", 200},
		{"admin heap profile", admin + "/debug/pprof/heap?debug=1", 200},
		{"admin metrics", admin + "/metrics", 200},
		{"public pprof index", ts.base + "/debug/pprof/", 404},
		{"public heap profile", ts.base + "/debug/pprof/heap", 404},
		{"public metrics", ts.base + "/metrics", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET %s = %d, want %d", tt.url, resp.StatusCode, tt.want)
			}
		})
	}
}

// TestAdminDisabledByDefault: with no AdminAddr nothing listens.
func TestAdminDisabledByDefault(t *testing.T) {
	ts := startServer(t, "", nil)
	if a := ts.srv.AdminAddr(); a != nil {
		t.Errorf("AdminAddr = %v with no AdminAddr configured, want nil", a)
	}
}
