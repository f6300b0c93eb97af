package accounts

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	omail "github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/clock"
)

// cheapParams keep argon2id fast in tests; the production parameters are
// pinned by TestPasswordHashPHC.
var cheapParams = PasswordParams{Memory: 64, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// env is a Service on a real Badger store and a real outbox, both in a
// temporary directory, with a fake clock.
type env struct {
	svc    *Service
	st     *store.Badger
	clk    *clock.Fake
	outbox string
	key    ed25519.PrivateKey
}

func newEnv(t testing.TB, mod ...func(*Config)) *env {
	t.Helper()
	st := storetest.Badger(t)
	e := &env{st: st, clk: clock.NewFake(t0), outbox: t.TempDir()}
	_, e.key, _ = ed25519.GenerateKey(rand.Reader)
	e.svc = e.service(t, mod...)
	return e
}

// service returns another Service on the same store, clock and outbox.
func (e *env) service(t testing.TB, mod ...func(*Config)) *Service {
	t.Helper()
	cfg := Config{Store: e.st, Clock: e.clk, Mailer: &omail.Outbox{Dir: e.outbox, Clock: e.clk},
		Rand: rand.Reader, Password: cheapParams, TokenKey: e.key}
	for _, m := range mod {
		m(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func validInput() RegisterInput {
	return RegisterInput{Email: "alice@example.com", Password: "correct horse battery", OrgName: "Example News", OrgType: "news_org"}
}

func (e *env) register(t *testing.T, in RegisterInput) User {
	t.Helper()
	u, err := e.svc.Register(context.Background(), in)
	if err != nil {
		t.Fatalf("Register(%q) = %v", in.Email, err)
	}
	return u
}

// storedHash reads the PHC string stored for account id.
func (e *env) storedHash(t *testing.T, id string) string {
	t.Helper()
	var h string
	err := e.st.View(context.Background(), func(tx store.Txn) error {
		r, err := getRecord(tx, id)
		if err == nil {
			h = r.PasswordHash
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestRegisterFieldRules(t *testing.T) {
	tests := []struct {
		name      string
		mod       func(*RegisterInput)
		wantField string // "" = accepted
	}{
		{"valid", func(*RegisterInput) {}, ""},
		{"email missing", func(in *RegisterInput) { in.Email = "" }, "email"},
		{"email blank", func(in *RegisterInput) { in.Email = "   " }, "email"},
		{"email without domain dot", func(in *RegisterInput) { in.Email = "a@localhost" }, "email"},
		{"email with display name", func(in *RegisterInput) { in.Email = "Alice <alice@example.com>" }, "email"},
		{"email too long", func(in *RegisterInput) { in.Email = strings.Repeat("a", 243) + "@example.com" }, "email"},
		{"password missing", func(in *RegisterInput) { in.Password = "" }, "password"},
		{"password 7 characters", func(in *RegisterInput) { in.Password = "1234567" }, "password"},
		{"password 8 characters", func(in *RegisterInput) { in.Password = "12345678" }, ""},
		{"password 8 multibyte characters", func(in *RegisterInput) { in.Password = "ééééééé" + "é" }, ""},
		{"password 128 characters", func(in *RegisterInput) { in.Password = strings.Repeat("p", 128) }, ""},
		{"password 129 characters", func(in *RegisterInput) { in.Password = strings.Repeat("p", 129) }, "password"},
		{"password invalid UTF-8", func(in *RegisterInput) { in.Password = "abcdefgh\xff" }, "password"},
		{"org_name missing", func(in *RegisterInput) { in.OrgName = "" }, "org_name"},
		{"org_name blank", func(in *RegisterInput) { in.OrgName = " \t " }, "org_name"},
		{"org_name 200 characters", func(in *RegisterInput) { in.OrgName = strings.Repeat("ö", 200) }, ""},
		{"org_name 201 characters", func(in *RegisterInput) { in.OrgName = strings.Repeat("o", 201) }, "org_name"},
		{"org_type missing", func(in *RegisterInput) { in.OrgType = "" }, "org_type"},
		{"org_type unknown", func(in *RegisterInput) { in.OrgType = "news_agency" }, "org_type"},
		{"org_type wrong case", func(in *RegisterInput) { in.OrgType = "News_Org" }, "org_type"},
	}
	e := newEnv(t)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := validInput()
			in.Email = fmt.Sprintf("user%d@example.com", i)
			tc.mod(&in)
			u, err := e.svc.Register(context.Background(), in)
			var fe *validate.FieldError
			switch {
			case tc.wantField == "" && err != nil:
				t.Fatalf("Register = %v, want success", err)
			case tc.wantField == "" && (u.ID == "" || u.OrgType != in.OrgType):
				t.Fatalf("Register = %+v, want a user with an id and org_type %q", u, in.OrgType)
			case tc.wantField != "" && !errors.As(err, &fe):
				t.Fatalf("Register = %v, want a *validate.FieldError for %s", err, tc.wantField)
			case tc.wantField != "" && fe.Field != tc.wantField:
				t.Fatalf("Register error field = %q (%v), want %q", fe.Field, err, tc.wantField)
			}
		})
	}
	// Only the accepted rows left an account behind.
	n := 0
	_ = e.st.View(context.Background(), func(tx store.Txn) error {
		return tx.Scan([]byte("acct/u/"), nil, func(_, _ []byte) error { n++; return nil })
	})
	if want := 5; n != want {
		t.Errorf("accounts stored = %d, want %d (rejected input must store nothing)", n, want)
	}
}

func TestRegisterNormalisesAndRefusesDuplicates(t *testing.T) {
	e := newEnv(t)
	in := validInput()
	in.Email = "  Alice@Example.COM "
	in.OrgName = "  Example News  "
	u := e.register(t, in)
	if u.Email != "alice@example.com" || u.OrgName != "Example News" {
		t.Errorf("Register stored email %q, org %q; want %q, %q", u.Email, u.OrgName, "alice@example.com", "Example News")
	}
	if got, err := e.svc.Get(context.Background(), u.ID); err != nil || got != u {
		t.Errorf("Get(%s) = %+v, %v; want %+v", u.ID, got, err, u)
	}
	for _, email := range []string{"alice@example.com", "ALICE@EXAMPLE.COM", "\talice@example.com\n"} {
		dup := validInput()
		dup.Email = email
		dup.OrgName = "Someone Else"
		_, err := e.svc.Register(context.Background(), dup)
		if !errors.Is(err, ErrEmailTaken) {
			t.Errorf("Register(%q) again = %v, want ErrEmailTaken", email, err)
		}
	}
	// The first account is untouched by the refused attempts.
	if _, err := e.svc.Login(context.Background(), "alice@example.com", in.Password); err != nil {
		t.Errorf("Login after refused duplicates = %v, want success", err)
	}
}

// Concurrent registrations of one email: the store's conflict detection
// lets exactly one through.
func TestRegisterConcurrentDuplicate(t *testing.T) {
	e := newEnv(t)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = e.svc.Register(context.Background(), validInput())
		})
	}
	wg.Wait()
	ok, taken := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrEmailTaken):
			taken++
		default:
			t.Errorf("concurrent Register = %v, want nil or ErrEmailTaken", err)
		}
	}
	if ok != 1 || taken != n-1 {
		t.Errorf("concurrent Register: %d succeeded, %d ErrEmailTaken; want 1 and %d", ok, taken, n-1)
	}
}

