package metrics

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/webhooks"
)

// TestVerifyOutcomes feeds verify answers through ObserveRequest, as the
// access-log middleware does, and checks the outcome, the match label
// (read from the response's "match" member when present) and the
// watermark counter.
func TestVerifyOutcomes(t *testing.T) {
	tests := []struct {
		name          string
		status        int
		limited       string
		body          string
		outcome       string
		match         string
		wantWatermark float64
	}{
		{"authentic without match member", 200, "", `{"authentic":true,"checks":{"watermark":{"passed":true}}}`, "authentic", "unreported", 1},
		{"authentic crop", 200, "", `{"authentic":true,"match":"crop","checks":{"watermark":{"passed":true}}}`, "authentic", "crop", 1},
		{"not authentic none", 200, "", `{"authentic":false,"match":"none","checks":{"watermark":{"passed":false}}}`, "not_authentic", "none", 0},
		{"odd match value is not a label", 200, "", `{"authentic":false,"match":"Weird Value!"}`, "not_authentic", "unreported", 0},
		{"refused", 400, "", `{"code":"bad_request"}`, "refused", "unreported", 0},
		{"rate limited", 429, "verify", `{}`, "rate_limited", "unreported", 0},
		{"server error", 500, "", `{}`, "error", "unreported", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(prometheus.NewRegistry(), Sources{})
			if err != nil {
				t.Fatal(err)
			}
			m.ObserveRequest(httpapi.RequestObservation{Method: "POST", Route: routeVerify, Status: tt.status, RateLimited: tt.limited, Body: []byte(tt.body)})
			if got := testutil.ToFloat64(m.verifies.WithLabelValues(tt.outcome, tt.match)); got != 1 {
				t.Errorf("verify_total{outcome=%s,match=%s} = %v, want 1", tt.outcome, tt.match, got)
			}
			if got := testutil.CollectAndCount(m.verifies); got != 1 {
				t.Errorf("%d verify series, want exactly 1", got)
			}
			if got := testutil.ToFloat64(m.watermarks); got != tt.wantWatermark {
				t.Errorf("watermark detections = %v, want %v", got, tt.wantWatermark)
			}
		})
	}
}

func TestSignBatchCountsItems(t *testing.T) {
	m, err := New(prometheus.NewRegistry(), Sources{})
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveRequest(httpapi.RequestObservation{Method: "POST", Route: routeSignBatch, Status: 200,
		Body: []byte(`{"items":[{"status":201},{"status":201},{"status":422}],"succeeded":2,"failed":1}`)})
	for outcome, want := range map[string]float64{"signed": 2, "refused": 1} {
		if got := testutil.ToFloat64(m.signs.WithLabelValues(outcome)); got != want {
			t.Errorf("sign_total{outcome=%s} = %v, want %v", outcome, got, want)
		}
	}
}

func TestNoGlobalRegistry(t *testing.T) {
	// Two instances in one process must not collide.
	for range 2 {
		if _, err := New(prometheus.NewRegistry(), Sources{}); err != nil {
			t.Fatalf("second New in one process: %v", err)
		}
	}
}

// TestEveryMetricDocumented: every provenant_* family the registry
// exposes is listed in docs/operations.md.
func TestEveryMetricDocumented(t *testing.T) {
	docs, err := os.ReadFile("../../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := New(reg, Sources{
		AnchorQueue: func(context.Context) (anchor.QueueStats, error) {
			return anchor.QueueStats{Depth: 1, Oldest: time.Unix(0, 0)}, nil
		},
		WebhookQueue: func(context.Context) (int, error) { return 0, nil },
		StoreSizes:   func() (int64, int64) { return 1, 2 },
	})
	if err != nil {
		t.Fatal(err)
	}
	// Vectors appear once they have a child.
	m.ObserveRequest(httpapi.RequestObservation{Method: "POST", Route: routeVerify, Status: 429, RateLimited: "verify"})
	m.ObserveRequest(httpapi.RequestObservation{Method: "POST", Route: routeSign, Status: 201})
	m.BatchClosed(3)
	m.WebhookAttempt(webhooks.AttemptResult{})
	m.chainErrors.WithLabelValues("head", "error").Inc()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fams {
		name := f.GetName()
		if !strings.HasPrefix(name, "provenant_") {
			continue
		}
		n++
		if !strings.Contains(string(docs), "`"+name+"`") {
			t.Errorf("metric %s is not in docs/operations.md", name)
		}
	}
	if n < 15 {
		t.Errorf("gathered %d provenant_* families, want all 15", n)
	}
}
