// Package webhooks owns webhook endpoints and their deliveries: CRUD of
// webhooks (secrets sealed at rest, shown once), the durable delivery queue
// written by Publish inside the transaction that causes an event, and the
// dispatcher that signs and sends each delivery with retries.
//
// Guarantees:
//   - Durability: a delivery exists as soon as the store transaction that
//     published its event commits; it survives a crash.
//   - At-least-once: every delivery is attempted until a 2xx is received or
//     its attempts are exhausted (then it is "failed" and can be retried
//     manually). A crash between a 2xx and its recording causes a duplicate,
//     never a loss.
//   - Idempotency for receivers: one delivery id per (event, webhook), sent
//     as X-Service-Delivery and webhook-id on every attempt, manual retries
//     included. The body is serialised once, at Publish, and the exact
//     bytes stored are the bytes signed and sent on every attempt.
//
// Storage keys (this package owns the "wh/" and "whq/" prefixes):
//
//	wh/w/<webhook id>                                   webhook record (JSON, secret sealed)
//	wh/a/<account>/<created ns hex16>/<webhook id>      account index, creation order
//	wh/d/<delivery id>                                  delivery record (JSON, body bytes)
//	wh/c/<delivery id>                                  claim on the delivery's due attempt (JSON, with Config.Claims)
//	wh/l/<webhook id>/<status|all>/<inverted created ns hex16>/<delivery id>
//	                                                    delivery listing index, newest first
//	whq/<due ns hex16>/<delivery id>  -> webhook id     due queue, one item per pending delivery
package webhooks

import (
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/wire"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no such webhook or delivery for this account (other
	// accounts' resources are reported as not found, never forbidden).
	ErrNotFound = errors.New("webhooks: not found")
	// ErrNotRetryable: manual retry of a delivery that is not failed.
	ErrNotRetryable = errors.New("webhooks: delivery is not failed")
	// ErrInactive: manual retry of a delivery whose webhook is inactive.
	ErrInactive = errors.New("webhooks: webhook is inactive")
	// ErrLimit: the account already has the maximum number of webhooks.
	ErrLimit = errors.New("webhooks: webhook limit reached")
)

// EventTypes lists the event types a webhook may subscribe to.
func EventTypes() []string {
	return []string{events.ContentSigned, events.BatchAnchored, events.ContentVerified}
}

// Status is a delivery's state.
type Status string

// Delivery states: pending (queued, an attempt is due now or later),
// succeeded (a 2xx was received; final), failed (attempts exhausted or the
// webhook was inactive; a manual retry makes it pending again).
const (
	StatusPending   Status = "pending"
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
)

// ValidStatus reports whether s is a delivery state.
func ValidStatus(s Status) bool {
	return s == StatusPending || s == StatusSucceeded || s == StatusFailed
}

// Defaults (the API contract's schedule and timeout, docs/webhooks.md).
const (
	DefaultTimeout        = 30 * time.Second
	DefaultWorkers        = 8
	DefaultPerEndpoint    = 2
	DefaultPollInterval   = 200 * time.Millisecond
	DefaultRotationGrace  = 24 * time.Hour
	DefaultMaxPerAccount  = 20
	maxDueScan            = 10000
	maxStoredAttempts     = 50
	maxResponseBodyToRead = 64 << 10
)

// DefaultSchedule returns the spec's delays: attempt 2 one minute after
// attempt 1, attempt 3 five minutes after attempt 2.
func DefaultSchedule() []time.Duration { return []time.Duration{time.Minute, 5 * time.Minute} }

// Config configures a Service. Store, Clock, MasterKey and Guard are
// required; zero values of the rest get the defaults above.
type Config struct {
	Store store.Store
	Clock clock.Clock
	// Rand is the randomness source for ids, secrets and nonces; nil means
	// crypto/rand.Reader.
	Rand io.Reader
	// MasterKey (at least 32 bytes) seals webhook secrets at rest.
	MasterKey []byte
	// Guard is the SSRF policy applied at registration; the delivery client
	// (NewHTTPClient) also dials through it.
	Guard *Guard
	// Schedule holds the delays before attempts 2, 3, ...; an automatic
	// round makes len(Schedule)+1 attempts. Nil means DefaultSchedule().
	Schedule []time.Duration
	// Timeout bounds one attempt (connect to end of response headers and
	// body read). Zero means DefaultTimeout.
	Timeout time.Duration
	// Workers caps concurrent attempts overall; PerEndpoint caps concurrent
	// attempts to one webhook, so a slow receiver cannot hold all workers.
	Workers     int
	PerEndpoint int
	// PollInterval is how often (real time) the dispatcher looks for due
	// deliveries when nothing woke it. Due-ness itself is judged by Clock.
	PollInterval time.Duration
	// RotationGrace is how long the previous secret keeps signing (in
	// addition) after a rotation.
	RotationGrace time.Duration
	// MaxPerAccount caps webhooks per account.
	MaxPerAccount int
	// Logger gets operational messages; never secrets or bodies. Nil
	// discards.
	Logger *slog.Logger
	// OnAttempt, if set, is called after each attempt's outcome is durably
	// recorded. It is the hook for delivery metrics (attempts, latency,
	// failures by cause); tests also wait on it instead of polling. It must
	// not block.
	OnAttempt func(AttemptResult)
	// Claims makes every attempt first claim its delivery in the store,
	// in the transaction that checks the delivery is still due, so that
	// when several origins dispatch from one shared store each attempt is
	// made by one of them. A claim lasts Timeout plus ClaimGrace; a claim
	// left by an origin that died is taken over after that. Off (one
	// origin), the dispatcher's in-memory bookkeeping suffices and an
	// attempt costs no extra commit.
	Claims bool
}

