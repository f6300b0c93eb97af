// Package accountstest builds an accounts service for the tests of the
// packages above it (the HTTP API, the web app), so that each does not
// restate the service's wiring.
package accountstest

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
)

// CheapPassword returns Argon2id parameters cheap enough for a test
// (64 KiB, one pass); a real account never uses them.
func CheapPassword() accounts.PasswordParams {
	return accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}
}

// New returns an accounts service on st and clk with a fresh token key,
// mail written to an outbox in a temporary directory, and CheapPassword.
func New(t testing.TB, st store.Store, clk clock.Clock) *accounts.Service {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := accounts.New(accounts.Config{Store: st, Clock: clk, Rand: rand.Reader, TokenKey: priv,
		Mailer: &mail.Outbox{Dir: t.TempDir(), Clock: clk}, Password: CheapPassword()})
	if err != nil {
		t.Fatalf("accounts.New: %v", err)
	}
	return acc
}
