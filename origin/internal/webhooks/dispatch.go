package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

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

func (d *dispatcher) init() {
	d.inflight = map[string]bool{}
	d.perHook = map[string]int{}
	d.wakeCh = make(chan struct{}, 1)
	d.ctx, d.cancel = context.WithCancel(context.Background())
}

// wake nudges the dispatcher loop without blocking.
func (d *dispatcher) wake() {
	select {
	case d.wakeCh <- struct{}{}:
	default:
	}
}

// fastPolls is how many short (2 ms) polls follow a wake-up: Publish wakes
// the dispatcher before its transaction commits, so the first look may be
// too early.
const (
	fastPolls    = 50
	fastInterval = 2 * time.Millisecond
)

// Start runs the dispatcher in the background: on start it finds every
// pending delivery already due (including those left by a crash) and
// then keeps sending deliveries as they fall due by Clock. Start is a
// no-op if already started or closed.
func (s *Service) Start() {
	d := &s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.started || d.ctx.Err() != nil {
		return
	}
	d.started = true
	d.loopDone = make(chan struct{})
	go s.loop()
}

func (s *Service) loop() {
	d := &s.d
	defer close(d.loopDone)
	timer := time.NewTimer(0)
	defer timer.Stop()
	fast := 0
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-d.wakeCh:
			fast = fastPolls
		case <-timer.C:
		}
		if _, err := s.dispatchDue(); err != nil && d.ctx.Err() == nil {
			s.log.Warn("webhook dispatch scan failed", "err", err)
		}
		wait := s.poll
		if fast > 0 {
			fast--
			wait = min(wait, fastInterval)
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}

// Close stops the dispatcher: no new attempt starts, attempts in flight are
// cancelled and not recorded (their deliveries stay queued and are sent
// again after a restart, with the same delivery id). It waits for the
// workers to return. Safe to call more than once.
func (s *Service) Close() {
	d := &s.d
	d.mu.Lock()
	d.cancel()
	started := d.started
	d.mu.Unlock()
	if started {
		<-d.loopDone
	}
	d.wg.Wait()
	s.client.CloseIdleConnections()
}

// DispatchDue starts an attempt for every delivery due by Clock, within the
// worker and per-endpoint caps, and waits for those attempts to be recorded.
// It returns how many attempts it started. The background loop (Start) does
// the same without waiting; tests with a fake clock call this directly.
func (s *Service) DispatchDue(ctx context.Context) (int, error) {
	done, err := s.dispatchDue()
	for _, ch := range done {
		select {
		case <-ch:
		case <-ctx.Done():
			return len(done), ctx.Err()
		}
	}
	return len(done), err
}

type dueItem struct{ key, deliveryID, webhookID string }

