package keys

import (
	"errors"
	"slices"
	"testing"

	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/validate"
)

// TestAPIKeyAuthentication: a key authenticates as its owner with its
// scopes until it is revoked, and not from the moment RevokeAPIKey
// returns; another owner cannot revoke it; a key of the right form that
// was never issued does not authenticate.
func TestAPIKeyAuthentication(t *testing.T) {
	s := newService(t, storetest.Badger(t), make([]byte, MasterKeySize))
	ctx := t.Context()
	k, text, err := s.CreateAPIKey(ctx, "owner", CreateAPIKeyInput{Name: "ci", Scopes: []string{ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.AuthenticateAPIKey(ctx, text)
	if err != nil || got.ID != k.ID || got.AccountID != "owner" || len(got.Scopes) != 1 || got.Scopes[0] != ScopeRead {
		t.Fatalf("AuthenticateAPIKey = %+v, %v; want the key of owner with scope read", got, err)
	}
	if _, err := s.RevokeAPIKey(ctx, "intruder", k.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another owner's revoke: %v, want ErrNotFound", err)
	}
	if _, err := s.AuthenticateAPIKey(ctx, text); err != nil {
		t.Fatalf("after a refused revoke: %v, want still valid", err)
	}
	if _, err := s.RevokeAPIKey(ctx, "owner", k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AuthenticateAPIKey(ctx, text); !errors.Is(err, ErrInvalidAPIKey) {
		t.Errorf("revoked key: %v, want ErrInvalidAPIKey", err)
	}
	_, other, err := newService(t, storetest.Badger(t), make([]byte, MasterKeySize)).CreateAPIKey(ctx, "owner", CreateAPIKeyInput{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AuthenticateAPIKey(ctx, other); !errors.Is(err, ErrInvalidAPIKey) {
		t.Errorf("a well-formed key this service never issued: %v, want ErrInvalidAPIKey", err)
	}
}

// TestAPIKeyScopes: a key's scopes are stored sorted and once each, all of
// them when none are named; an unknown scope or an empty list is refused.
func TestAPIKeyScopes(t *testing.T) {
	s := newService(t, storetest.Badger(t), make([]byte, MasterKeySize))
	ctx := t.Context()
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{ScopeWebhooks, ScopeRead, ScopeRead}, []string{ScopeRead, ScopeWebhooks}},
		{nil, []string{ScopeRead, ScopeSign, ScopeWebhooks}},
	} {
		k, _, err := s.CreateAPIKey(ctx, "owner", CreateAPIKeyInput{Name: "k", Scopes: tc.in})
		if err != nil || !slices.Equal(k.Scopes, tc.want) {
			t.Errorf("CreateAPIKey(scopes %q) = %q, %v; want %q", tc.in, k.Scopes, err, tc.want)
		}
	}
	for _, bad := range [][]string{{}, {ScopeRead, "admin"}} {
		var fe *validate.FieldError
		if _, _, err := s.CreateAPIKey(ctx, "owner", CreateAPIKeyInput{Name: "k", Scopes: bad}); !errors.As(err, &fe) || fe.Field != "scopes" {
			t.Errorf("CreateAPIKey(scopes %q): %v, want a scopes field error", bad, err)
		}
	}
}
