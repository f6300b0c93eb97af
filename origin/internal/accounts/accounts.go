// Package accounts owns user accounts: registration, password login
// (argon2id), JWT sessions (EdDSA), and password reset. It owns the "acct/"
// key prefix in the store.
package accounts

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/origin/internal/ids"
	omail "github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/clock"
)

// Sentinel errors callers branch on.
var (
	// ErrEmailTaken: an account with this (normalised) email exists.
	ErrEmailTaken = errors.New("accounts: email already registered")
	// ErrInvalidCredentials: unknown email or wrong password (deliberately
	// indistinguishable).
	ErrInvalidCredentials = errors.New("accounts: invalid email or password")
	// ErrInvalidToken: the JWT is malformed, expired, signed by another key
	// or algorithm, or issued before the account's credentials changed.
	ErrInvalidToken = errors.New("accounts: invalid or expired token")
	// ErrInvalidResetToken: the reset token is unknown, used or expired.
	ErrInvalidResetToken = errors.New("accounts: invalid or expired reset token")
	// ErrNotFound: no account with this id.
	ErrNotFound = errors.New("accounts: account not found")
)

// OrgTypes lists the accepted org_type values, in the spec's order.
var orgTypes = []string{"camera_manufacturer", "ai_provider", "creative_studio", "news_org", "enterprise", "individual"}

// OrgTypes returns the accepted org_type values (a fresh copy).
func OrgTypes() []string { return append([]string(nil), orgTypes...) }

// Input limits (documented in docs/api.md).
const (
	MinPasswordLen = 8   // characters
	MaxPasswordLen = 128 // characters
	MaxEmailLen    = 254 // bytes
	MaxOrgNameLen  = 200 // characters
)

// Defaults for Config fields left zero.
const (
	DefaultTokenTTL = time.Hour
	DefaultResetTTL = 30 * time.Minute
	DefaultIssuer   = "provenant-origin"
)

// User is an account as exposed to other packages. It never carries the
// password hash.
type User struct {
	ID        string
	Email     string
	OrgName   string
	OrgType   string
	CreatedAt time.Time
	// sessionVersion is the account's session version when it was read:
	// IssueToken puts it in the token.
	sessionVersion int64
}

// Config configures a Service. Store, Clock, Mailer, Rand and TokenKey are
// required.
type Config struct {
	Store  store.Store
	Clock  clock.Clock
	Mailer omail.Mailer
	// Rand is the randomness source (crypto/rand.Reader in production).
	Rand io.Reader
	// Logger for operational messages; it never receives secrets. Nil discards.
	Logger *slog.Logger
	// Password are the argon2id parameters for new hashes; zero means
	// DefaultPasswordParams. Tests inject cheaper ones.
	Password PasswordParams
	// TokenKey signs and verifies JWTs (EdDSA).
	TokenKey ed25519.PrivateKey
	// TokenTTL is the JWT lifetime; zero means DefaultTokenTTL.
	TokenTTL time.Duration
	// Issuer is the JWT iss claim; empty means DefaultIssuer.
	Issuer string
	// ResetTTL is the password reset token lifetime; zero means DefaultResetTTL.
	ResetTTL time.Duration
	// ResetURL, if set, is the link base put in reset mails; the token is
	// appended as "?token=...". Otherwise the mail carries the bare token.
	ResetURL string
}