// dispatchDue scans the due part of the queue (keys are ordered by due
// time, so the scan stops at the first item in the future) and claims what
// the caps allow; it also stops as soon as every free worker has an item,
// so a deep backlog costs one short scan per pass. It returns one channel
// per attempt started, closed when the attempt is done.
func (s *Service) dispatchDue() ([]chan struct{}, error) {
	d := &s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctx.Err() != nil || d.running >= s.workers {
		return nil, nil
	}
	nowT := s.clock.Now()
	now := nowT.UnixNano()
	var claim []dueItem
	scanned := 0
	err := s.st.View(d.ctx, func(tx store.Txn) error {
		claim = claim[:0]
		scanned = 0
		perHook := map[string]int{}
		return tx.Scan([]byte(queuePrefix), nil, func(k, v []byte) error {
			rest := string(k[len(queuePrefix):])
			slash := strings.IndexByte(rest, '/')
			if slash != 16 {
				return nil // not ours; skip
			}
			ns, err := strconv.ParseUint(rest[:16], 16, 64)
			if err != nil {
				return nil
			}
			scanned++
			if int64(ns) > now || scanned > maxDueScan {
				return store.ErrStopIteration
			}
			it := dueItem{key: string(k), deliveryID: rest[slash+1:], webhookID: string(v)}
			if d.inflight[it.deliveryID] || d.perHook[it.webhookID]+perHook[it.webhookID] >= s.perHook {
				return nil
			}
			if s.claims {
				// Another origin is making this attempt: look past it, or
				// every origin would queue behind the same few items and
				// a webhook's attempts would not spread over the origins.
				if held, err := claimHeld(tx, it, nowT); held || err != nil {
					return err
				}
			}
			perHook[it.webhookID]++
			claim = append(claim, it)
			if d.running+len(claim) >= s.workers {
				return store.ErrStopIteration
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("webhooks: scan queue: %w", err)
	}
	started := make([]chan struct{}, 0, len(claim))
	for _, it := range claim {
		d.inflight[it.deliveryID] = true
		d.perHook[it.webhookID]++
		d.running++
		ch := make(chan struct{})
		started = append(started, ch)
		d.wg.Add(1)
		go func(it dueItem) {
			defer d.wg.Done()
			defer close(ch)
			s.attempt(it)
			d.mu.Lock()
			delete(d.inflight, it.deliveryID)
			if d.perHook[it.webhookID]--; d.perHook[it.webhookID] <= 0 {
				delete(d.perHook, it.webhookID)
			}
			d.running--
			d.mu.Unlock()
			d.wake() // capacity freed: look again
		}(it)
	}
	return started, nil
}

// attempt makes one delivery attempt and records its outcome.
func (s *Service) attempt(it dueItem) {
	ctx := s.d.ctx
	var del Delivery
	var rec webhookRecord
	var hookErr error
	load := s.st.View
	if s.claims {
		load = s.st.Update
	}
	err := load(ctx, func(tx store.Txn) error {
		var err error
		if del, err = getDelivery(tx, it.deliveryID); err != nil {
			return err
		}
		rec, hookErr = getRecord(tx, del.WebhookID)
		if hookErr != nil && !errors.Is(hookErr, ErrNotFound) {
			return hookErr
		}
		if s.claims && hookErr == nil && rec.Active && del.Status == StatusPending && del.NextAttemptAt != nil &&
			string(queueKey(*del.NextAttemptAt, del.ID)) == it.key {
			return s.claim(tx, it)
		}
		return nil
	})
	switch {
	case errors.Is(err, errClaimed):
		return // another origin makes this attempt
	case errors.Is(err, ErrNotFound):
		s.dropQueueItem(it) // delivery gone (webhook deleted): stale queue item
		return
	case err != nil:
		if ctx.Err() == nil {
			s.log.Error("webhook delivery load failed", "delivery_id", it.deliveryID, "err", err)
		}
		return
	case del.Status != StatusPending || del.NextAttemptAt == nil || string(queueKey(*del.NextAttemptAt, del.ID)) != it.key:
		s.dropQueueItem(it)
		return
	case errors.Is(hookErr, ErrNotFound):
		s.dropDelivery(del)
		return
	case !rec.Active:
		s.record(del, nil, "webhook_inactive")
		return
	}
	start := s.clock.Now().UTC()
	secret, err := s.sealer.open(rec.Secret, rec.ID)
	if err != nil {
		// The master key changed: nothing can be signed. Count it as a
		// failed attempt (so it follows the schedule instead of spinning);
		// after a rotate-secret a manual retry delivers it.
		s.log.Error("webhook secret unseal failed", "webhook_id", rec.ID, "err", err)
		s.record(del, &Attempt{Number: nextAttemptNumber(del), At: start, Error: "secret_unavailable", Manual: del.ManualRound}, "")
		return
	}
	var prev string
	if rec.PrevSecret != nil && rec.PrevUntil != nil && s.clock.Now().Before(*rec.PrevUntil) {
		if prev, err = s.sealer.open(rec.PrevSecret, rec.ID); err != nil {
			prev = ""
		}
	}
	code, errCode := s.send(ctx, rec.URL, del, secret, prev, start)
	if ctx.Err() != nil {
		return // shutting down: leave the item queued, it is resent after restart
	}
	att := Attempt{Number: nextAttemptNumber(del), At: start, StatusCode: code, Latency: s.clock.Now().Sub(start),
		Error: errCode, Manual: del.ManualRound}
	s.record(del, &att, "")
}

// send performs the HTTP request and classifies the outcome.
func (s *Service) send(ctx context.Context, url string, del Delivery, secret, prev string, at time.Time) (int, string) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(del.Body))
	if err != nil {
		return 0, "request_failed"
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Provenant-Webhooks/1")
	h.Set(HeaderSignature, Sign(secret, del.Body))
	h.Set(HeaderEvent, del.Event)
	h.Set(HeaderDelivery, del.ID)
	h.Set(HeaderTimestamp, FormatTime(del.EventTime))
	h.Set(HeaderStdID, del.ID)
	h.Set(HeaderStdTimestamp, strconv.FormatInt(at.Unix(), 10))
	sigs, err := SignStandard(secret, del.ID, at, del.Body)
	if err != nil {
		return 0, "request_failed"
	}
	if prev != "" {
		h.Set(HeaderSignaturePrevious, Sign(prev, del.Body))
		if p, err := SignStandard(prev, del.ID, at, del.Body); err == nil {
			sigs += " " + p
		}
	}
	h.Set(HeaderStdSignature, sigs)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, classify(err)
	}
	// Drain a bounded amount so the connection can be reused; the status
	// alone decides the outcome.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBodyToRead))
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, ""
	}
	return resp.StatusCode, "http_status"
}

func classify(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, ErrDestinationRefused):
		return "destination_refused"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	default:
		return "connection_failed"
	}
}