// ClaimGrace is added to the attempt timeout to make a claim's lifetime:
// room for recording the outcome after the response.
const ClaimGrace = 10 * time.Second

// AttemptResult describes one recorded attempt, for Config.OnAttempt.
type AttemptResult struct {
	DeliveryID string
	WebhookID  string
	Attempt    Attempt
	Status     Status // the delivery's state after this attempt
}

// Webhook is a webhook endpoint as shown to its owner (the API's type,
// stored as it is answered) and the account that owns it. It never carries
// the secret.
type Webhook struct {
	wire.WebhookEndpoint
	AccountID string `json:"account_id"`
}

// webhookRecord is the stored form: the public fields plus the sealed
// secrets.
type webhookRecord struct {
	Webhook
	Secret     []byte     `json:"secret_sealed"`
	PrevSecret []byte     `json:"prev_secret_sealed,omitempty"`
	PrevUntil  *time.Time `json:"prev_until,omitempty"`
}

// Attempt is one delivery attempt.
type Attempt struct {
	Number int       `json:"attempt"`
	At     time.Time `json:"at"`
	// StatusCode is the receiver's HTTP status, 0 if none was received.
	StatusCode int           `json:"status_code"`
	Latency    time.Duration `json:"latency_ns"`
	// Error is "" on success, else one of: "http_status" (non-2xx,
	// redirects included), "timeout", "connection_failed",
	// "destination_refused" (SSRF policy at dial time), "request_failed",
	// "secret_unavailable" (the secret does not unseal: master key changed).
	Error  string `json:"error,omitempty"`
	Manual bool   `json:"manual,omitempty"`
}

// Delivery is one event for one webhook.
type Delivery struct {
	ID        string    `json:"id"`
	WebhookID string    `json:"webhook_id"`
	AccountID string    `json:"account_id"`
	Event     string    `json:"event"`
	EventTime time.Time `json:"event_time"`
	// Body is the exact request body, serialised once at Publish.
	Body     []byte    `json:"body"`
	Status   Status    `json:"status"`
	Attempts []Attempt `json:"attempts"`
	// RoundStart is the index in Attempts where the current round began;
	// RoundAttempts is how many attempts the round may make.
	RoundStart    int `json:"round_start"`
	RoundAttempts int `json:"round_attempts"`
	// ManualRound is set while the current round is a manual retry.
	ManualRound   bool       `json:"manual_round,omitempty"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
	// LastError is set when the delivery failed without an attempt
	// ("webhook_inactive").
	LastError string    `json:"last_error,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Service implements webhooks. It is safe for concurrent use.
type Service struct {
	st        store.Store
	clock     clock.Clock
	rand      io.Reader
	sealer    sealer
	guard     *Guard
	client    *http.Client
	schedule  []time.Duration
	timeout   time.Duration
	workers   int
	perHook   int
	poll      time.Duration
	grace     time.Duration
	maxPerAcc int
	log       *slog.Logger
	onAttempt func(AttemptResult)
	claims    bool

	d   dispatcher
	rec recorder
}

// New returns a Service. The dispatcher is not running until Start.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Clock == nil || cfg.Guard == nil {
		return nil, errors.New("webhooks: Store, Clock and Guard are required")
	}
	sl, err := newSealer(cfg.MasterKey)
	if err != nil {
		return nil, err
	}
	s := &Service{st: cfg.Store, clock: cfg.Clock, rand: cfg.Rand, sealer: sl, guard: cfg.Guard,
		schedule: slices.Clone(cfg.Schedule), timeout: cfg.Timeout, workers: cfg.Workers, perHook: cfg.PerEndpoint,
		poll: cfg.PollInterval, grace: cfg.RotationGrace, maxPerAcc: cfg.MaxPerAccount, log: cfg.Logger, onAttempt: cfg.OnAttempt,
		claims: cfg.Claims}
	if s.rand == nil {
		s.rand = rand.Reader
	}
	if s.schedule == nil {
		s.schedule = DefaultSchedule()
	}
	for _, d := range s.schedule {
		if d < 0 {
			return nil, errors.New("webhooks: Schedule delays must not be negative")
		}
	}
	s.timeout = defaults.Positive(s.timeout, DefaultTimeout)
	s.workers = defaults.Positive(s.workers, DefaultWorkers)
	s.perHook = defaults.Positive(s.perHook, DefaultPerEndpoint)
	s.poll = defaults.Positive(s.poll, DefaultPollInterval)
	s.grace = defaults.Positive(s.grace, DefaultRotationGrace)
	s.maxPerAcc = defaults.Positive(s.maxPerAcc, DefaultMaxPerAccount)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.client = NewHTTPClient(s.guard, s.timeout)
	s.d.init()
	return s, nil
}
