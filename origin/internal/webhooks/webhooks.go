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
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/clock"
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

// Webhook is a webhook endpoint as shown to its owner. It never carries the
// secret.
type Webhook struct {
	ID        string    `json:"id"`
	AccountID string    `json:"account_id"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// SecretRotatedAt is the time of the last rotation, nil if never.
	SecretRotatedAt *time.Time `json:"secret_rotated_at,omitempty"`
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
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.workers <= 0 {
		s.workers = DefaultWorkers
	}
	if s.perHook <= 0 {
		s.perHook = DefaultPerEndpoint
	}
	if s.poll <= 0 {
		s.poll = DefaultPollInterval
	}
	if s.grace <= 0 {
		s.grace = DefaultRotationGrace
	}
	if s.maxPerAcc <= 0 {
		s.maxPerAcc = DefaultMaxPerAccount
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.client = NewHTTPClient(s.guard, s.timeout)
	s.d.init()
	return s, nil
}

// ---- keys ----

func webhookKey(id string) []byte { return []byte("wh/w/" + id) }
func accountPrefix(acct string) []byte {
	return []byte("wh/a/" + acct + "/")
}
func accountKey(acct string, created time.Time, id string) []byte {
	return []byte(fmt.Sprintf("wh/a/%s/%016x/%s", acct, uint64(created.UnixNano()), id))
}
func deliveryKey(id string) []byte { return []byte("wh/d/" + id) }

// claimKey holds the claim (claimRec JSON) on a delivery's due attempt,
// with Config.Claims.
func claimKey(id string) []byte { return []byte("wh/c/" + id) }
func listPrefix(webhookID, status string) []byte {
	return []byte("wh/l/" + webhookID + "/" + status + "/")
}
func listKey(webhookID, status string, created time.Time, id string) []byte {
	return []byte(fmt.Sprintf("wh/l/%s/%s/%016x/%s", webhookID, status, math.MaxUint64-uint64(created.UnixNano()), id))
}

const queuePrefix = "whq/"

func queueKey(due time.Time, id string) []byte {
	n := due.UnixNano()
	if n < 0 {
		n = 0
	}
	return []byte(fmt.Sprintf("%s%016x/%s", queuePrefix, uint64(n), id))
}

// ---- record helpers ----

// getByID reads the record stored under key(id), mapping a missing key and
// an id that cannot be a key segment ("" or containing "/") to ErrNotFound.
func getByID[T any](tx store.Txn, key func(string) []byte, what, id string) (T, error) {
	var zero T
	if id == "" || strings.Contains(id, "/") {
		return zero, ErrNotFound
	}
	v, err := store.GetJSON[T](tx, key(id))
	if errors.Is(err, store.ErrNotFound) {
		return zero, ErrNotFound
	}
	if err != nil {
		return zero, fmt.Errorf("webhooks: %s %s: %w", what, id, err)
	}
	return v, nil
}

func getRecord(tx store.Txn, id string) (webhookRecord, error) {
	return getByID[webhookRecord](tx, webhookKey, "webhook", id)
}

func getOwnRecord(tx store.Txn, owner, id string) (webhookRecord, error) {
	r, err := getRecord(tx, id)
	if err != nil {
		return r, err
	}
	if r.AccountID != owner {
		return webhookRecord{}, ErrNotFound
	}
	return r, nil
}

func putRecord(tx store.Txn, r webhookRecord) error {
	return store.PutJSON(tx, webhookKey(r.ID), r)
}

func getDelivery(tx store.Txn, id string) (Delivery, error) {
	return getByID[Delivery](tx, deliveryKey, "delivery", id)
}

func putDelivery(tx store.Txn, d Delivery) error {
	return store.PutJSON(tx, deliveryKey(d.ID), d)
}

// setStatus moves d to status st, keeping the listing index in step. It
// does not touch the queue.
func setStatus(tx store.Txn, d *Delivery, st Status) error {
	if d.Status == st {
		return nil
	}
	if d.Status != "" {
		if err := tx.Delete(listKey(d.WebhookID, string(d.Status), d.CreatedAt, d.ID)); err != nil {
			return err
		}
	}
	d.Status = st
	return tx.Set(listKey(d.WebhookID, string(st), d.CreatedAt, d.ID), nil)
}

// normalizeEvents validates a subscription list: nil means every event
// type; an empty list, unknown or duplicate types are refused. The result
// is in EventTypes order.
func normalizeEvents(in []string) ([]string, error) {
	if in == nil {
		return EventTypes(), nil
	}
	if len(in) == 0 {
		return nil, validate.Field("events", "must not be empty (omit it to subscribe to every event type)")
	}
	var out []string
	for _, t := range EventTypes() {
		if slices.Contains(in, t) {
			out = append(out, t)
		}
	}
	for _, e := range in {
		if !slices.Contains(EventTypes(), e) {
			return nil, validate.Field("events", "must contain only "+strings.Join(EventTypes(), ", "))
		}
	}
	return out, nil
}

func (s *Service) checkURL(ctx context.Context, raw string) (string, error) {
	u, err := s.guard.CheckURL(ctx, strings.TrimSpace(raw))
	if err != nil {
		var ue *URLError
		if errors.As(err, &ue) {
			return "", validate.Field("url", ue.Reason)
		}
		return "", err
	}
	return u, nil
}

// ---- CRUD ----

// CreateInput is the data for a new webhook. Nil Events subscribes to every
// event type.
type CreateInput struct {
	URL    string
	Events []string
}

// Create registers a webhook for owner after checking its URL against the
// SSRF policy, and returns it with its secret. The secret is returned only
// here (and by RotateSecret); it is stored sealed and never logged.
func (s *Service) Create(ctx context.Context, owner string, in CreateInput) (Webhook, string, error) {
	var errs validate.Errors
	u, err := s.checkURL(ctx, in.URL)
	if err := errs.Check(err); err != nil {
		return Webhook{}, "", err
	}
	evs, err := normalizeEvents(in.Events)
	_ = errs.Check(err)
	if err := errs.Err(); err != nil {
		return Webhook{}, "", err
	}
	id, err := ids.NewUUID(s.rand)
	if err != nil {
		return Webhook{}, "", err
	}
	secret, err := newSecret(s.rand)
	if err != nil {
		return Webhook{}, "", err
	}
	sealed, err := s.sealer.seal(s.rand, secret, id)
	if err != nil {
		return Webhook{}, "", err
	}
	now := s.clock.Now().UTC()
	r := webhookRecord{Webhook: Webhook{ID: id, AccountID: owner, URL: u, Events: evs, Active: true, CreatedAt: now, UpdatedAt: now}, Secret: sealed}
	err = s.st.Update(ctx, func(tx store.Txn) error {
		n := 0
		if err := tx.Scan(accountPrefix(owner), nil, func(_, _ []byte) error {
			n++
			return nil
		}); err != nil {
			return err
		}
		if n >= s.maxPerAcc {
			return ErrLimit
		}
		if err := putRecord(tx, r); err != nil {
			return err
		}
		// An idempotent request's claim commits with the webhook,
		// holding the secret sealed under the request's key.
		if err := store.PutIdemClaimSecret(ctx, tx, id, []byte(secret)); err != nil {
			return err
		}
		return tx.Set(accountKey(owner, r.CreatedAt, id), nil)
	})
	if err != nil {
		return Webhook{}, "", fmt.Errorf("webhooks: create: %w", err)
	}
	return r.Webhook, secret, nil
}

// Get returns owner's webhook id, or ErrNotFound.
func (s *Service) Get(ctx context.Context, owner, id string) (Webhook, error) {
	var r webhookRecord
	err := s.st.View(ctx, func(tx store.Txn) error {
		var err error
		r, err = getOwnRecord(tx, owner, id)
		return err
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: get: %w", err)
	}
	return r.Webhook, nil
}

// List returns one page of owner's webhooks, oldest first.
func (s *Service) List(ctx context.Context, owner, cursor string, limit int) (store.Page[Webhook], error) {
	var p store.Page[Webhook]
	err := s.st.View(ctx, func(tx store.Txn) (err error) {
		p, err = store.IndexPage(tx, accountPrefix(owner), cursor, limit, func(id string) (Webhook, bool, error) {
			r, err := getRecord(tx, id)
			return r.Webhook, err == nil, err
		})
		return err
	})
	if err != nil {
		return store.Page[Webhook]{}, fmt.Errorf("webhooks: list: %w", err)
	}
	return p, nil
}

// UpdateInput changes a webhook; nil members are left unchanged.
type UpdateInput struct {
	URL    *string
	Events *[]string
	Active *bool
}

// Update changes owner's webhook id. A new URL is checked against the SSRF
// policy. Pending deliveries go to the URL current at their next attempt.
// Deactivating stops new deliveries from being queued and makes queued ones
// fail at their next attempt without being sent.
func (s *Service) Update(ctx context.Context, owner, id string, in UpdateInput) (Webhook, error) {
	var u string
	var evs []string
	var err error
	var errs validate.Errors
	if in.URL != nil {
		u, err = s.checkURL(ctx, *in.URL)
		if err := errs.Check(err); err != nil {
			return Webhook{}, err
		}
	}
	if in.Events != nil {
		ev := *in.Events
		if ev == nil {
			ev = []string{}
		}
		evs, err = normalizeEvents(ev)
		_ = errs.Check(err)
	}
	if err := errs.Err(); err != nil {
		return Webhook{}, err
	}
	var out Webhook
	err = s.st.Update(ctx, func(tx store.Txn) error {
		r, err := getOwnRecord(tx, owner, id)
		if err != nil {
			return err
		}
		if in.URL != nil {
			r.URL = u
		}
		if in.Events != nil {
			r.Events = evs
		}
		if in.Active != nil {
			r.Active = *in.Active
		}
		r.UpdatedAt = s.clock.Now().UTC()
		out = r.Webhook
		return putRecord(tx, r)
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: update: %w", err)
	}
	return out, nil
}

// RotateSecret gives owner's webhook id a new secret and returns it (shown
// only here). For the grace period the previous secret keeps signing too:
// X-Service-Signature-Previous and a second webhook-signature entry.
func (s *Service) RotateSecret(ctx context.Context, owner, id string) (Webhook, string, error) {
	secret, err := newSecret(s.rand)
	if err != nil {
		return Webhook{}, "", err
	}
	sealed, err := s.sealer.seal(s.rand, secret, id)
	if err != nil {
		return Webhook{}, "", err
	}
	var out Webhook
	err = s.st.Update(ctx, func(tx store.Txn) error {
		r, err := getOwnRecord(tx, owner, id)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		until := now.Add(s.grace)
		r.PrevSecret, r.PrevUntil, r.Secret = r.Secret, &until, sealed
		r.SecretRotatedAt, r.UpdatedAt = &now, now
		out = r.Webhook
		return putRecord(tx, r)
	})
	if err != nil {
		return Webhook{}, "", fmt.Errorf("webhooks: rotate secret: %w", err)
	}
	return out, secret, nil
}

// deleteBatch bounds the keys removed per transaction when a webhook's
// deliveries are cleaned up.
const deleteBatch = 500

// Delete removes owner's webhook id. The webhook disappears atomically (no
// new delivery is queued, none is sent once this returns, apart from an
// attempt already in flight); its deliveries are then removed in bounded
// batches. If the process stops midway, the dispatcher drops leftover queue
// items of the deleted webhook when they fall due.
func (s *Service) Delete(ctx context.Context, owner, id string) error {
	err := s.st.Update(ctx, func(tx store.Txn) error {
		r, err := getOwnRecord(tx, owner, id)
		if err != nil {
			return err
		}
		if err := tx.Delete(webhookKey(id)); err != nil {
			return err
		}
		return tx.Delete(accountKey(owner, r.CreatedAt, id))
	})
	if err != nil {
		return fmt.Errorf("webhooks: delete: %w", err)
	}
	for {
		n := 0
		err := s.st.Update(ctx, func(tx store.Txn) error {
			n = 0
			var ids []string
			if err := tx.Scan(listPrefix(id, "all"), nil, func(k, _ []byte) error {
				ids = append(ids, string(k[strings.LastIndexByte(string(k), '/')+1:]))
				if len(ids) == deleteBatch {
					return store.ErrStopIteration
				}
				return nil
			}); err != nil {
				return err
			}
			for _, did := range ids {
				if err := removeDelivery(tx, did, id); err != nil {
					return err
				}
			}
			n = len(ids)
			return nil
		})
		if err != nil {
			s.log.Warn("webhook deliveries cleanup stopped", "webhook_id", id, "err", err)
			return nil // the webhook itself is gone; leftovers are harmless
		}
		if n < deleteBatch {
			return nil
		}
	}
}

// removeDelivery deletes a delivery, its listing keys and its queue item.
// A delivery already gone is not an error; the "all" index key is removed
// in any case.
func removeDelivery(tx store.Txn, did, webhookID string) error {
	d, err := getDelivery(tx, did)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, st := range []string{"all", string(d.Status)} {
		if err := tx.Delete(listKey(webhookID, st, d.CreatedAt, did)); err != nil {
			return err
		}
	}
	if d.NextAttemptAt != nil {
		if err := tx.Delete(queueKey(*d.NextAttemptAt, did)); err != nil {
			return err
		}
	}
	return tx.Delete(deliveryKey(did))
}

// ---- Publish ----

var _ events.Publisher = (*Service)(nil)

type envelope struct {
	Event     string          `json:"event"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// FormatTime is the ISO 8601 form of event times in bodies and in
// X-Service-Timestamp: RFC 3339 in UTC with fractional seconds as needed.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Publish implements events.Publisher. Inside txn it queues one delivery,
// with its own delivery id, for every active webhook of ev.Accounts that
// subscribes to ev.Type. The body {event, timestamp, data} is serialised
// here once and stored; it is the exact byte string signed and sent on
// every attempt. Publish writes only through txn, so a rolled-back or
// retried transaction leaves nothing behind; the only other effect is a
// non-blocking wake-up of the dispatcher.
func (s *Service) Publish(txn store.Txn, ev events.Event) error {
	if !slices.Contains(EventTypes(), ev.Type) {
		return fmt.Errorf("webhooks: publish: unknown event type %q", ev.Type)
	}
	data := ev.Data
	if len(data) == 0 {
		data = json.RawMessage(`{}`)
	}
	body, err := json.Marshal(envelope{Event: ev.Type, Timestamp: FormatTime(ev.Time), Data: data})
	if err != nil {
		return fmt.Errorf("webhooks: publish: encode body: %w", err)
	}
	now := s.clock.Now().UTC()
	queued := 0
	seen := map[string]bool{}
	for _, acct := range ev.Accounts {
		if acct == "" || seen[acct] || strings.Contains(acct, "/") {
			continue
		}
		seen[acct] = true
		var hooks []string
		if err := txn.Scan(accountPrefix(acct), nil, func(k, _ []byte) error {
			hooks = append(hooks, string(k[strings.LastIndexByte(string(k), '/')+1:]))
			return nil
		}); err != nil {
			return fmt.Errorf("webhooks: publish: %w", err)
		}
		for _, hid := range hooks {
			r, err := getRecord(txn, hid)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return fmt.Errorf("webhooks: publish: %w", err)
			}
			if !r.Active || !slices.Contains(r.Events, ev.Type) {
				continue
			}
			if _, err := s.queue(txn, hid, acct, ev.Type, ev.Time, body, now); err != nil {
				return err
			}
			queued++
		}
	}
	if queued > 0 {
		s.d.wake()
	}
	return nil
}