// Service implements the account operations. It is safe for concurrent use.
type Service struct {
	cfg    Config
	log    *slog.Logger
	tokens *tokenIssuer
	// dummyHash is verified against when the email is unknown, so that a
	// login takes the same time whether or not the account exists.
	dummyHash string
	mailWG    sync.WaitGroup
	mailSem   chan struct{}
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Clock == nil || cfg.Mailer == nil || cfg.Rand == nil {
		return nil, errors.New("accounts: Store, Clock, Mailer and Rand are required")
	}
	if len(cfg.TokenKey) != ed25519.PrivateKeySize {
		return nil, errors.New("accounts: TokenKey must be an Ed25519 private key")
	}
	if cfg.Password == (PasswordParams{}) {
		cfg.Password = DefaultPasswordParams()
	}
	if err := cfg.Password.validate(); err != nil {
		return nil, err
	}
	cfg.TokenTTL = defaults.Positive(cfg.TokenTTL, DefaultTokenTTL)
	cfg.ResetTTL = defaults.Positive(cfg.ResetTTL, DefaultResetTTL)
	if cfg.Issuer == "" {
		cfg.Issuer = DefaultIssuer
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dummy, err := hashPassword(cfg.Rand, cfg.Password, "not a real password")
	if err != nil {
		return nil, err
	}
	return &Service{
		cfg:       cfg,
		log:       log,
		tokens:    newTokenIssuer(cfg.TokenKey, cfg.Issuer, cfg.TokenTTL, cfg.Clock),
		dummyHash: dummy,
		mailSem:   make(chan struct{}, 8),
	}, nil
}

// Close waits for reset mails still being handed to the Mailer; each has
// at most resetMailTimeout (30 s) from its start.
func (s *Service) Close() { s.mailWG.Wait() }

// RegisterInput is the data needed to create an account.
type RegisterInput struct {
	Email    string
	Password string
	OrgName  string
	OrgType  string
}

// record is the stored form of an account (key acct/u/<id>).
type record struct {
	ID                   string    `json:"id"`
	Email                string    `json:"email"`
	OrgName              string    `json:"org_name"`
	OrgType              string    `json:"org_type"`
	PasswordHash         string    `json:"password_hash"`
	CreatedAt            time.Time `json:"created_at"`
	CredentialsChangedAt time.Time `json:"credentials_changed_at,omitzero"`
	// SessionVersion is carried by every session token issued; raising it
	// (logout, password reset) ends every session issued before.
	SessionVersion int64 `json:"session_version,omitzero"`
}

func (r *record) user() User {
	return User{ID: r.ID, Email: r.Email, OrgName: r.OrgName, OrgType: r.OrgType, CreatedAt: r.CreatedAt, sessionVersion: r.SessionVersion}
}

func userKey(id string) []byte      { return []byte("acct/u/" + id) }
func emailKey(email string) []byte  { return []byte("acct/e/" + email) }
func resetKey(hash [32]byte) []byte { return fmt.Appendf([]byte("acct/rt/"), "%x", hash) }
func hashToken(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }

// orgNamePrefix is the name index of accounts whose organisation names
// fold alike (validate.FoldName): acct/n/<sha256 of the folded name>/<id>.
func orgNamePrefix(name string) []byte {
	return fmt.Appendf([]byte("acct/n/"), "%x/", sha256.Sum256([]byte(validate.FoldName(name))))
}
func orgNameKey(name, id string) []byte { return append(orgNamePrefix(name), id...) }

// NormalizeEmail trims surrounding space and lower-cases the address; it
// reports a *validate.FieldError for anything that is not a bare
// addr-spec ("a@b.c", no display name) of at most MaxEmailLen bytes.
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	if e == "" {
		return "", validate.Field("email", "is required")
	}
	if len(e) > MaxEmailLen {
		return "", validate.Field("email", "is too long")
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" || !strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".") {
		return "", validate.Field("email", "is not a valid email address")
	}
	return e, nil
}

func validatePassword(field, pw string) error {
	n := utf8.RuneCountInString(pw)
	switch {
	case pw == "":
		return validate.Field(field, "is required")
	case !utf8.ValidString(pw):
		return validate.Field(field, "must be valid UTF-8")
	case n < MinPasswordLen:
		return validate.Field(field, fmt.Sprintf("must be at least %d characters", MinPasswordLen))
	case n > MaxPasswordLen:
		return validate.Field(field, fmt.Sprintf("must be at most %d characters", MaxPasswordLen))
	}
	return nil
}

func validOrgType(t string) bool {
	for _, v := range orgTypes {
		if v == t {
			return true
		}
	}
	return false
}

// Register creates an account. It returns a validate.Errors listing every
// invalid field and ErrEmailTaken if the normalised email is registered.
func (s *Service) Register(ctx context.Context, in RegisterInput) (User, error) {
	var errs validate.Errors
	email, err := NormalizeEmail(in.Email)
	_ = errs.Check(err)
	_ = errs.Check(validatePassword("password", in.Password))
	// org_name is copied into every record the account signs and shown to
	// everyone who verifies them: the name rules refuse what would forge
	// or disguise it (docs/verification.md, "Who a signer is").
	org, err := validate.DisplayName("org_name", in.OrgName, MaxOrgNameLen)
	if err != nil {
		_ = errs.Check(err)
	} else if org == "" {
		errs.Add("org_name", "is required")
	}
	switch {
	case in.OrgType == "":
		errs.Add("org_type", "is required")
	case !validOrgType(in.OrgType):
		errs.Add("org_type", "must be one of "+strings.Join(orgTypes, ", "))
	}
	if err := errs.Err(); err != nil {
		return User{}, err
	}
	id, err := ids.NewUUID(s.cfg.Rand)
	if err != nil {
		return User{}, err
	}
	hash, err := hashPassword(s.cfg.Rand, s.cfg.Password, in.Password)
	if err != nil {
		return User{}, err
	}
	rec := record{ID: id, Email: email, OrgName: org, OrgType: in.OrgType, PasswordHash: hash, CreatedAt: s.cfg.Clock.Now().UTC()}
	val, err := json.Marshal(&rec)
	if err != nil {
		return User{}, fmt.Errorf("accounts: encode: %w", err)
	}
	err = s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		if _, err := tx.Get(emailKey(email)); err == nil {
			return ErrEmailTaken
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := tx.Set(emailKey(email), []byte(id)); err != nil {
			return err
		}
		if err := tx.Set(orgNameKey(org, id), nil); err != nil {
			return err
		}
		return tx.Set(userKey(id), val)
	})
	if err != nil {
		return User{}, fmt.Errorf("accounts: register: %w", err)
	}
	s.log.Info("account registered", "account_id", id)
	return rec.user(), nil
}

