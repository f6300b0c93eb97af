package accounts

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/provenant/provenant/shared/clock"
)

// MaxTokenLen bounds the JWT length accepted for parsing (golang-jwt
// CVE-2025-30204 was an allocation driven by header size).
const MaxTokenLen = 4096

// tokenIssuer signs and verifies session JWTs: EdDSA only, with kid, iss,
// sub, iat, exp and jti, all required on verification.
type tokenIssuer struct {
	priv   ed25519.PrivateKey
	pub    ed25519.PublicKey
	kid    string
	issuer string
	ttl    time.Duration
	clock  clock.Clock
	parser *jwt.Parser
}

// KeyID returns the kid for an Ed25519 public key: the first 8 bytes of
// its SHA-256, hex.
func KeyID(pub ed25519.PublicKey) string {
	h := sha256.Sum256(pub)
	return hex.EncodeToString(h[:8])
}

func newTokenIssuer(priv ed25519.PrivateKey, issuer string, ttl time.Duration, clk clock.Clock) *tokenIssuer {
	pub := priv.Public().(ed25519.PublicKey)
	return &tokenIssuer{
		priv: priv, pub: pub, kid: KeyID(pub), issuer: issuer, ttl: ttl, clock: clk,
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
			jwt.WithIssuer(issuer),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(5*time.Second),
			jwt.WithTimeFunc(clk.Now),
		),
	}
}

// claims are a session token's claims: the registered ones and the
// account's session version at issue ("sv"), which must still be the
// account's for the token to be accepted (see Service.EndSessions).
type claims struct {
	jwt.RegisteredClaims
	SessionVersion int64 `json:"sv,omitempty"`
}

func (t *tokenIssuer) issue(subject string, version int64, rnd io.Reader) (string, time.Time, error) {
	var jti [16]byte
	if _, err := io.ReadFull(rnd, jti[:]); err != nil {
		return "", time.Time{}, fmt.Errorf("accounts: token id: %w", err)
	}
	now := t.clock.Now()
	exp := now.Add(t.ttl)
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims{RegisteredClaims: jwt.RegisteredClaims{
		Issuer:    t.issuer,
		Subject:   subject,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
		ID:        base64.RawURLEncoding.EncodeToString(jti[:]),
	}, SessionVersion: version})
	tok.Header["kid"] = t.kid
	s, err := tok.SignedString(t.priv)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("accounts: sign token: %w", err)
	}
	return s, exp.Truncate(time.Second), nil
}

var errWrongKey = errors.New("accounts: unexpected token key or method")

func (t *tokenIssuer) parse(s string) (*claims, error) {
	if len(s) > MaxTokenLen {
		return nil, errors.New("accounts: token too long")
	}
	var claims claims
	_, err := t.parser.ParseWithClaims(s, &claims, func(tok *jwt.Token) (any, error) {
		if _, ok := tok.Method.(*jwt.SigningMethodEd25519); !ok {
			return nil, errWrongKey
		}
		if kid, _ := tok.Header["kid"].(string); kid != t.kid {
			return nil, errWrongKey
		}
		return t.pub, nil
	})
	if err != nil {
		return nil, fmt.Errorf("accounts: parse token: %w", err)
	}
	if claims.Subject == "" || claims.IssuedAt == nil {
		return nil, errors.New("accounts: token lacks sub or iat")
	}
	return &claims, nil
}