// outcome is one attempt's result waiting to be recorded.
type outcome struct {
	claimed Delivery
	att     *Attempt // nil: fail the delivery without an attempt
	reason  string
	// lead receives true when this waiter must commit the pending batch,
	// false when its outcome has been handled.
	lead chan bool
}

// recorder group-commits the outcomes of concurrent attempts: the first
// caller becomes the leader and commits everything pending in one store
// transaction (one fsync), then hands leadership to a waiter if more
// arrived meanwhile. No goroutine of its own.
type recorder struct {
	mu      sync.Mutex
	leading bool
	pending []*outcome
}

// maxRecordBatch bounds one group commit.
const maxRecordBatch = 64

// record durably writes an attempt's outcome (att nil: fail the delivery
// without an attempt, with reason) and moves the queue item: removed on
// success or final failure, re-keyed to the next due time otherwise. The
// next attempt is due Schedule[k-1] after the start of attempt k, and never
// before now. It returns once the outcome is committed (or given up on).
func (s *Service) record(claimed Delivery, att *Attempt, reason string) {
	o := &outcome{claimed: claimed, att: att, reason: reason, lead: make(chan bool, 1)}
	r := &s.rec
	r.mu.Lock()
	r.pending = append(r.pending, o)
	if r.leading {
		r.mu.Unlock()
		if !<-o.lead {
			return
		}
		r.mu.Lock()
	}
	r.leading = true
	n := min(len(r.pending), maxRecordBatch)
	batch := r.pending[:n:n]
	r.pending = r.pending[n:]
	r.mu.Unlock()

	s.commitOutcomes(batch)
	for _, b := range batch {
		if b != o {
			b.lead <- false
		}
	}

	r.mu.Lock()
	if len(r.pending) > 0 {
		r.pending[0].lead <- true
	} else {
		r.leading = false
		r.pending = nil
	}
	r.mu.Unlock()
}

// commitOutcomes writes batch in one transaction, or one by one if that
// fails (so one bad record cannot block the others), then reports.
func (s *Service) commitOutcomes(batch []*outcome) {
	results := make([]AttemptResult, len(batch))
	err := s.st.Update(s.d.ctx, func(tx store.Txn) error {
		for i, o := range batch {
			res, err := s.applyOutcome(tx, o)
			if err != nil {
				return err
			}
			results[i] = res
		}
		return nil
	})
	if err != nil && len(batch) > 1 {
		for i, o := range batch {
			err := s.st.Update(s.d.ctx, func(tx store.Txn) error {
				var err error
				results[i], err = s.applyOutcome(tx, o)
				return err
			})
			if err != nil {
				results[i] = AttemptResult{}
				if s.d.ctx.Err() == nil {
					s.log.Error("webhook attempt not recorded", "delivery_id", o.claimed.ID, "err", err)
				}
			}
		}
	} else if err != nil {
		if s.d.ctx.Err() == nil {
			s.log.Error("webhook attempt not recorded", "delivery_id", batch[0].claimed.ID, "err", err)
		}
		return
	}
	for _, res := range results {
		if res.DeliveryID == "" {
			continue
		}
		if res.Status == StatusFailed {
			s.log.Info("webhook delivery failed", "delivery_id", res.DeliveryID, "webhook_id", res.WebhookID,
				"attempt", res.Attempt.Number, "error", res.Attempt.Error, "status_code", res.Attempt.StatusCode)
		}
		if s.onAttempt != nil {
			s.onAttempt(res)
		}
	}
}

