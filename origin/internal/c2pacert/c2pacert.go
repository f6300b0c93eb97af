// Package c2pacert is the origin's certificate authority for C2PA
// manifests: one self-signed Provenant CA per deployment and one X.509
// leaf certificate per organisation (account), both with ECDSA P-256 keys
// sealed at rest under the master key that seals signing keys. Private
// keys never leave this package except as the crypto.Signer a manifest is
// signed with; they are never logged or returned.
//
// The CA is not on any public trust list: C2PA readers show our manifests
// as valid but from an untrusted signer unless the CA certificate
// (CAPEM) is added to their trust anchors.
package c2pacert

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/clock"
)

// Validity of the certificates, and when a leaf is renewed. Manifests
// carry no time-stamp, so readers judge the leaf's validity when they
// read: a file's manifest reads as expired once the leaf it was signed
// with expires. Leaves are therefore long-lived (five years), and renewed
// 90 days before their end so that a new file never gets a leaf about to
// expire.
const (
	CAValidity    = 20 * 365 * 24 * time.Hour
	LeafValidity  = 5 * 365 * 24 * time.Hour
	LeafRenewal   = 90 * 24 * time.Hour
	purposeCA     = "c2pa-ca"
	purposeLeaf   = "c2pa-leaf"
	caKey         = "c2pa/ca"
	leafKeyPrefix = "c2pa/leaf/"
)

// Extended key usages C2PA accepts for a claim signer; documentSigning
// (RFC 9336) and C2PA's own claimSigning are not in crypto/x509's list.
var (
	oidDocumentSigning = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 36}
	oidClaimSigning    = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 62558, 2, 1}
)

// Sealer seals and opens secrets under the master key (keys.Service).
type Sealer interface {
	SealSecret(purpose, id string, secret []byte) ([]byte, error)
	OpenSecret(purpose, id string, sealed []byte) ([]byte, error)
}

// Config configures an Authority; all fields but Logger are required.
type Config struct {
	Store  store.Store
	Sealer Sealer
	Clock  clock.Clock
	// Rand draws keys and serial numbers (crypto/rand.Reader in production).
	Rand io.Reader
	// Logger never receives key material; nil discards.
	Logger *slog.Logger
}

// Authority issues and keeps the CA and the organisations' certificates.
// It is safe for concurrent use; every origin process sharing a store
// shares one CA (the first to need it creates it).
type Authority struct {
	cfg Config
	log *slog.Logger
	// mu guards ca, the CA once read: it never changes afterwards, and
	// verify asks for it on every file that carries a manifest.
	mu     sync.Mutex
	cached *pair
}

// New returns an Authority.
func New(cfg Config) (*Authority, error) {
	if cfg.Store == nil || cfg.Sealer == nil || cfg.Clock == nil || cfg.Rand == nil {
		return nil, errors.New("c2pacert: Store, Sealer, Clock and Rand are required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Authority{cfg: cfg, log: log}, nil
}

// stored is a key pair at rest: the certificate and the sealed PKCS#8 key.
type stored struct {
	CertDER   []byte `json:"cert"`
	SealedKey []byte `json:"sealed_key"`
	OrgName   string `json:"org_name,omitempty"`
}

type pair struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// CA returns the CA certificate, creating the CA on first use.
func (a *Authority) CA(ctx context.Context) (*x509.Certificate, error) {
	p, err := a.ca(ctx)
	if err != nil {
		return nil, err
	}
	return p.cert, nil
}

// CAPEM returns the CA certificate in PEM, to add as a trust anchor.
func (a *Authority) CAPEM(ctx context.Context) ([]byte, error) {
	c, err := a.CA(ctx)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}), nil
}

func (a *Authority) ca(ctx context.Context) (pair, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cached != nil {
		return *a.cached, nil
	}
	var out pair
	found := false
	err := a.cfg.Store.View(ctx, func(tx store.Txn) error {
		s, err := store.GetJSON[stored](tx, []byte(caKey))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		out, err = a.open(s, purposeCA, "ca")
		found = err == nil
		return err
	})
	if err == nil && !found {
		err = a.cfg.Store.Update(ctx, func(tx store.Txn) error {
			s, err := store.GetJSON[stored](tx, []byte(caKey))
			if err == nil {
				out, err = a.open(s, purposeCA, "ca")
				return err
			}
			if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			p, s, err := a.newCA()
			if err != nil {
				return err
			}
			out = p
			return store.PutJSON(tx, []byte(caKey), s)
		})
	}
	if err != nil {
		return pair{}, fmt.Errorf("c2pacert: CA: %w", err)
	}
	a.cached = &out
	return out, nil
}

func (a *Authority) open(s stored, purpose, id string) (pair, error) {
	cert, err := x509.ParseCertificate(s.CertDER)
	if err != nil {
		return pair{}, fmt.Errorf("stored certificate: %w", err)
	}
	der, err := a.cfg.Sealer.OpenSecret(purpose, id, s.SealedKey)
	if err != nil {
		return pair{}, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return pair{}, errors.New("stored key does not parse")
	}
	ek, ok := k.(*ecdsa.PrivateKey)
	if !ok || !ek.PublicKey.Equal(cert.PublicKey) {
		return pair{}, errors.New("stored key does not match its certificate")
	}
	return pair{cert: cert, key: ek}, nil
}

func (a *Authority) seal(p pair, purpose, id, org string) (stored, error) {
	der, err := x509.MarshalPKCS8PrivateKey(p.key)
	if err != nil {
		return stored{}, err
	}
	sealed, err := a.cfg.Sealer.SealSecret(purpose, id, der)
	if err != nil {
		return stored{}, err
	}
	return stored{CertDER: p.cert.Raw, SealedKey: sealed, OrgName: org}, nil
}