func getRecord(tx store.Txn, id string) (*record, error) {
	r, err := store.GetJSONOr[record](tx, userKey(id), ErrNotFound, "accounts: "+id)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func lookupEmail(tx store.Txn, email string) (*record, error) {
	id, err := tx.Get(emailKey(email))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return getRecord(tx, string(id))
}

// Get returns the account with id, or ErrNotFound.
func (s *Service) Get(ctx context.Context, id string) (User, error) {
	var rec *record
	err := s.cfg.Store.View(ctx, func(tx store.Txn) (err error) {
		rec, err = getRecord(tx, id)
		return err
	})
	if err != nil {
		return User{}, fmt.Errorf("accounts: get: %w", err)
	}
	return rec.user(), nil
}

// Login checks email and password and returns the account, or
// ErrInvalidCredentials. It takes the same time whether or not the email
// is registered. A hash made with parameters other than the configured
// ones is upgraded after a successful login.
func (s *Service) Login(ctx context.Context, email, password string) (User, error) {
	norm, nerr := NormalizeEmail(email)
	var rec *record
	if nerr == nil {
		err := s.cfg.Store.View(ctx, func(tx store.Txn) (err error) {
			rec, err = lookupEmail(tx, norm)
			return err
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return User{}, fmt.Errorf("accounts: login: %w", err)
		}
	}
	if rec == nil {
		_, _, _ = verifyPassword(s.dummyHash, password)
		return User{}, ErrInvalidCredentials
	}
	ok, params, err := verifyPassword(rec.PasswordHash, password)
	if err != nil {
		return User{}, fmt.Errorf("accounts: login %s: %w", rec.ID, err)
	}
	if !ok {
		return User{}, ErrInvalidCredentials
	}
	if params != s.cfg.Password {
		if err := s.rehash(ctx, rec.ID, rec.PasswordHash, password); err != nil {
			s.log.Warn("password rehash failed", "account_id", rec.ID, "err", err)
		}
	}
	return rec.user(), nil
}

func (s *Service) rehash(ctx context.Context, id, oldHash, password string) error {
	h, err := hashPassword(s.cfg.Rand, s.cfg.Password, password)
	if err != nil {
		return err
	}
	return s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		r, err := getRecord(tx, id)
		if err != nil {
			return err
		}
		if r.PasswordHash != oldHash { // changed concurrently; leave it
			return nil
		}
		r.PasswordHash = h
		return store.PutJSON(tx, userKey(id), r)
	})
}

// IssueToken returns a signed JWT for u and its expiry time. u must come
// from this service (Login, Register, Authenticate): the token carries the
// account's session version read with it.
func (s *Service) IssueToken(u User) (string, time.Time, error) {
	return s.tokens.issue(u.ID, u.sessionVersion, s.cfg.Rand)
}

// EndSessions ends every session of the account: each token issued
// before is refused from now on, by every origin sharing the store (the
// account's session version, checked on each request, is raised).
// Logging out calls it; a password reset does the same.
func (s *Service) EndSessions(ctx context.Context, accountID string) error {
	err := s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		r, err := getRecord(tx, accountID)
		if err != nil {
			return err
		}
		r.SessionVersion++
		return store.PutJSON(tx, userKey(accountID), r)
	})
	if err != nil {
		return fmt.Errorf("accounts: end sessions: %w", err)
	}
	return nil
}

// TokenTTL returns the lifetime of tokens issued by IssueToken.
func (s *Service) TokenTTL() time.Duration { return s.cfg.TokenTTL }

// Authenticate verifies a JWT and returns its account. Any failure,
// including a token of a session that was ended (logout, password reset:
// its session version is no longer the account's) or for a deleted
// account, is reported as ErrInvalidToken (internal store
// errors are returned wrapped as they are).
func (s *Service) Authenticate(ctx context.Context, token string) (User, error) {
	claims, err := s.tokens.parse(token)
	if err != nil {
		return User{}, ErrInvalidToken
	}
	var rec *record
	err = s.cfg.Store.View(ctx, func(tx store.Txn) (err error) {
		rec, err = getRecord(tx, claims.Subject)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return User{}, ErrInvalidToken
	}
	if err != nil {
		return User{}, fmt.Errorf("accounts: authenticate: %w", err)
	}
	if claims.SessionVersion != rec.SessionVersion {
		return User{}, ErrInvalidToken
	}
	// An account whose password was reset before session versions
	// existed: its tokens from before the reset are refused by time (iat
	// has one-second resolution; the same second is refused too).
	if rec.SessionVersion == 0 && !rec.CredentialsChangedAt.IsZero() && claims.IssuedAt.Unix() <= rec.CredentialsChangedAt.Unix() {
		return User{}, ErrInvalidToken
	}
	return rec.user(), nil
}
