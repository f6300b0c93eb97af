package wire

import (
	"encoding/json"
	"time"
)

// Webhook is a webhook endpoint as its owner sees it (docs/webhooks.md).
// Secret is set only in the answers of create and rotate-secret, the one
// time it is shown.
type Webhook struct {
	WebhookEndpoint
	Secret string `json:"secret,omitempty"`
}

// WebhookEndpoint is a webhook endpoint without its secret: what the
// origin stores in the clear and every answer shows.
type WebhookEndpoint struct {
	ID     string   `json:"id"`
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Active bool     `json:"active"`
	// CreatedAt and UpdatedAt are the endpoint's creation and last change.
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// SecretRotatedAt is the time of the last rotation, nil if never.
	SecretRotatedAt *time.Time `json:"secret_rotated_at,omitempty"`
}

// Delivery is one webhook delivery with its attempts. Status is pending,
// succeeded or failed; Payload is the exact body sent (the {event,
// timestamp, data} envelope).
type Delivery struct {
	ID            string          `json:"id"`
	WebhookID     string          `json:"webhook_id"`
	Event         string          `json:"event"`
	Status        string          `json:"status"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	NextAttemptAt *time.Time      `json:"next_attempt_at,omitempty"`
	LastError     string          `json:"last_error,omitempty"`
	Attempts      []Attempt       `json:"attempts"`
	Payload       json.RawMessage `json:"payload"`
}

// Attempt is one delivery attempt: the receiver's HTTP status (absent when
// none came back), the latency, and the error class when it failed.
type Attempt struct {
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code,omitempty"`
	LatencyMS  float64   `json:"latency_ms"`
	Error      string    `json:"error,omitempty"`
	Manual     bool      `json:"manual,omitempty"`
}
