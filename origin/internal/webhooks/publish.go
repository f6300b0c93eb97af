package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/store"
)

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