func TestLogin(t *testing.T) {
	e := newEnv(t)
	u := e.register(t, validInput())
	tests := []struct {
		name, email, password string
		wantErr               error
	}{
		{"right password", "alice@example.com", "correct horse battery", nil},
		{"email in other case and spaces", " ALICE@example.com ", "correct horse battery", nil},
		{"wrong password", "alice@example.com", "correct horse batterY", ErrInvalidCredentials},
		{"empty password", "alice@example.com", "", ErrInvalidCredentials},
		{"unknown email", "bob@example.com", "correct horse battery", ErrInvalidCredentials},
		{"malformed email", "not an email", "correct horse battery", ErrInvalidCredentials},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.svc.Login(context.Background(), tc.email, tc.password)
			if err != tc.wantErr { // the exact sentinel, unwrapped: callers must not learn more
				t.Fatalf("Login(%q) = %v, want %v", tc.email, err, tc.wantErr)
			}
			if tc.wantErr == nil && got != u {
				t.Errorf("Login(%q) = %+v, want %+v", tc.email, got, u)
			}
		})
	}
}

// An unknown email costs one argon2id verification with the configured
// parameters, like a wrong password, so timing does not reveal whether the
// account exists.
func TestLoginUnknownEmailDoesComparableWork(t *testing.T) {
	// Parameters expensive enough (~tens of ms) that skipping the hash
	// would be visible by orders of magnitude.
	heavy := PasswordParams{Memory: 16 << 10, Time: 2, Threads: 1, KeyLen: 32, SaltLen: 16}
	e := newEnv(t, func(c *Config) { c.Password = heavy })
	if _, p, err := verifyPassword(e.svc.dummyHash, "x"); err != nil || p != heavy {
		t.Fatalf("dummy hash params = %+v, %v; want the configured %+v", p, err, heavy)
	}
	e.register(t, validInput())
	timed := func(email string) time.Duration {
		start := time.Now()
		if _, err := e.svc.Login(context.Background(), email, "wrong password!"); !errors.Is(err, ErrInvalidCredentials) {
			t.Fatalf("Login(%q) = %v, want ErrInvalidCredentials", email, err)
		}
		return time.Since(start)
	}
	// The fastest of several runs, the two kinds interleaved: on a loaded
	// machine a burst of other work then slows both alike instead of
	// inflating every run of one kind (the known email's, measured first,
	// used to take all its runs in one such burst).
	known, unknown := time.Duration(1<<62), time.Duration(1<<62)
	for range 5 {
		known = min(known, timed("alice@example.com"))
		unknown = min(unknown, timed("nobody@example.com"))
	}
	// A generous bound: the two differ by one store read, while a shortcut
	// would answer in microseconds.
	if unknown < known/4 {
		t.Errorf("login with unknown email took %v, with wrong password %v: the unknown email skips the hash", unknown, known)
	}
}

