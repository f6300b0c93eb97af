// Package events is the seam between the code that changes state (signing,
// anchoring, verifying) and the code that tells the outside world about it
// (webhooks). An event is published inside the store transaction that causes
// it, so the change and the fact that it must be announced commit together or
// not at all: a crash can never keep one and lose the other.
package events

import (
	"encoding/json"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

// Event types, as named by the API contract (docs/webhooks.md).
const (
	ContentSigned   = "content.signed"
	BatchAnchored   = "batch.anchored"
	ContentVerified = "content.verified"
)

// Event is one thing that happened. Data is the event's `data` object exactly
// as it will be sent; the envelope (`event`, `timestamp`, `data`) is built by
// the subscriber.
type Event struct {
	// Type is one of the constants above.
	Type string
	// Time is when the change happened (the envelope's timestamp).
	Time time.Time
	// Accounts are the ids of the accounts to notify: the owner of the
	// record for content.signed and content.verified, the owners of the
	// batch's records for batch.anchored. Empty means nobody.
	Accounts []string
	// Data is the JSON `data` object.
	Data json.RawMessage
}

// Publisher records events. Publish is called inside a store.Update callback
// with that callback's transaction; it must only write through txn (no
// network, no goroutines), because the callback may be retried and may be
// rolled back. Once the transaction commits, the subscriber is responsible
// for delivering the event at least once, including after a crash.
type Publisher interface {
	Publish(txn store.Txn, ev Event) error
}

// Nop is a Publisher that drops every event; it is the default until a
// subscriber is wired in.
type Nop struct{}

// Publish implements Publisher and does nothing.
func (Nop) Publish(store.Txn, Event) error { return nil }

// NewData marshals v into an event's Data.
func NewData(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}