func (a *Authority) serial() (*big.Int, error) {
	var b [16]byte
	if _, err := io.ReadFull(a.cfg.Rand, b[:]); err != nil {
		return nil, err
	}
	b[0] &= 0x7F
	b[0] |= 0x01 // positive, full length
	return new(big.Int).SetBytes(b[:]), nil
}

// keyID is the subject key identifier: SHA-256 of the public key bits,
// truncated to 160 bits (RFC 7093, method 1).
func keyID(pub *ecdsa.PublicKey) []byte {
	b, _ := pub.Bytes()
	h := sha256.Sum256(b)
	return h[:20]
}

func (a *Authority) newCA() (pair, stored, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), a.cfg.Rand)
	if err != nil {
		return pair{}, stored{}, err
	}
	sn, err := a.serial()
	if err != nil {
		return pair{}, stored{}, err
	}
	ski := keyID(&key.PublicKey)
	now := a.cfg.Clock.Now().UTC().Truncate(time.Second)
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject: pkix.Name{CommonName: fmt.Sprintf("Provenant C2PA CA %X", ski[:4]), Organization: []string{"Provenant"},
			OrganizationalUnit: []string{"Not on any public trust list"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(CAValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
		SubjectKeyId: ski,
	}
	der, err := x509.CreateCertificate(a.cfg.Rand, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return pair{}, stored{}, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return pair{}, stored{}, err
	}
	p := pair{cert: cert, key: key}
	s, err := a.seal(p, purposeCA, "ca", "")
	if err != nil {
		return pair{}, stored{}, err
	}
	a.log.Info("C2PA CA created", "subject", cert.Subject.CommonName)
	return p, s, nil
}

// Signer returns the organisation's manifest signer: its key and chain
// (leaf, then the CA). A leaf is issued on first use, and issued anew
// when the organisation's name changed or it expires within LeafRenewal.
func (a *Authority) Signer(ctx context.Context, accountID, orgName string) (c2pa.Signer, error) {
	ca, err := a.ca(ctx)
	if err != nil {
		return c2pa.Signer{}, err
	}
	var leaf pair
	k := []byte(leafKeyPrefix + accountID)
	current := func(s stored) (pair, bool, error) {
		p, err := a.open(s, purposeLeaf, accountID)
		if err != nil {
			return pair{}, false, err
		}
		ok := s.OrgName == orgName && a.cfg.Clock.Now().Add(LeafRenewal).Before(p.cert.NotAfter) &&
			p.cert.CheckSignatureFrom(ca.cert) == nil
		return p, ok, nil
	}
	// Most signs find the leaf as it is: read it without a write.
	ok := false
	err = a.cfg.Store.View(ctx, func(tx store.Txn) error {
		s, err := store.GetJSON[stored](tx, k)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		leaf, ok, err = current(s)
		return err
	})
	if err != nil {
		return c2pa.Signer{}, fmt.Errorf("c2pacert: certificate of %s: %w", accountID, err)
	}
	if ok {
		return c2pa.Signer{Key: leaf.key, Chain: []*x509.Certificate{leaf.cert, ca.cert}}, nil
	}
	err = a.cfg.Store.Update(ctx, func(tx store.Txn) error {
		// Another sign may have issued it meanwhile.
		s, err := store.GetJSON[stored](tx, k)
		switch {
		case err == nil:
			p, ok, err := current(s)
			if err != nil {
				return err
			}
			if ok {
				leaf = p
				return nil
			}
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		p, err := a.issue(ca, accountID, orgName)
		if err != nil {
			return err
		}
		s, err = a.seal(p, purposeLeaf, accountID, orgName)
		if err != nil {
			return err
		}
		leaf = p
		return store.PutJSON(tx, k, s)
	})
	if err != nil {
		return c2pa.Signer{}, fmt.Errorf("c2pacert: certificate of %s: %w", accountID, err)
	}
	return c2pa.Signer{Key: leaf.key, Chain: []*x509.Certificate{leaf.cert, ca.cert}}, nil
}

// issue makes a leaf with the profile C2PA requires of a claim signer:
// X.509 v3, not a CA, digitalSignature as its only (critical) key usage,
// an extended key usage of emailProtection, documentSigning and
// c2pa-kp-claimSigning (never anyExtendedKeyUsage), subject and authority
// key identifiers.
func (a *Authority) issue(ca pair, accountID, orgName string) (pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), a.cfg.Rand)
	if err != nil {
		return pair{}, err
	}
	sn, err := a.serial()
	if err != nil {
		return pair{}, err
	}
	name := strings.TrimSpace(orgName)
	if name == "" {
		name = "Provenant account " + accountID
	}
	now := a.cfg.Clock.Now().UTC().Truncate(time.Second)
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject: pkix.Name{CommonName: name, Organization: []string{name},
			OrganizationalUnit: []string{"Provenant account " + accountID}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(LeafValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection},
		UnknownExtKeyUsage:    []asn1.ObjectIdentifier{oidDocumentSigning, oidClaimSigning},
		BasicConstraintsValid: true, IsCA: false,
		SubjectKeyId: keyID(&key.PublicKey),
	}
	if tmpl.NotAfter.After(ca.cert.NotAfter) {
		tmpl.NotAfter = ca.cert.NotAfter
	}
	der, err := x509.CreateCertificate(a.cfg.Rand, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return pair{}, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return pair{}, err
	}
	a.log.Info("C2PA certificate issued", "account_id", accountID, "serial", cert.SerialNumber.Text(16))
	return pair{cert: cert, key: key}, nil
}