func TestPasswordStoredWithConfiguredParamsAndUpgradedOnLogin(t *testing.T) {
	e := newEnv(t)
	u := e.register(t, validInput())
	old := e.storedHash(t, u.ID)
	if !strings.HasPrefix(old, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("stored hash %q, want argon2id with m=64,t=1,p=1", old)
	}
	if strings.Contains(old, validInput().Password) {
		t.Fatal("stored hash contains the password")
	}

	// A service configured with stronger parameters upgrades the hash on
	// the next successful login, and only then.
	stronger := PasswordParams{Memory: 128, Time: 2, Threads: 1, KeyLen: 32, SaltLen: 16}
	s2 := e.service(t, func(c *Config) { c.Password = stronger })
	if _, err := s2.Login(context.Background(), "alice@example.com", "wrong password"); !errors.Is(err, ErrInvalidCredentials) {
		t.Fatalf("Login with wrong password = %v", err)
	}
	if got := e.storedHash(t, u.ID); got != old {
		t.Errorf("a failed login changed the stored hash")
	}
	if _, err := s2.Login(context.Background(), "alice@example.com", validInput().Password); err != nil {
		t.Fatalf("Login = %v", err)
	}
	upgraded := e.storedHash(t, u.ID)
	if _, p, err := verifyPassword(upgraded, validInput().Password); err != nil || p != stronger {
		t.Errorf("hash after login has params %+v (%v), want %+v", p, err, stronger)
	}
	if _, err := s2.Login(context.Background(), "alice@example.com", validInput().Password); err != nil {
		t.Errorf("Login after the upgrade = %v", err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name string
		mod  func(*Config)
	}{
		{"no store", func(c *Config) { c.Store = nil }},
		{"no clock", func(c *Config) { c.Clock = nil }},
		{"no mailer", func(c *Config) { c.Mailer = nil }},
		{"no rand", func(c *Config) { c.Rand = nil }},
		{"short token key", func(c *Config) { c.TokenKey = c.TokenKey[:32] }},
		{"argon2 memory 0 with other fields set", func(c *Config) { c.Password.Memory = 0 }},
		{"argon2 key 8 bytes", func(c *Config) { c.Password.KeyLen = 8 }},
		{"argon2 salt 4 bytes", func(c *Config) { c.Password.SaltLen = 4 }},
	}
	for _, tc := range tests {
		cfg := Config{Store: e.st, Clock: e.clk, Mailer: &omail.Outbox{Dir: e.outbox}, Rand: rand.Reader, Password: cheapParams, TokenKey: e.key}
		tc.mod(&cfg)
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: New succeeded, want an error", tc.name)
		}
	}
}

