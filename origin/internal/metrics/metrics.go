// Package metrics holds the origin's Prometheus metrics and the admin HTTP
// handler that exposes them with pprof. Everything registers in a registry
// the caller passes in (never the client library's global default), so
// several origins in one process (the tests) do not collide.
//
// The package only observes: the HTTP layer, the batcher and the webhook
// dispatcher report through hooks they already expose (httpapi.Observer,
// anchor.Config.OnBatchClosed, webhooks.Config.OnAttempt), the chain is
// wrapped (Chain), and queue depths and database sizes are read at scrape
// time (Sources).
package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/webhooks"
)

const namespace = "provenant"

// Route templates whose responses carry sign and verify outcomes.
const (
	routeSign      = "/api/v1/sign"
	routeSignBatch = "/api/v1/sign-batch"
	routeVerify    = "/api/v1/verify"
)

// Sources are read at every scrape; nil fields are left out.
type Sources struct {
	// AnchorQueue reports the anchoring queue.
	AnchorQueue func(context.Context) (anchor.QueueStats, error)
	// WebhookQueue reports the number of pending webhook deliveries.
	WebhookQueue func(context.Context) (int, error)
	// StoreSizes reports the LSM tree and value-log sizes in bytes.
	StoreSizes func() (lsm, vlog int64)
	// Now is the clock the age of the oldest queued record is measured
	// against; nil means time.Now.
	Now func() time.Time
}

// Metrics are the origin's collectors. Create with New; the methods are
// safe for concurrent use.
type Metrics struct {
	reg          *prometheus.Registry
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	signs        *prometheus.CounterVec
	verifies     *prometheus.CounterVec
	watermarks   prometheus.Counter
	rateLimited  *prometheus.CounterVec
	batchSize    prometheus.Histogram
	chainErrors  *prometheus.CounterVec
	webhookTries *prometheus.CounterVec
}