// applyOutcome is the transactional part of record. A zero result means
// there was nothing to record (the delivery is gone or changed).
func (s *Service) applyOutcome(tx store.Txn, o *outcome) (AttemptResult, error) {
	claimed, att := o.claimed, o.att
	d, err := getDelivery(tx, claimed.ID)
	if errors.Is(err, ErrNotFound) {
		return AttemptResult{}, nil
	}
	if err != nil {
		return AttemptResult{}, err
	}
	if d.Status != StatusPending || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(*claimed.NextAttemptAt) {
		return AttemptResult{}, nil // changed under us; nothing to record
	}
	if err := tx.Delete(queueKey(*d.NextAttemptAt, d.ID)); err != nil {
		return AttemptResult{}, err
	}
	if s.claims {
		if err := tx.Delete(claimKey(d.ID)); err != nil {
			return AttemptResult{}, err
		}
	}
	now := s.clock.Now().UTC()
	d.UpdatedAt = now
	d.NextAttemptAt = nil
	next := StatusFailed
	res := AttemptResult{DeliveryID: d.ID, WebhookID: d.WebhookID}
	if att != nil {
		d.Attempts = append(d.Attempts, *att)
		res.Attempt = *att
		k := len(d.Attempts) - d.RoundStart
		switch {
		case att.Error == "":
			next = StatusSucceeded
		case k < d.RoundAttempts && len(s.schedule) > 0:
			due := att.At.Add(s.schedule[min(k-1, len(s.schedule)-1)])
			if due.Before(now) {
				due = now
			}
			d.NextAttemptAt = &due
			next = StatusPending
			if err := tx.Set(queueKey(due, d.ID), []byte(d.WebhookID)); err != nil {
				return AttemptResult{}, err
			}
		}
	} else {
		d.LastError = o.reason
	}
	if err := setStatus(tx, &d, next); err != nil {
		return AttemptResult{}, err
	}
	res.Status = next
	return res, putDelivery(tx, d)
}

// dropQueueItem deletes a queue item that no longer designates a pending
// delivery's next attempt.
func (s *Service) dropQueueItem(it dueItem) {
	err := s.st.Update(s.d.ctx, func(tx store.Txn) error {
		d, err := getDelivery(tx, it.deliveryID)
		if err == nil && d.Status == StatusPending && d.NextAttemptAt != nil && string(queueKey(*d.NextAttemptAt, d.ID)) == it.key {
			return nil // it is live after all
		}
		return tx.Delete([]byte(it.key))
	})
	if err != nil && s.d.ctx.Err() == nil {
		s.log.Warn("webhook stale queue item not dropped", "delivery_id", it.deliveryID, "err", err)
	}
}

func (s *Service) dropDelivery(del Delivery) {
	err := s.st.Update(s.d.ctx, func(tx store.Txn) error { return removeDelivery(tx, del.ID, del.WebhookID) })
	if err != nil && s.d.ctx.Err() == nil {
		s.log.Warn("webhook orphan delivery not dropped", "delivery_id", del.ID, "err", err)
	}
}

// QueueDepth returns the number of pending deliveries in the due queue
// (waiting for their first attempt or a retry). It scans the queue's keys,
// so it costs one key read per pending delivery.
func (s *Service) QueueDepth(ctx context.Context) (int, error) {
	n := 0
	err := s.st.View(ctx, func(tx store.Txn) error {
		n = 0
		return tx.Scan([]byte(queuePrefix), nil, func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		return 0, fmt.Errorf("webhooks: queue depth: %w", err)
	}
	return n, nil
}

// errClaimed: the due attempt is claimed by another dispatcher.
var errClaimed = errors.New("webhooks: attempt claimed elsewhere")

// claimRec is a claim on one due attempt: the queue item it is for and
// when it lapses.
type claimRec struct {
	Item  string    `json:"item"`
	Until time.Time `json:"until"`
}

// claim takes the claim on it's attempt inside tx, which has just read
// the delivery and found it due with this queue item: errClaimed if a
// live claim for the same item exists. As the check and the write are in
// the transaction that read the delivery, a dispatcher that recorded the
// outcome meanwhile (moving or deleting the item) makes this commit
// conflict, and the retry sees the delivery changed.
func (s *Service) claim(tx store.Txn, it dueItem) error {
	now := s.clock.Now()
	held, err := claimHeld(tx, it, now)
	if err != nil {
		return err
	}
	if held {
		return errClaimed
	}
	return store.PutJSON(tx, claimKey(it.deliveryID), claimRec{Item: it.key, Until: now.Add(s.timeout + ClaimGrace)})
}

// claimHeld reports whether a claim on it's attempt, for this same queue
// item, is still live at now. A claim for an earlier item of the
// delivery, or a lapsed one, is not held.
func claimHeld(tx store.Txn, it dueItem, now time.Time) (bool, error) {
	c, err := store.GetJSON[claimRec](tx, claimKey(it.deliveryID))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return c.Item == it.key && now.Before(c.Until), nil
}
