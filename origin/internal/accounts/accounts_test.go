package accounts

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/validate"
)

func TestNormalizeEmail(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"a@example.com", "a@example.com", true},
		{"  Mixed.Case@Example.COM\t", "mixed.case@example.com", true},
		{"", "", false},
		{"no-at-sign", "", false},
		{"a@nodot", "", false},
		{"Name <a@example.com>", "", false},
		{"a@example.com, b@example.com", "", false},
		{strings.Repeat("a", 250) + "@example.com", "", false},
	}
	for _, tc := range tests {
		got, err := NormalizeEmail(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		var fe *validate.FieldError
		if err != nil && (!errors.As(err, &fe) || fe.Field != "email") {
			t.Errorf("NormalizeEmail(%q) error %v is not a FieldError for email", tc.in, err)
		}
	}
}

func TestPasswordHashPHC(t *testing.T) {
	p := PasswordParams{Memory: 64, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}
	h, err := hashPassword(rand.Reader, p, "s3cret password")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Errorf("hash %q is not a PHC argon2id string with the parameters", h)
	}
	if strings.Contains(h, "s3cret") {
		t.Errorf("hash contains the password")
	}
	h2, _ := hashPassword(rand.Reader, p, "s3cret password")
	if h == h2 {
		t.Errorf("two hashes of one password are equal: salt not random")
	}
	tests := []struct {
		name, phc, pw string
		want          bool
		wantErr       bool
	}{
		{"right", h, "s3cret password", true, false},
		{"wrong", h, "s3cret passwore", false, false},
		{"empty", h, "", false, false},
		{"bcrypt string", "$2a$10$abcdefghijklmnopqrstuv", "x", false, true},
		{"huge memory", "$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "x", false, true},
		{"bad base64", "$argon2id$v=19$m=64,t=1,p=1$!!$!!", "x", false, true},
	}
	for _, tc := range tests {
		ok, params, err := verifyPassword(tc.phc, tc.pw)
		if ok != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("%s: verifyPassword = %v, %v; want %v, err=%v", tc.name, ok, err, tc.want, tc.wantErr)
		}
		if tc.name == "right" && params != p {
			t.Errorf("parsed params = %+v, want %+v", params, p)
		}
	}
	if DefaultPasswordParams() != (PasswordParams{Memory: 19456, Time: 2, Threads: 1, KeyLen: 32, SaltLen: 16}) {
		t.Errorf("DefaultPasswordParams = %+v, want OWASP m=19456,t=2,p=1", DefaultPasswordParams())
	}
}

// Every accepted org_type has a label of its own.
func TestOrgTypeLabels(t *testing.T) {
	for _, c := range OrgTypes() {
		if l := OrgTypeLabel(c); l == c || l == "" {
			t.Errorf("org type %q has no label", c)
		}
	}
	if got := OrgTypeLabel("unknown_kind"); got != "unknown_kind" {
		t.Errorf("unknown code labelled %q", got)
	}
}

func TestHumanDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{30 * time.Minute, "30 minutes"},
		{time.Hour, "1 hour"},
		{90 * time.Minute, "1 hour 30 minutes"},
		{48 * time.Hour, "2 days"},
		{25*time.Hour + time.Minute, "1 day 1 hour 1 minute"},
		{10 * time.Second, "a minute"},
	} {
		if got := humanDuration(tc.d); got != tc.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
