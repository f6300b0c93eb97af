package c2pacert

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/clock"
)

type fixture struct {
	st    *store.Badger
	keys  *keys.Service
	clock *clock.Fake
	auth  *Authority
}

func newFixture(t *testing.T, master []byte) *fixture {
	t.Helper()
	return withStore(t, storetest.Badger(t), master)
}

func withStore(t *testing.T, st *store.Badger, master []byte) *fixture {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ks, err := keys.New(keys.Config{Store: st, Clock: clk, Rand: rand.Reader, MasterKey: master})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Config{Store: st, Sealer: ks, Clock: clk, Rand: rand.Reader})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{st: st, keys: ks, clock: clk, auth: a}
}

// signer is the authority's signer for account under org, or the end of
// the test.
func (f *fixture) signer(t *testing.T, account, org string) c2pa.Signer {
	t.Helper()
	s, err := f.auth.Signer(context.Background(), account, org)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLeafProfile checks the certificate profile C2PA validators require
// of a claim signer, and that the chain verifies to the CA.
func TestLeafProfile(t *testing.T) {
	f := newFixture(t, make([]byte, keys.MasterKeySize))
	s := f.signer(t, "acct1", "Acme News")
	if len(s.Chain) != 2 {
		t.Fatalf("chain has %d certificates, want leaf and CA", len(s.Chain))
	}
	leaf, ca := s.Chain[0], s.Chain[1]
	if !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 || !bytes.Equal(ca.RawIssuer, ca.RawSubject) {
		t.Fatalf("CA profile wrong: isCA=%v ku=%v", ca.IsCA, ca.KeyUsage)
	}
	if leaf.IsCA || leaf.KeyUsage != x509.KeyUsageDigitalSignature || leaf.Version != 3 {
		t.Fatalf("leaf profile wrong: isCA=%v ku=%v v=%d", leaf.IsCA, leaf.KeyUsage, leaf.Version)
	}
	if !slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageEmailProtection) || slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageAny) ||
		len(leaf.UnknownExtKeyUsage) != 2 {
		t.Fatalf("leaf extended key usage wrong: %v %v", leaf.ExtKeyUsage, leaf.UnknownExtKeyUsage)
	}
	if len(leaf.SubjectKeyId) == 0 || !bytes.Equal(leaf.AuthorityKeyId, ca.SubjectKeyId) {
		t.Fatal("leaf lacks subject or authority key identifier")
	}
	if leaf.Subject.Organization[0] != "Acme News" {
		t.Fatalf("leaf subject %v, want the organisation", leaf.Subject)
	}
	for _, ext := range leaf.Extensions {
		if ext.Id.Equal([]int{2, 5, 29, 15}) && !ext.Critical {
			t.Fatal("key usage extension not critical")
		}
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: f.clock.Now(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection}}); err != nil {
		t.Fatalf("leaf does not verify to the CA: %v", err)
	}
	if !s.Key.Public().(*ecdsa.PublicKey).Equal(leaf.PublicKey) {
		t.Fatal("signer key is not the leaf's")
	}
}

// TestKeptAndRenewed: the CA and a leaf are created once and kept; a
// renamed organisation or a leaf near expiry gets a new leaf under the
// same CA.
func TestKeptAndRenewed(t *testing.T) {
	f := newFixture(t, make([]byte, keys.MasterKeySize))
	ctx := context.Background()
	s1 := f.signer(t, "acct1", "Acme")
	s2 := f.signer(t, "acct1", "Acme")
	if !s1.Chain[0].Equal(s2.Chain[0]) || !s1.Chain[1].Equal(s2.Chain[1]) {
		t.Fatal("second use issued a new certificate")
	}
	other := f.signer(t, "acct2", "Acme")
	if other.Chain[0].Equal(s1.Chain[0]) || !other.Chain[1].Equal(s1.Chain[1]) {
		t.Fatal("accounts must have their own leaf under one CA")
	}
	renamed := f.signer(t, "acct1", "Acme Ltd")
	if renamed.Chain[0].Equal(s1.Chain[0]) || renamed.Chain[0].Subject.CommonName != "Acme Ltd" {
		t.Fatal("renamed organisation kept its old certificate")
	}
	f.clock.Advance(LeafValidity - LeafRenewal + time.Hour)
	late := f.signer(t, "acct1", "Acme Ltd")
	if late.Chain[0].Equal(renamed.Chain[0]) {
		t.Fatal("a leaf about to expire was not renewed")
	}
	pemCA, err := f.auth.CAPEM(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(pemCA)
	if b == nil || !bytes.Equal(b.Bytes, s1.Chain[1].Raw) {
		t.Fatal("CAPEM is not the CA of the chain")
	}
}

// TestSealedAtRest: no private key is stored in the clear, and another
// master key cannot open them.
func TestSealedAtRest(t *testing.T) {
	master := bytes.Repeat([]byte{7}, keys.MasterKeySize)
	f := newFixture(t, master)
	ctx := context.Background()
	s := f.signer(t, "acct1", "Acme")
	der, err := x509.MarshalPKCS8PrivateKey(s.Key)
	if err != nil {
		t.Fatal(err)
	}
	err = f.st.View(ctx, func(tx store.Txn) error {
		return tx.Scan([]byte("c2pa/"), nil, func(k, v []byte) error {
			if bytes.Contains(v, der) || bytes.Contains(v, der[len(der)-32:]) {
				t.Errorf("%s holds a private key in the clear", k)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	wrong := withStore(t, f.st, bytes.Repeat([]byte{8}, keys.MasterKeySize))
	if _, err := wrong.auth.Signer(ctx, "acct1", "Acme"); err == nil {
		t.Fatal("another master key opened the sealed keys")
	}
}

// TestConcurrentFirstUse: signs racing for an account's first certificate
// (and the CA's) all end up with the one that was stored.
func TestConcurrentFirstUse(t *testing.T) {
	f := newFixture(t, make([]byte, keys.MasterKeySize))
	ctx := context.Background()
	const n = 8
	leaves := make([]*x509.Certificate, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := f.auth.Signer(ctx, "acct1", "Acme")
			if err == nil {
				leaves[i] = s.Chain[0]
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	stored := f.signer(t, "acct1", "Acme")
	for i, l := range leaves {
		if !l.Equal(stored.Chain[0]) {
			t.Fatalf("signer %d got a certificate that was not kept", i)
		}
	}
}