func TestTokenIssueAndAuthenticate(t *testing.T) {
	e := newEnv(t)
	u := e.register(t, validInput())
	tok, exp, err := e.svc.IssueToken(u)
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(DefaultTokenTTL); !exp.Equal(want) {
		t.Errorf("IssueToken expiry = %v, want %v", exp, want)
	}
	tok2, _, _ := e.svc.IssueToken(u)
	if tok2 == tok {
		t.Errorf("two tokens issued in the same second are identical (no jti)")
	}

	otherKey := func() ed25519.PrivateKey { _, k, _ := ed25519.GenerateKey(rand.Reader); return k }()
	otherSvc := e.service(t, func(c *Config) { c.TokenKey = otherKey })
	foreign, _, _ := otherSvc.IssueToken(u)
	otherIssuer, _, _ := e.service(t, func(c *Config) { c.Issuer = "someone-else" }).IssueToken(u)

	claims := func() jwt.RegisteredClaims {
		return jwt.RegisteredClaims{Issuer: DefaultIssuer, Subject: u.ID, IssuedAt: jwt.NewNumericDate(t0),
			ExpiresAt: jwt.NewNumericDate(t0.Add(time.Hour)), ID: "x"}
	}
	kid := KeyID(e.key.Public().(ed25519.PublicKey))
	noExp := claims()
	noExp.ExpiresAt = nil
	noSub := claims()
	noSub.Subject = ""
	unknownSub := claims()
	unknownSub.Subject = "00000000-0000-4000-8000-000000000000"
	parts := strings.Split(tok, ".")
	tamperedPayload := parts[0] + "." + parts[1][:len(parts[1])-2] + "AA" + "." + parts[2]
	// Change the signature's first character (always full bits; the last
	// ones may be padding bits a decoder ignores, or equal "AA" already).
	first := "A"
	if parts[2][0] == 'A' {
		first = "B"
	}
	tamperedSig := parts[0] + "." + parts[1] + "." + first + parts[2][1:]

	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"issued token", tok, true},
		{"hand-made EdDSA token with the right key and kid", testkit.SignJWT(t, jwt.SigningMethodEdDSA, e.key, claims(), kid), true},
		{"other key", foreign, false},
		{"other key, our kid", testkit.SignJWT(t, jwt.SigningMethodEdDSA, otherKey, claims(), kid), false},
		{"our key, no kid", testkit.SignJWT(t, jwt.SigningMethodEdDSA, e.key, claims(), ""), false},
		{"alg none", testkit.SignJWT(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(), kid), false},
		{"HS256 keyed with the public key", testkit.SignJWT(t, jwt.SigningMethodHS256, []byte(e.key.Public().(ed25519.PublicKey)), claims(), kid), false},
		{"other issuer", otherIssuer, false},
		{"no exp", testkit.SignJWT(t, jwt.SigningMethodEdDSA, e.key, noExp, kid), false},
		{"no sub", testkit.SignJWT(t, jwt.SigningMethodEdDSA, e.key, noSub, kid), false},
		{"unknown account", testkit.SignJWT(t, jwt.SigningMethodEdDSA, e.key, unknownSub, kid), false},
		{"tampered payload", tamperedPayload, false},
		{"tampered signature", tamperedSig, false},
		{"empty", "", false},
		{"over MaxTokenLen", tok + strings.Repeat("A", MaxTokenLen), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.svc.Authenticate(context.Background(), tc.token)
			switch {
			case tc.ok && (err != nil || got != u):
				t.Errorf("Authenticate = %+v, %v; want %+v", got, err, u)
			case !tc.ok && err != ErrInvalidToken:
				t.Errorf("Authenticate = %+v, %v; want ErrInvalidToken", got, err)
			}
		})
	}
}

