package keys

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/clock"
)

func newService(t *testing.T, st store.Store, master []byte) *Service {
	t.Helper()
	s, err := New(Config{Store: st, Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), Rand: rand.Reader, MasterKey: master})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func TestAPIKeyFormat(t *testing.T) {
	s := newService(t, storetest.Badger(t), make([]byte, MasterKeySize))
	seen := map[string]bool{}
	for range 50 {
		k, err := s.newAPIKeyText()
		if err != nil {
			t.Fatal(err)
		}
		if len(k) != APIKeyLen || !strings.HasPrefix(k, "iai_") || !CheckAPIKeyFormat(k) {
			t.Fatalf("generated key %q fails its own format check", k)
		}
		if seen[k] {
			t.Fatalf("duplicate key generated")
		}
		seen[k] = true
		// Every single-character substitution is caught by the checksum.
		for i := len(APIKeyPrefix); i < len(k); i++ {
			b := []byte(k)
			b[i] = base62[(strings.IndexByte(base62, b[i])+1)%62]
			if CheckAPIKeyFormat(string(b)) {
				t.Fatalf("typo at %d of %q passes the checksum", i, k)
			}
		}
	}
	for _, bad := range []string{"", "iai_", "sk_" + strings.Repeat("a", 49), "iai_" + strings.Repeat("-", 49)} {
		if CheckAPIKeyFormat(bad) {
			t.Errorf("CheckAPIKeyFormat(%q) = true", bad)
		}
	}
}

func FuzzCheckAPIKeyFormat(f *testing.F) {
	f.Add("iai_" + strings.Repeat("0", 49))
	f.Add("iai_x")
	f.Fuzz(func(t *testing.T, s string) {
		if CheckAPIKeyFormat(s) && (len(s) != APIKeyLen || !strings.HasPrefix(s, APIKeyPrefix)) {
			t.Fatalf("accepted %q of wrong shape", s)
		}
	})
}

func TestSigningKeySealAndSign(t *testing.T) {
	st := storetest.Badger(t)
	master := bytes.Repeat([]byte{7}, MasterKeySize)
	s := newService(t, st, master)
	ctx := context.Background()
	k, err := s.CreateSigningKey(ctx, "owner-1", CreateSigningKeyInput{Name: "cam", OriginType: "camera_image"})
	if err != nil {
		t.Fatalf("CreateSigningKey: %v", err)
	}
	msg := []byte("canonical record")
	sig, meta, err := s.Sign(ctx, "owner-1", k.ID, msg)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	pub, err := meta.PublicKey()
	if err != nil || !ed25519.Verify(pub, msg, sig) {
		t.Fatalf("signature does not verify with the key's public key (%v)", err)
	}
	if _, _, err := s.Sign(ctx, "owner-2", k.ID, msg); !errors.Is(err, ErrNotFound) {
		t.Errorf("Sign by another owner err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetSigningKey(ctx, "owner-2", k.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetSigningKey by another owner err = %v, want ErrNotFound", err)
	}
	if got, err := s.LookupSigningKey(ctx, k.ID); err != nil || got.PublicKeyHex != k.PublicKeyHex {
		t.Errorf("LookupSigningKey = %+v, %v", got, err)
	}
	// The seed is not stored in clear: no 32-byte window of the raw record
	// derives the advertised public key.
	_ = st.View(ctx, func(tx store.Txn) error {
		raw, _ := tx.Get(skKey(k.ID))
		for i := 0; i+ed25519.SeedSize <= len(raw); i++ {
			if bytes.Equal(ed25519.NewKeyFromSeed(raw[i:i+ed25519.SeedSize]).Public().(ed25519.PublicKey), pub) {
				t.Errorf("private seed found in clear at offset %d", i)
			}
		}
		return nil
	})
	// Another master key cannot open it.
	wrong := newService(t, st, bytes.Repeat([]byte{8}, MasterKeySize))
	if _, _, err := wrong.Sign(ctx, "owner-1", k.ID, msg); !errors.Is(err, ErrUnsealFailed) {
		t.Errorf("Sign with wrong master key err = %v, want ErrUnsealFailed", err)
	}
}

func TestSealBindsIdentity(t *testing.T) {
	sl, err := newSealer(make([]byte, MasterKeySize), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	seed := bytes.Repeat([]byte{1}, 32)
	sealed, err := sl.seal(seed, "key-a", "owner-a")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sl.open(sealed, "key-a", "owner-a"); err != nil || !bytes.Equal(got, seed) {
		t.Fatalf("open = %x, %v", got, err)
	}
	for _, tc := range []struct{ id, owner string }{{"key-b", "owner-a"}, {"key-a", "owner-b"}} {
		if _, err := sl.open(sealed, tc.id, tc.owner); !errors.Is(err, ErrUnsealFailed) {
			t.Errorf("open as %v err = %v, want ErrUnsealFailed", tc, err)
		}
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := sl.open(sealed, "key-a", "owner-a"); !errors.Is(err, ErrUnsealFailed) {
		t.Errorf("open of tampered blob err = %v, want ErrUnsealFailed", err)
	}
}

// TestSigningKeyNameImitatingLabel: a key name that imitates the
// verification label (a fingerprint, a "(verified …)" qualifier) is
// refused; an ordinary one and a device id with a hex serial are kept.
func TestSigningKeyNameImitatingLabel(t *testing.T) {
	s := newService(t, storetest.Badger(t), bytes.Repeat([]byte{7}, MasterKeySize))
	ctx := context.Background()
	for _, name := range []string{"Camera (key 5832517e7b62c4e0)", "Desk 5832517e7b62c4e0", "Reuters (verified domain reuters.com)", "Camera - official"} {
		_, err := s.CreateSigningKey(ctx, "owner-1", CreateSigningKeyInput{Name: name, OriginType: "camera_image"})
		var fe *validate.FieldError
		if !errors.As(err, &fe) || fe.Field != "name" || !fe.Unprocessable {
			t.Errorf("CreateSigningKey(name %q) = %v, want the name refused (422)", name, err)
		}
	}
	k, err := s.CreateSigningKey(ctx, "owner-1", CreateSigningKeyInput{Name: "Photo desk 2", OriginType: "camera_image",
		DeviceID: "SN-5832517E7B62", PublicKeyHex: strings.Repeat("ab", ed25519.PublicKeySize)})
	if err != nil || k.Name != "Photo desk 2" {
		t.Errorf("CreateSigningKey(ordinary name, hex serial device id) = %+v, %v; want accepted", k, err)
	}
}
