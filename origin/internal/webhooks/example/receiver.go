// Package example is the reference webhook receiver of docs/webhooks.md
// (the document embeds this file verbatim; a test keeps them identical).
// It uses only the standard library, so it can be copied as is.
package example

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"sync"
)

// Receiver verifies and deduplicates Provenant webhook deliveries.
//
// It checks X-Service-Signature (or, during a secret rotation,
// X-Service-Signature-Previous) against every secret it holds, comparing
// HMACs in constant time with hmac.Equal, and processes each
// X-Service-Delivery id at most once: a retry of a delivery that was
// already processed is acknowledged without calling Handle again.
type Receiver struct {
	// Secrets are the webhook's secrets: the current one and, while a
	// rotation is in progress, the previous one.
	Secrets []string
	// Handle processes one verified delivery; an error answers 500 so that
	// the delivery is retried later (with the same delivery id).
	Handle func(event string, body []byte) error

	mu   sync.Mutex
	seen map[string]bool // processed delivery ids; use a database in production
}

// ServeHTTP implements http.Handler.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // the raw bytes: never re-encode before verifying
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	if !rc.verify(body, r.Header.Get("X-Service-Signature")) && !rc.verify(body, r.Header.Get("X-Service-Signature-Previous")) {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get("X-Service-Delivery")
	if id == "" {
		http.Error(w, "missing delivery id", http.StatusBadRequest)
		return
	}
	// Holding the lock while handling keeps the example simple: one
	// delivery at a time, so a concurrent duplicate waits and is then seen.
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.seen[id] {
		w.WriteHeader(http.StatusOK) // duplicate: already processed
		return
	}
	if err := rc.Handle(r.Header.Get("X-Service-Event"), body); err != nil {
		http.Error(w, "try again later", http.StatusInternalServerError)
		return
	}
	if rc.seen == nil {
		rc.seen = map[string]bool{}
	}
	rc.seen[id] = true
	w.WriteHeader(http.StatusNoContent)
}

// verify reports whether sigHex is the HMAC-SHA256 of body under one of
// the secrets (the whole "whsec_..." string is the key).
func (rc *Receiver) verify(body []byte, sigHex string) bool {
	got, err := hex.DecodeString(sigHex)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	for _, secret := range rc.Secrets {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		if hmac.Equal(got, mac.Sum(nil)) {
			return true
		}
	}
	return false
}