func TestTokenExpiryUsesTheInjectedClock(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.TokenTTL = 10 * time.Minute })
	u := e.register(t, validInput())
	tok, _, err := e.svc.IssueToken(u)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		at   time.Duration // after issue
		ok   bool
	}{
		{"just issued", 0, true},
		{"one second before expiry", 10*time.Minute - time.Second, true},
		{"within the 5 s leeway", 10*time.Minute + 4*time.Second, true},
		{"past the leeway", 10*time.Minute + 6*time.Second, false},
		{"a day later", 24 * time.Hour, false},
		{"issued in the future (clock moved back)", -time.Minute, false},
	}
	for _, tc := range tests {
		e.clk.Set(t0.Add(tc.at))
		_, err := e.svc.Authenticate(context.Background(), tok)
		if (err == nil) != tc.ok || (err != nil && err != ErrInvalidToken) {
			t.Errorf("%s: Authenticate = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// resetToken runs ForgotPassword for email and returns the token of the
// mail it produced ("" if none).
func (e *env) resetToken(t *testing.T, email string) string {
	t.Helper()
	before, err := omail.ReadOutbox(e.outbox)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.ForgotPassword(context.Background(), email); err != nil {
		t.Fatalf("ForgotPassword(%q) = %v", email, err)
	}
	e.svc.Close() // waits for the background store write and mail
	after, err := omail.ReadOutbox(e.outbox)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) == len(before) {
		return ""
	}
	if len(after) != len(before)+1 {
		t.Fatalf("ForgotPassword wrote %d mails, want 1", len(after)-len(before))
	}
	var tok string
	for _, m := range after {
		i := strings.Index(m.Body, "Reset token: ")
		if i < 0 {
			t.Fatalf("reset mail without a token: %q", m.Body)
		}
		if strings.Contains(m.Body, e.svc.cfg.ResetTTL.String()) || !strings.Contains(m.Body, "within "+humanDuration(e.svc.cfg.ResetTTL)+":") {
			t.Errorf("reset mail does not say its validity in words: %q", m.Body)
		}
		cand := strings.Fields(m.Body[i+len("Reset token: "):])[0]
		if !slices.ContainsFunc(before, func(b omail.OutboxFile) bool { return strings.Contains(b.Body, cand) }) {
			tok = cand
			if m.To != email {
				t.Errorf("reset mail sent to %q, want %q", m.To, email)
			}
		}
	}
	return tok
}

func TestForgotPasswordAnswersAlikeForUnknownEmails(t *testing.T) {
	e := newEnv(t)
	e.register(t, validInput())
	for _, email := range []string{"nobody@example.com", "not an email", ""} {
		if tok := e.resetToken(t, email); tok != "" {
			t.Errorf("ForgotPassword(%q) mailed a token", email)
		}
	}
	tok := e.resetToken(t, "alice@example.com")
	if len(tok) != 43 { // 32 bytes, base64url without padding
		t.Errorf("reset token %q has %d characters, want 43", tok, len(tok))
	}
	// Only the token's hash is stored.
	_ = e.st.View(context.Background(), func(tx store.Txn) error {
		return tx.Scan([]byte("acct/"), nil, func(k, v []byte) error {
			if strings.Contains(string(k), tok) || strings.Contains(string(v), tok) {
				t.Errorf("the reset token is stored in clear under %q", k)
			}
			return nil
		})
	})
}

func TestResetPassword(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.register(t, validInput())
	oldJWT, _, _ := e.svc.IssueToken(u)
	e.clk.Advance(2 * time.Second)

	tok := e.resetToken(t, "alice@example.com")
	var fe *validate.FieldError
	if err := e.svc.ResetPassword(ctx, tok, "short"); !errors.As(err, &fe) || fe.Field != "password" {
		t.Fatalf("ResetPassword with a 5-character password = %v, want a FieldError for password", err)
	}
	// The refused password did not consume the token.
	if err := e.svc.ResetPassword(ctx, tok, "a brand new password"); err != nil {
		t.Fatalf("ResetPassword = %v", err)
	}
	if err := e.svc.ResetPassword(ctx, tok, "yet another password"); !errors.Is(err, ErrInvalidResetToken) {
		t.Errorf("second use of the token = %v, want ErrInvalidResetToken", err)
	}
	if _, err := e.svc.Login(ctx, "alice@example.com", validInput().Password); !errors.Is(err, ErrInvalidCredentials) {
		t.Errorf("Login with the old password = %v, want ErrInvalidCredentials", err)
	}
	// A login in the reset's second gets a token that is accepted; the
	// token from before the reset, and one issued for the account as it
	// was read before the reset, are not.
	nu, err := e.svc.Login(ctx, "alice@example.com", "a brand new password")
	if err != nil {
		t.Fatalf("Login with the new password = %v", err)
	}
	if _, err := e.svc.Authenticate(ctx, oldJWT); err != ErrInvalidToken {
		t.Errorf("JWT issued before the reset: Authenticate = %v, want ErrInvalidToken", err)
	}
	sameSecond, _, _ := e.svc.IssueToken(nu)
	if _, err := e.svc.Authenticate(ctx, sameSecond); err != nil {
		t.Errorf("JWT of a login in the reset's second: Authenticate = %v", err)
	}
	stale, _, _ := e.svc.IssueToken(u)
	if _, err := e.svc.Authenticate(ctx, stale); err != ErrInvalidToken {
		t.Errorf("JWT for the account as read before the reset: Authenticate = %v, want ErrInvalidToken", err)
	}

	for _, bad := range []string{"", "not-a-token", strings.Repeat("a", 257)} {
		if err := e.svc.ResetPassword(ctx, bad, "a brand new password"); !errors.Is(err, ErrInvalidResetToken) {
			t.Errorf("ResetPassword(%.10q…) = %v, want ErrInvalidResetToken", bad, err)
		}
	}
}

func TestResetTokenExpires(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.register(t, validInput())
	tok := e.resetToken(t, "alice@example.com")
	e.clk.Advance(DefaultResetTTL)
	if err := e.svc.ResetPassword(ctx, tok, "a brand new password"); !errors.Is(err, ErrInvalidResetToken) {
		t.Fatalf("ResetPassword at expiry = %v, want ErrInvalidResetToken", err)
	}
	// The expired token was deleted, not just refused: with the clock set
	// back it still does not work.
	e.clk.Set(t0)
	if err := e.svc.ResetPassword(ctx, tok, "a brand new password"); !errors.Is(err, ErrInvalidResetToken) {
		t.Errorf("expired token after the clock moved back = %v, want ErrInvalidResetToken", err)
	}
	if _, err := e.svc.Login(ctx, "alice@example.com", validInput().Password); err != nil {
		t.Errorf("password changed by an expired token: Login = %v", err)
	}

	tok2 := e.resetToken(t, "alice@example.com")
	e.clk.Advance(DefaultResetTTL - time.Second)
	if err := e.svc.ResetPassword(ctx, tok2, "a brand new password"); err != nil {
		t.Errorf("ResetPassword one second before expiry = %v", err)
	}
}

// A reset voids every reset token issued before it.
func TestResetVoidsOlderTokens(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.register(t, validInput())
	older := e.resetToken(t, "alice@example.com")
	e.clk.Advance(time.Second)
	newer := e.resetToken(t, "alice@example.com")
	e.clk.Advance(time.Second)
	if err := e.svc.ResetPassword(ctx, newer, "a brand new password"); err != nil {
		t.Fatalf("ResetPassword(newer) = %v", err)
	}
	if err := e.svc.ResetPassword(ctx, older, "an attacker's password"); !errors.Is(err, ErrInvalidResetToken) {
		t.Errorf("ResetPassword(older) after a reset = %v, want ErrInvalidResetToken", err)
	}
	if _, err := e.svc.Login(ctx, "alice@example.com", "a brand new password"); err != nil {
		t.Errorf("Login with the password set by the newer token = %v", err)
	}
	// A token requested after the reset works.
	e.clk.Advance(time.Second)
	later := e.resetToken(t, "alice@example.com")
	if err := e.svc.ResetPassword(ctx, later, "the third password"); err != nil {
		t.Errorf("ResetPassword(token issued after the reset) = %v", err)
	}
}

// TestEndSessions: after EndSessions (logout) every token issued before is
// refused, a login right after (same second) works, and another
// account's sessions are untouched.
func TestEndSessions(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.register(t, validInput())
	other := e.register(t, RegisterInput{Email: "bob@example.com", Password: validInput().Password, OrgName: "Bob Media", OrgType: validInput().OrgType})
	a, _, _ := e.svc.IssueToken(u)
	b, _, _ := e.svc.IssueToken(u)
	o, _, _ := e.svc.IssueToken(other)
	if err := e.svc.EndSessions(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"the ended session": a, "another session of the account": b} {
		if _, err := e.svc.Authenticate(ctx, tok); err != ErrInvalidToken {
			t.Errorf("%s: Authenticate = %v, want ErrInvalidToken", name, err)
		}
	}
	if _, err := e.svc.Authenticate(ctx, o); err != nil {
		t.Errorf("another account's session: Authenticate = %v", err)
	}
	nu, err := e.svc.Login(ctx, "alice@example.com", validInput().Password)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _, _ := e.svc.IssueToken(nu)
	if _, err := e.svc.Authenticate(ctx, fresh); err != nil {
		t.Errorf("a login in the logout's second: Authenticate = %v", err)
	}
	if err := e.svc.EndSessions(ctx, "no-such-account"); !errors.Is(err, ErrNotFound) {
		t.Errorf("EndSessions of an unknown account = %v, want ErrNotFound", err)
	}
}

// BenchmarkAuthenticate is the per-request cost of a session check: the
// token's signature and claims, and the account read that carries the
// session version (on Badger).
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	e := newEnv(b)
	u, err := e.svc.Register(ctx, validInput())
	if err != nil {
		b.Fatal(err)
	}
	tok, _, _ := e.svc.IssueToken(u)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.svc.Authenticate(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}

// deadlineMailer records the deadline of the context each Send gets.
type deadlineMailer struct{ deadlines chan time.Time }

func (m deadlineMailer) Send(ctx context.Context, _ omail.Message) error {
	d, _ := ctx.Deadline()
	m.deadlines <- d
	return nil
}

// A reset mail outlives its request but not the shutdown: the Mailer gets
// a context that ends within resetMailTimeout, so a relay that hangs
// cannot hold Close forever.
func TestResetMailHasADeadline(t *testing.T) {
	m := deadlineMailer{deadlines: make(chan time.Time, 1)}
	e := newEnv(t, func(c *Config) { c.Mailer = m })
	e.register(t, validInput())
	start := time.Now()
	if err := e.svc.ForgotPassword(t.Context(), validInput().Email); err != nil {
		t.Fatal(err)
	}
	d := <-m.deadlines
	if d.IsZero() || d.After(start.Add(resetMailTimeout+time.Second)) {
		t.Fatalf("reset mail context deadline = %v, want within %v of %v", d, resetMailTimeout, start)
	}
}

// TestTokenAfterLegacyReset: an account whose password was reset before
// session versions existed (session version 0, a credentials change time)
// refuses the tokens issued up to and including the second of the reset,
// since a token's issue time has one-second resolution, and accepts the
// tokens issued in a later second.
func TestTokenAfterLegacyReset(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.register(t, validInput())
	before, _, _ := e.svc.IssueToken(u)
	e.clk.Advance(1500 * time.Millisecond)
	sameSecond, _, _ := e.svc.IssueToken(u)
	err := e.st.Update(ctx, func(tx store.Txn) error {
		r, err := getRecord(tx, u.ID)
		if err != nil {
			return err
		}
		r.SessionVersion, r.CredentialsChangedAt = 0, e.clk.Now()
		return store.PutJSON(tx, userKey(u.ID), r)
	})
	if err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(time.Second)
	after, _, _ := e.svc.IssueToken(u)
	for _, tt := range []struct {
		name, token string
		want        error
	}{
		{"issued a second before the reset", before, ErrInvalidToken},
		{"issued in the reset's second", sameSecond, ErrInvalidToken},
		{"issued in the second after the reset", after, nil},
	} {
		if _, err := e.svc.Authenticate(ctx, tt.token); err != tt.want {
			t.Errorf("%s: Authenticate = %v, want %v", tt.name, err, tt.want)
		}
	}
}