// New registers the origin's metrics, the Go runtime collector and the
// process collector in reg, and the scrape-time gauges of src.
func New(reg *prometheus.Registry, src Sources) (*Metrics, error) {
	m := &Metrics{
		reg: reg,
		httpRequests: counterVec("http_requests_total",
			"Answered HTTP requests by method, route template (\"-\" when none matched) and status.",
			"method", "route", "status"),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "http_request_duration_seconds",
			Help: "Time from reading the request head to the end of the handler, by method, route template and status.",
			// Sign and verify of large images take seconds; metadata routes
			// a millisecond.
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"method", "route", "status"}),
		signs: counterVec("sign_total",
			"Sign attempts (sign, and each sign-batch item) by outcome: signed, refused (4xx), rate_limited, error (5xx).",
			"outcome"),
		verifies: counterVec("verify_total",
			"Verifications by outcome (authentic, not_authentic, refused, rate_limited, error) and the verdict's match kind (\"unreported\" when the response has none).",
			"outcome", "match"),
		watermarks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "watermark_detections_total",
			Help: "Verifications whose watermark check passed.",
		}),
		rateLimited: counterVec("ratelimit_rejections_total",
			"Requests refused with 429 by rate-limit policy.",
			"policy"),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "anchor_batch_records",
			Help:    "Records per closed anchoring batch.",
			Buckets: []float64{1, 10, 50, 100, 250, 500, 1000, 2000, 4096},
		}),
		chainErrors: counterVec("chain_rpc_errors_total",
			"Failed chain calls by method and kind (nonce_too_low, underpriced, error); \"not included yet\" answers are not errors.",
			"method", "kind"),
		webhookTries: counterVec("webhook_attempts_total",
			"Recorded webhook delivery attempts by outcome: success, or the attempt's error code (http_status, timeout, connection_failed, destination_refused, request_failed, secret_unavailable).",
			"outcome"),
	}
	cs := []prometheus.Collector{
		m.httpRequests, m.httpDuration, m.signs, m.verifies, m.watermarks, m.rateLimited, m.batchSize,
		m.chainErrors, m.webhookTries,
		collectors.NewGoCollector(collectors.WithGoCollections(collectors.GoRuntimeMemStatsCollection | collectors.GoRuntimeMetricsCollection)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newScrapeCollector(src),
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// counterVec is a counter of the origin's namespace, by labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
}

// Handler serves /metrics and /debug/pprof/ (for the admin listener only:
// profiles expose memory contents and cost CPU).
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// ObserveRequest implements httpapi.Observer.
func (m *Metrics) ObserveRequest(o httpapi.RequestObservation) {
	status := strconv.Itoa(o.Status)
	m.httpRequests.WithLabelValues(o.Method, o.Route, status).Inc()
	m.httpDuration.WithLabelValues(o.Method, o.Route, status).Observe(o.Duration.Seconds())
	if o.RateLimited != "" {
		m.rateLimited.WithLabelValues(o.RateLimited).Inc()
	}
	if o.Method != http.MethodPost {
		return
	}
	switch o.Route {
	case routeSign:
		m.signs.WithLabelValues(signOutcome(o.Status, o.RateLimited != "")).Inc()
	case routeSignBatch:
		m.observeSignBatch(o)
	case routeVerify:
		m.observeVerify(o)
	}
}

func signOutcome(status int, limited bool) string {
	switch {
	case limited:
		return "rate_limited"
	case status >= 200 && status < 300:
		return "signed"
	case status >= 500:
		return "error"
	default:
		return "refused"
	}
}

// observeSignBatch counts each item of a sign-batch answer by its own
// status; a refused request counts once.
func (m *Metrics) observeSignBatch(o httpapi.RequestObservation) {
	var body struct {
		Items []struct {
			Status int `json:"status"`
		} `json:"items"`
	}
	if o.Status != http.StatusOK || json.Unmarshal(o.Body, &body) != nil || len(body.Items) == 0 {
		m.signs.WithLabelValues(signOutcome(o.Status, o.RateLimited != "")).Inc()
		return
	}
	for _, it := range body.Items {
		m.signs.WithLabelValues(signOutcome(it.Status, false)).Inc()
	}
}

// verdict is the part of a verify response the metrics read. Fields are
// read by name, so members added to the response later (match) are counted
// as soon as they appear.
type verdict struct {
	Authentic bool    `json:"authentic"`
	Match     *string `json:"match"`
	Checks    struct {
		Watermark struct {
			Passed bool `json:"passed"`
		} `json:"watermark"`
	} `json:"checks"`
}

func (m *Metrics) observeVerify(o httpapi.RequestObservation) {
	var v verdict
	switch {
	case o.RateLimited != "":
		m.verifies.WithLabelValues("rate_limited", "unreported").Inc()
		return
	case o.Status >= 500:
		m.verifies.WithLabelValues("error", "unreported").Inc()
		return
	case o.Status != http.StatusOK || json.Unmarshal(o.Body, &v) != nil:
		m.verifies.WithLabelValues("refused", "unreported").Inc()
		return
	}
	outcome, match := "not_authentic", "unreported"
	if v.Authentic {
		outcome = "authentic"
	}
	if v.Match != nil && validLabel(*v.Match) {
		match = *v.Match
	}
	m.verifies.WithLabelValues(outcome, match).Inc()
	if v.Checks.Watermark.Passed {
		m.watermarks.Inc()
	}
}

// validLabel keeps a response-supplied label value short and plain, so a
// bug upstream cannot blow up the number of series.
func validLabel(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// BatchClosed is the anchor.Config.OnBatchClosed hook.
func (m *Metrics) BatchClosed(records int) { m.batchSize.Observe(float64(records)) }

// WebhookAttempt is the webhooks.Config.OnAttempt hook.
func (m *Metrics) WebhookAttempt(r webhooks.AttemptResult) {
	outcome := r.Attempt.Error
	if outcome == "" {
		outcome = "success"
	}
	m.webhookTries.WithLabelValues(outcome).Inc()
}

// scrapeCollector reads queue depths and database sizes when scraped.
type scrapeCollector struct {
	src                                                           Sources
	anchorDepth, anchorAge, webhookDepth, lsm, vlog, sourceErrors *prometheus.Desc
}

func newScrapeCollector(src Sources) *scrapeCollector {
	return &scrapeCollector{
		src: src,
		anchorDepth: prometheus.NewDesc(namespace+"_anchor_queue_records",
			"Signed records waiting for an anchoring batch to close.", nil, nil),
		anchorAge: prometheus.NewDesc(namespace+"_anchor_queue_oldest_age_seconds",
			"Age of the oldest record waiting for a batch (0 when none waits).", nil, nil),
		webhookDepth: prometheus.NewDesc(namespace+"_webhook_queue_deliveries",
			"Webhook deliveries pending (first attempt or a retry due).", nil, nil),
		lsm: prometheus.NewDesc(namespace+"_badger_lsm_bytes",
			"Size of Badger's LSM tree (keys and small values), as Badger last measured it.", nil, nil),
		vlog: prometheus.NewDesc(namespace+"_badger_vlog_bytes",
			"Size of Badger's value log (values over 1 KiB), as Badger last measured it.", nil, nil),
		sourceErrors: prometheus.NewDesc(namespace+"_metrics_source_errors",
			"1 when a scrape-time source failed in this scrape, by source.", []string{"source"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *scrapeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.anchorDepth, c.anchorAge, c.webhookDepth, c.lsm, c.vlog, c.sourceErrors} {
		ch <- d
	}
}

// scrapeTimeout bounds the store reads of one scrape.
const scrapeTimeout = 5 * time.Second

// Collect implements prometheus.Collector.
func (c *scrapeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	failed := func(source string, err error) {
		v := 0.0
		if err != nil {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(c.sourceErrors, prometheus.GaugeValue, v, source)
	}
	if f := c.src.AnchorQueue; f != nil {
		qs, err := f(ctx)
		failed("anchor_queue", err)
		if err == nil {
			age := 0.0
			if qs.Depth > 0 {
				now := time.Now
				if c.src.Now != nil {
					now = c.src.Now
				}
				age = max(0, now().Sub(qs.Oldest).Seconds())
			}
			ch <- prometheus.MustNewConstMetric(c.anchorDepth, prometheus.GaugeValue, float64(qs.Depth))
			ch <- prometheus.MustNewConstMetric(c.anchorAge, prometheus.GaugeValue, age)
		}
	}
	if f := c.src.WebhookQueue; f != nil {
		n, err := f(ctx)
		failed("webhook_queue", err)
		if err == nil {
			ch <- prometheus.MustNewConstMetric(c.webhookDepth, prometheus.GaugeValue, float64(n))
		}
	}
	if f := c.src.StoreSizes; f != nil {
		lsm, vlog := f()
		ch <- prometheus.MustNewConstMetric(c.lsm, prometheus.GaugeValue, float64(lsm))
		ch <- prometheus.MustNewConstMetric(c.vlog, prometheus.GaugeValue, float64(vlog))
	}
}