// queue stores a pending delivery of body to webhook hid, due now.
func (s *Service) queue(txn store.Txn, hid, acct, typ string, evTime time.Time, body []byte, now time.Time) (Delivery, error) {
	did, err := ids.NewUUID(s.rand)
	if err != nil {
		return Delivery{}, err
	}
	due := now
	d := Delivery{ID: did, WebhookID: hid, AccountID: acct, Event: typ, EventTime: evTime.UTC(), Body: body,
		Attempts: []Attempt{}, RoundAttempts: len(s.schedule) + 1, NextAttemptAt: &due, CreatedAt: now, UpdatedAt: now}
	if err := setStatus(txn, &d, StatusPending); err != nil {
		return Delivery{}, err
	}
	if err := txn.Set(listKey(hid, "all", now, did), nil); err != nil {
		return Delivery{}, err
	}
	if err := txn.Set(queueKey(due, did), []byte(hid)); err != nil {
		return Delivery{}, err
	}
	if err := putDelivery(txn, d); err != nil {
		return Delivery{}, err
	}
	return d, nil
}

// TestEvent is the event type of a test delivery (SendTest). Webhooks
// cannot subscribe to it; every webhook receives the ones sent to it.
const TestEvent = "webhook.test"

// SendTest queues a test delivery to owner's webhook id, whatever events
// it subscribes to: the body {event: "webhook.test", timestamp, data:
// {webhook_id}} goes through the same signing, schedule and delivery log
// as any event. It returns ErrNotFound for another account's webhook and
// ErrInactive for an inactive one.
func (s *Service) SendTest(ctx context.Context, owner, id string) (Delivery, error) {
	var d Delivery
	err := s.st.Update(ctx, func(tx store.Txn) error {
		r, err := getOwnRecord(tx, owner, id)
		if err != nil {
			return err
		}
		if !r.Active {
			return ErrInactive
		}
		now := s.clock.Now().UTC()
		data, err := json.Marshal(map[string]string{"webhook_id": id})
		if err != nil {
			return err
		}
		body, err := json.Marshal(envelope{Event: TestEvent, Timestamp: FormatTime(now), Data: data})
		if err != nil {
			return err
		}
		d, err = s.queue(tx, id, owner, TestEvent, now, body, now)
		return err
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("webhooks: test: %w", err)
	}
	s.d.wake()
	return d, nil
}

// ---- deliveries ----

// ListDeliveries returns one page of the deliveries of owner's webhook,
// newest first, optionally only those in status (empty: all).
func (s *Service) ListDeliveries(ctx context.Context, owner, webhookID string, status Status, cursor string, limit int) (store.Page[Delivery], error) {
	idx := "all"
	if status != "" {
		if !ValidStatus(status) {
			return store.Page[Delivery]{}, validate.Field("status", "must be one of pending, succeeded, failed")
		}
		idx = string(status)
	}
	var p store.Page[Delivery]
	err := s.st.View(ctx, func(tx store.Txn) (err error) {
		if _, err := getOwnRecord(tx, owner, webhookID); err != nil {
			return err
		}
		// A delivery pruned after its index entry was read is left out.
		p, err = store.IndexPage(tx, listPrefix(webhookID, idx), cursor, limit, func(id string) (Delivery, bool, error) {
			d, err := getDelivery(tx, id)
			if errors.Is(err, ErrNotFound) {
				return d, false, nil
			}
			return d, err == nil, err
		})
		return err
	})
	if err != nil {
		return store.Page[Delivery]{}, fmt.Errorf("webhooks: list deliveries: %w", err)
	}
	return p, nil
}

// GetDelivery returns owner's delivery id, or ErrNotFound.
func (s *Service) GetDelivery(ctx context.Context, owner, id string) (Delivery, error) {
	var d Delivery
	err := s.st.View(ctx, func(tx store.Txn) error {
		var err error
		d, err = getDelivery(tx, id)
		if err == nil && d.AccountID != owner {
			err = ErrNotFound
		}
		if err == nil {
			_, err = getOwnRecord(tx, owner, d.WebhookID)
		}
		return err
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("webhooks: get delivery: %w", err)
	}
	return d, nil
}

// Retry makes owner's failed delivery id pending again for one immediate
// attempt (a manual round of one attempt), with the same delivery id and
// body. If that attempt fails the delivery is failed again. ErrNotRetryable
// if it is not failed; ErrInactive if its webhook is inactive.
func (s *Service) Retry(ctx context.Context, owner, id string) (Delivery, error) {
	var d Delivery
	err := s.st.Update(ctx, func(tx store.Txn) error {
		var err error
		d, err = getDelivery(tx, id)
		if err != nil {
			return err
		}
		if d.AccountID != owner {
			return ErrNotFound
		}
		r, err := getOwnRecord(tx, owner, d.WebhookID)
		if err != nil {
			return err
		}
		if d.Status != StatusFailed {
			return ErrNotRetryable
		}
		if !r.Active {
			return ErrInactive
		}
		now := s.clock.Now().UTC()
		if len(d.Attempts) >= maxStoredAttempts {
			d.Attempts = d.Attempts[len(d.Attempts)-maxStoredAttempts+1:]
		}
		d.RoundStart, d.RoundAttempts, d.ManualRound = len(d.Attempts), 1, true
		d.NextAttemptAt, d.UpdatedAt, d.LastError = &now, now, ""
		if err := setStatus(tx, &d, StatusPending); err != nil {
			return err
		}
		if err := tx.Set(queueKey(now, d.ID), []byte(d.WebhookID)); err != nil {
			return err
		}
		return putDelivery(tx, d)
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("webhooks: retry: %w", err)
	}
	s.d.wake()
	return d, nil
}

// nextAttemptNumber numbers attempts from 1, continuing after the oldest
// ones were trimmed.
func nextAttemptNumber(d Delivery) int {
	if len(d.Attempts) == 0 {
		return 1
	}
	return d.Attempts[len(d.Attempts)-1].Number + 1
}

// dispatcher state; see dispatch.go.
type dispatcher struct {
	mu       sync.Mutex
	inflight map[string]bool
	perHook  map[string]int
	running  int
	wakeCh   chan struct{}
	started  bool
	cancel   context.CancelFunc
	ctx      context.Context
	loopDone chan struct{}
	wg       sync.WaitGroup
}
