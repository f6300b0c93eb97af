package content

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/wire"
)

var t0 = time.Date(2026, 5, 6, 7, 0, 0, 0, time.UTC)

// env is a content Service over a real Badger store in a temp dir, with the
// real account and key services and the real anchoring queue and proof
// reader (no chain: nothing is ever verified on chain here).
type env struct {
	t     *testing.T
	st    *store.Badger
	clk   *clock.Fake
	accts *accounts.Service
	keys  *keys.Service
	pub   *eventLog
	cfg   Config
	svc   *Service
}

// eventLog is an events.Publisher that writes one key per event through the
// transaction (as the webhook queue does) and remembers the events whose
// transaction committed (it is told by fail which ones to refuse).
type eventLog struct {
	testkit.Events
	fail error
}

func (l *eventLog) Publish(txn store.Txn, ev events.Event) error {
	if l.fail != nil {
		return l.fail
	}
	l.Record(ev)
	return txn.Set([]byte("test-ev/"+ev.Type+"/"+time.Now().String()), nil)
}

// newDeps opens the real services a Service stands on: a Badger store in
// a temporary directory, accounts (with cheap password hashing) and keys,
// on a fake clock at t0.
func newDeps(tb testing.TB) (*store.Badger, *clock.Fake, *accounts.Service, *keys.Service) {
	tb.Helper()
	st := storetest.Badger(tb)
	clk := clock.NewFake(t0)
	acc, err := accounts.New(accounts.Config{
		Store: st, Clock: clk, Rand: rand.Reader, Mailer: &mail.Outbox{Dir: tb.TempDir(), Clock: clk},
		Password: accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16},
		TokenKey: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(acc.Close)
	ks, err := keys.New(keys.Config{Store: st, Clock: clk, Rand: rand.Reader, MasterKey: bytes.Repeat([]byte{7}, keys.MasterKeySize)})
	if err != nil {
		tb.Fatal(err)
	}
	return st, clk, acc, ks
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, clk, acc, ks := newDeps(t)
	near, err := LoadNear(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, st: st, clk: clk, accts: acc, keys: ks, pub: &eventLog{}}
	// The lookups read the in-memory index, as the server's do.
	e.cfg = Config{Store: st, Keys: ks, Accounts: acc, Clock: clk, Rand: rand.Reader, Events: e.pub,
		Chain: ChainConfig{Queue: anchor.NewQueue(clk), Proofs: pendingProofs{anchor.NewProver(st)}}, Near: NearConfig{Index: near}}
	e.svc = e.service(e.cfg)
	return e
}

func (e *env) service(cfg Config) *Service {
	e.t.Helper()
	s, err := New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// pendingProofs reports the stored proof without a chain: a record in the
// queue is pending with its proof; a record never queued is an error (the
// tests below always queue).
type pendingProofs struct{ p *anchor.Prover }

func (pp pendingProofs) AnchorState(ctx context.Context, id string, leaf anchor.Hash) (anchor.State, error) {
	p, err := pp.p.Proof(ctx, id)
	if err != nil {
		return anchor.State{}, err
	}
	if p.LeafHash != leaf {
		return anchor.State{Outcome: anchor.Invalid, Detail: "leaf mismatch", Proof: &p}, nil
	}
	return anchor.State{Outcome: anchor.Pending, Detail: "pending: queued", Proof: &p}, nil
}

type owner struct {
	id    string
	keyID string
	key   keys.SigningKey
}

// newOwner registers an account and creates a camera signing key for it.
func (e *env) newOwner(email, org string) owner {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.accts.Register(ctx, accounts.RegisterInput{Email: email, Password: "correct horse battery", OrgName: org, OrgType: "news_org"})
	if err != nil {
		e.t.Fatalf("register %s: %v", email, err)
	}
	k, err := e.keys.CreateSigningKey(ctx, u.ID, keys.CreateSigningKeyInput{Name: "Camera 1", OriginType: "camera_image"})
	if err != nil {
		e.t.Fatalf("signing key: %v", err)
	}
	return owner{id: u.ID, keyID: k.ID, key: k}
}

// photo returns a JPEG of a textured synthetic scene (smooth gradients,
// edges and noise) large enough for the watermark.
func photo(t *testing.T, seed uint64, w, h int) []byte {
	t.Helper()
	r := mrand.New(mrand.NewPCG(seed, seed*0x9e3779b97f4a7c15+1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	cx, cy, rad := float64(w)*(0.3+0.4*r.Float64()), float64(h)*(0.3+0.4*r.Float64()), float64(min(w, h))/4
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 90 + 80*float64(x)/float64(w) + 40*float64(y)/float64(h)
			dx, dy := float64(x)-cx, float64(y)-cy
			if dx*dx+dy*dy < rad*rad {
				v += 50
			}
			if (x/37+y/29)%2 == 0 {
				v -= 25
			}
			v += r.NormFloat64() * 10
			img.Set(x, y, color.RGBA{u8(v), u8(v*0.85 + 20), u8(230 - v*0.6), 255})
		}
	}
	return testkit.EncodeJPEG(t, img, 88)
}

func u8(v float64) uint8 { return uint8(min(max(v, 0), 255)) }

func reencode(t *testing.T, file []byte, quality int) []byte {
	t.Helper()
	return testkit.EncodeJPEG(t, testkit.DecodeJPEG(t, file), quality)
}

func (e *env) sign(o owner, file []byte, name string) *SignResult {
	e.t.Helper()
	res, err := e.svc.Sign(context.Background(), SignInput{Owner: o.id, SigningKeyID: o.keyID, File: file, Filename: name})
	if err != nil {
		e.t.Fatalf("Sign(%s): %v", name, err)
	}
	return res
}

func (e *env) record(id string) *Record {
	e.t.Helper()
	var r *Record
	err := e.st.View(context.Background(), func(tx store.Txn) (err error) {
		r, err = getRecord(tx, id)
		return err
	})
	if err != nil {
		e.t.Fatalf("record %s: %v", id, err)
	}
	return r
}

func (e *env) stats(o owner) Stats {
	e.t.Helper()
	st, err := e.svc.Stats(context.Background(), o.id)
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

func TestSign(t *testing.T) {
	e := newEnv(t)
	alice := e.newOwner("alice@example.com", "Example News")
	file := photo(t, 1, 640, 512)
	res := e.sign(alice, file, "dir/holiday.jpg")
	r := res.Record

	origSum := sha256.Sum256(file)
	outSum := sha256.Sum256(res.File)
	sg, err := r.Signed()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := record.Verify(sg)
	if err != nil {
		t.Fatalf("stored signature does not verify: %v", err)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"owner", r.Owner, alice.id},
		{"signing key", r.SigningKeyID, alice.keyID},
		{"source", r.Source, SourceSign},
		{"sha256 (of the output)", r.SHA256, hex.EncodeToString(outSum[:])},
		{"original sha256", r.OriginalSHA256, hex.EncodeToString(origSum[:])},
		{"filename (path stripped)", r.OriginalFilename, "holiday.jpg"},
		{"origin type", r.OriginType, "camera_image"},
		{"org", r.Signer.OrgName, "Example News"},
		{"signer key", r.Signer.PublicKey, alice.key.PublicKeyHex},
		{"size", [2]int{r.Width, r.Height}, [2]int{640, 512}},
		{"blockchain status", r.BlockchainStatus, wire.StatusPending},
		{"status", r.Status, StatusActive},
		{"created", r.CreatedAt, t0},
		{"canonical sha256", hex.EncodeToString(parsed.SHA256[:]), r.SHA256},
		{"canonical payload", hex.EncodeToString(parsed.WatermarkPayload), r.WatermarkPayloadHex},
		{"content type", res.ContentType, "image/jpeg"},
		{"certificate id", res.Certificate.RecordID, r.ID},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if stored := e.record(r.ID); stored.SignatureHex != r.SignatureHex || stored.WatermarkPayloadHex != r.WatermarkPayloadHex {
		t.Errorf("stored record differs from the returned one")
	}

	// The queue entry was written with the record: its leaf hash is the
	// record's, and the owner is notified once.
	p, err := anchor.NewProver(e.st).Proof(context.Background(), r.ID)
	if err != nil {
		t.Fatalf("no anchoring queue entry: %v", err)
	}
	if p.LeafHash != anchor.Hash(sg.LeafHash()) || p.Status != anchor.StatusPending {
		t.Errorf("queued proof = %+v, want leaf %x pending", p, sg.LeafHash())
	}
	if got := e.pub.Types(); len(got) != 1 || got[0] != events.ContentSigned {
		t.Errorf("events = %v, want [content.signed]", got)
	}

	// The same upload signed again is a new record with a new payload.
	e.clk.Advance(time.Second)
	again := e.sign(alice, file, "holiday.jpg")
	if again.Record.ID == r.ID || again.Record.WatermarkPayloadHex == r.WatermarkPayloadHex || again.Record.SHA256 == r.SHA256 {
		t.Errorf("second signing reused id, payload or output: %s/%s vs %s/%s", again.Record.ID, again.Record.WatermarkPayloadHex, r.ID, r.WatermarkPayloadHex)
	}
	if st := e.stats(alice); st.TotalSigned != 2 || st.PendingBatch != 2 || len(st.Recent) != 2 || st.Recent[0].ID != again.Record.ID {
		t.Errorf("stats = %+v, want 2 signed, 2 pending, newest first", st)
	}
}

// constReader returns the same bytes forever: every payload it yields is the
// same, so a second signing cannot find an unused one.
type constReader byte

func (c constReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

func TestSignErrors(t *testing.T) {
	e := newEnv(t)
	alice := e.newOwner("alice@example.com", "Example News")
	bob := e.newOwner("bob@example.com", "Other Org")
	good := photo(t, 2, 512, 512)
	tests := []struct {
		name    string
		in      SignInput
		wantErr error
	}{
		{"another account's key", SignInput{Owner: bob.id, SigningKeyID: alice.keyID, File: good}, keys.ErrNotFound},
		{"unknown key", SignInput{Owner: alice.id, SigningKeyID: "00000000-0000-4000-8000-000000000000", File: good}, keys.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.Sign(context.Background(), tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Sign err = %v, want %v", err, tt.wantErr)
			}
		})
	}
	t.Run("not an image", func(t *testing.T) {
		if _, err := e.svc.Sign(context.Background(), SignInput{Owner: alice.id, SigningKeyID: alice.keyID, File: []byte("GIF89a not really")}); err == nil {
			t.Errorf("Sign of garbage succeeded")
		}
	})
	if st := e.stats(alice); st.TotalSigned != 0 {
		t.Errorf("failed signings counted: %+v", st)
	}

	t.Run("payload exhausted", func(t *testing.T) {
		cfg := e.cfg
		cfg.Rand = constReader(0x42)
		fixed := e.service(cfg)
		in := SignInput{Owner: alice.id, SigningKeyID: alice.keyID, File: good}
		if _, err := fixed.Sign(context.Background(), in); err != nil {
			t.Fatalf("first Sign: %v", err)
		}
		if _, err := fixed.Sign(context.Background(), in); !errors.Is(err, ErrPayloadExhausted) {
			t.Errorf("second Sign with the same random bytes: err = %v, want ErrPayloadExhausted", err)
		}
	})

	t.Run("one transaction", func(t *testing.T) {
		// The event publisher refuses: the record, its indexes, the
		// counters and the queue entry must all be rolled back.
		before := e.stats(alice).TotalSigned
		e.pub.fail = errors.New("subscriber down")
		defer func() { e.pub.fail = nil }()
		_, err := e.svc.Sign(context.Background(), SignInput{Owner: alice.id, SigningKeyID: alice.keyID, File: photo(t, 4, 512, 512)})
		if err == nil {
			t.Fatal("Sign succeeded although the event could not be published")
		}
		if st := e.stats(alice); st.TotalSigned != before {
			t.Errorf("signed = %d after a failed sign, want %d", st.TotalSigned, before)
		}
		n := 0
		_ = e.st.View(context.Background(), func(tx store.Txn) error {
			return tx.Scan([]byte("anchor/r/"), nil, func(_, _ []byte) error { n++; return nil })
		})
		if n != int(before) {
			t.Errorf("anchoring queue holds %d records, want %d (the failed sign's entry must roll back)", n, before)
		}
	})
}

func TestVerify(t *testing.T) {
	e := newEnv(t)
	alice := e.newOwner("alice@example.com", "Example News")
	signed := e.sign(alice, photo(t, 10, 640, 480), "a.jpg")
	revoked := e.sign(alice, photo(t, 11, 640, 480), "b.jpg")
	if _, err := e.svc.Revoke(context.Background(), alice.id, revoked.Record.ID, "posted by mistake"); err != nil {
		t.Fatal(err)
	}
	original := photo(t, 10, 640, 480)
	tests := []struct {
		name          string
		file          []byte
		wantRecord    string
		wantAuthentic bool
		wantMatch     verdict.Match
		wantDetail    string // in some check's details
	}{
		{"signed output", signed.File, signed.Record.ID, true, verdict.MatchExact, ""},
		{"original upload", original, signed.Record.ID, true, verdict.MatchExact, "original"},
		{"re-encoded copy", reencode(t, signed.File, 80), signed.Record.ID, true, verdict.MatchReencoded, ""},
		{"unrelated image", photo(t, 99, 640, 480), "", false, verdict.MatchNone, ""},
		{"revoked record", revoked.File, revoked.Record.ID, false, verdict.MatchExact, "revoked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.svc.Verify(context.Background(), tt.file, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Response
			// A record found for a file that is not authentic is named
			// only in resembles (no endorsement without authenticity).
			id := got.RecordID
			if !got.Authentic && got.Resembles != nil {
				if id != "" || got.Signer != nil || got.Origin != nil {
					t.Errorf("not authentic: record_id %q signer %v origin %v, want none (resembles %+v)", id, got.Signer, got.Origin, got.Resembles)
				}
				id = got.Resembles.RecordID
			}
			if id != tt.wantRecord || got.Authentic != tt.wantAuthentic || res.Match != tt.wantMatch {
				t.Errorf("verify = record %q authentic %v match %v, want %q %v %v (checks %+v)",
					id, got.Authentic, res.Match, tt.wantRecord, tt.wantAuthentic, tt.wantMatch, got.Checks)
			}
			if tt.wantDetail != "" {
				all := strings.Join([]string{got.Checks.SHA256.Details, got.Checks.Watermark.Details,
					got.Checks.PerceptualHash.Details, got.Checks.Blockchain.Details}, " | ")
				if !strings.Contains(all, tt.wantDetail) {
					t.Errorf("checks %q do not mention %q", all, tt.wantDetail)
				}
			}
		})
	}
	// Matches were counted for the owner; the unrelated image was not.
	if st := e.stats(alice); st.TotalVerified != 4 || st.Revoked != 1 {
		t.Errorf("stats = %+v, want 4 verified, 1 revoked", st)
	}
}

// registration builds and signs, with o's key through the key service, the
// canonical record of a file known only by its hashes, under a fresh
// record id.
func (e *env) registration(o owner, org string, seed byte, payload string) RegisterInput {
	e.t.Helper()
	var id [16]byte
	if _, err := io.ReadFull(rand.Reader, id[:]); err != nil {
		e.t.Fatal(err)
	}
	id[6], id[8] = id[6]&0x0f|0x40, id[8]&0x3f|0x80
	return e.registrationWithID(o, org, seed, payload, hexUUID(id))
}

func (e *env) registrationWithID(o owner, org string, seed byte, payload, id string) RegisterInput {
	e.t.Helper()
	sum := sha256.Sum256([]byte{seed})
	// Distinct seeds are distinct pictures: hashes spread over every bit
	// (register refuses hashes near another account's).
	hs := sha512.Sum512([]byte{seed})
	ph := phash.Hash{P64: binary.BigEndian.Uint64(hs[0:]), P256: [4]uint64{binary.BigEndian.Uint64(hs[8:]),
		binary.BigEndian.Uint64(hs[16:]), binary.BigEndian.Uint64(hs[24:]), binary.BigEndian.Uint64(hs[32:])}}
	rid, err := record.ParseID(id)
	if err != nil {
		e.t.Fatal(err)
	}
	pub, _ := o.key.PublicKey()
	ts := e.clk.Now().UTC().Truncate(time.Millisecond)
	var wm []byte
	if payload != "" {
		wm, _ = hex.DecodeString(payload)
	}
	rec := &record.Record{ID: rid, SHA256: sum, PerceptualHash: ph, SignerPublicKey: pub, Timestamp: ts,
		OriginType: "camera_image", Org: org, WatermarkPayload: wm}
	canon, err := rec.Encode()
	if err != nil {
		e.t.Fatal(err)
	}
	sig, _, err := e.keys.Sign(context.Background(), o.id, o.keyID, canon)
	if err != nil {
		e.t.Fatal(err)
	}
	return RegisterInput{Owner: o.id, RecordID: rid.String(), SHA256: hex.EncodeToString(sum[:]), PerceptualHash: ph.String(),
		WatermarkPayloadHex: payload, SignatureHex: hex.EncodeToString(sig), SigningKeyID: o.keyID,
		Timestamp: ts.Format(time.RFC3339Nano), OriginalFilename: "remote.jpg"}
}

func hexUUID(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func TestRegister(t *testing.T) {
	e := newEnv(t)
	alice := e.newOwner("alice@example.com", "Example News")
	bob := e.newOwner("bob@example.com", "Other Org")
	ctx := context.Background()

	first := e.registration(alice, "Example News", 1, "00000000000000aa")
	r, err := e.svc.Register(ctx, first)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	if r.ID != first.RecordID || r.Source != SourceRegister || r.SHA256 != first.SHA256 || r.BlockchainStatus != wire.StatusPending {
		t.Errorf("registered record = %+v", r)
	}
	if _, err := anchor.NewProver(e.st).Proof(ctx, r.ID); err != nil {
		t.Errorf("registered record not queued for anchoring: %v", err)
	}

	tamperedSig := e.registration(alice, "Example News", 2, "")
	sig, _ := hex.DecodeString(tamperedSig.SignatureHex)
	sig[0] ^= 1
	tamperedSig.SignatureHex = hex.EncodeToString(sig)
	wrongOrg := e.registration(alice, "Someone Else", 3, "") // signed over another org name
	sameID := e.registrationWithID(alice, "Example News", 4, "", first.RecordID)
	samePayload := e.registration(alice, "Example News", 5, "00000000000000aa")
	badHex := e.registration(alice, "Example News", 6, "")
	badHex.SHA256 = "zz"
	otherKey := e.registration(alice, "Example News", 7, "")
	otherKey.Owner = bob.id

	tests := []struct {
		name    string
		in      RegisterInput
		wantErr error
	}{
		{"same record again", first, ErrDuplicate},
		{"record id in use", sameID, ErrDuplicate},
		{"watermark payload in use", samePayload, ErrDuplicate},
		{"signature does not verify", tamperedSig, ErrBadSignature},
		{"signed over another org", wrongOrg, ErrBadSignature},
		{"key of another account", otherKey, keys.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.svc.Register(ctx, tt.in); !errors.Is(err, tt.wantErr) {
				t.Errorf("Register err = %v, want %v", err, tt.wantErr)
			}
		})
	}
	t.Run("malformed sha256", func(t *testing.T) {
		_, err := e.svc.Register(ctx, badHex)
		if err == nil || !strings.Contains(err.Error(), "sha256") {
			t.Errorf("Register err = %v, want a field error naming sha256", err)
		}
	})
	if st := e.stats(alice); st.TotalSigned != 1 {
		t.Errorf("signed = %d, want 1 (only the first registration)", st.TotalSigned)
	}
}

func TestBatchAnchored(t *testing.T) {
	e := newEnv(t)
	alice := e.newOwner("alice@example.com", "Example News")
	bob := e.newOwner("bob@example.com", "Other Org")
	ctx := context.Background()
	a1, err := e.svc.Register(ctx, e.registration(alice, "Example News", 1, ""))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := e.svc.Register(ctx, e.registration(alice, "Example News", 2, ""))
	if err != nil {
		t.Fatal(err)
	}
	b1, err := e.svc.Register(ctx, e.registration(bob, "Other Org", 3, ""))
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Hour)
	batch := anchor.AnchoredBatch{BatchID: "1", LeafCount: 3, TxHash: anchor.Hash{0xde, 0xad}, BlockNumber: 9, Network: "dev",
		RecordIDs: []string{a1.ID, b1.ID, "not-a-record"}, Accounts: map[string]int{alice.id: 1, bob.id: 1}, AnchoredAt: at}
	anchorBatch := func() {
		t.Helper()
		if err := e.st.Update(ctx, func(txn store.Txn) error { return e.svc.BatchAnchored(txn, batch) }); err != nil {
			t.Fatalf("BatchAnchored: %v", err)
		}
	}
	anchorBatch()
	check := func(when string) {
		t.Helper()
		for _, c := range []struct {
			id       string
			anchored bool
		}{{a1.ID, true}, {b1.ID, true}, {a2.ID, false}} {
			r := e.record(c.id)
			switch {
			case c.anchored && (r.BlockchainStatus != wire.StatusAnchored || r.BlockchainTx != batch.TxHash.String() || r.AnchoredAt == nil || !r.AnchoredAt.Equal(at)):
				t.Errorf("%s: record %s = %s %s %v, want anchored in %s at %v", when, c.id, r.BlockchainStatus, r.BlockchainTx, r.AnchoredAt, batch.TxHash, at)
			case !c.anchored && (r.BlockchainStatus != wire.StatusPending || r.BlockchainTx != "" || r.AnchoredAt != nil):
				t.Errorf("%s: record %s = %s, want pending", when, c.id, r.BlockchainStatus)
			}
		}
		if st := e.stats(alice); st.BlockchainAnchored != 1 || st.PendingBatch != 1 {
			t.Errorf("%s: alice stats = %+v, want 1 anchored, 1 pending", when, st)
		}
		if st := e.stats(bob); st.BlockchainAnchored != 1 || st.PendingBatch != 0 {
			t.Errorf("%s: bob stats = %+v, want 1 anchored, 0 pending", when, st)
		}
	}
	check("after the batch")
	// A replay (the batcher's transaction re-run, or the same batch
	// reported again) changes nothing, not even the anchoring time.
	batch.AnchoredAt = at.Add(time.Hour)
	anchorBatch()
	batch.AnchoredAt = at
	check("after a replay")
}

func TestListAndSearch(t *testing.T) {
	e := newEnv(t)
	alice := e.newOwner("alice@example.com", "Example News")
	bob := e.newOwner("bob@example.com", "Other Org")
	ctx := context.Background()
	var ids []string // alice's, in creation order
	for i := range 5 {
		r, err := e.svc.Register(ctx, e.registration(alice, "Example News", byte(10+i), ""))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
		e.clk.Advance(time.Minute)
	}
	rb, err := e.svc.Register(ctx, e.registration(bob, "Other Org", 20, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Revoke(ctx, alice.id, ids[1], ""); err != nil {
		t.Fatal(err)
	}
	err = e.st.Update(ctx, func(txn store.Txn) error {
		return e.svc.BatchAnchored(txn, anchor.AnchoredBatch{BatchID: "1", TxHash: anchor.Hash{1}, RecordIDs: []string{ids[0], ids[3]}, AnchoredAt: t0})
	})
	if err != nil {
		t.Fatal(err)
	}
	sha2 := e.record(ids[2]).SHA256

	tests := []struct {
		name string
		f    Filter
		want []string
	}{
		{"everything", Filter{}, ids},
		{"anchored", Filter{BlockchainStatus: wire.StatusAnchored}, []string{ids[0], ids[3]}},
		{"pending", Filter{BlockchainStatus: wire.StatusPending}, []string{ids[1], ids[2], ids[4]}},
		{"revoked", Filter{Status: StatusRevoked}, []string{ids[1]}},
		{"active and pending", Filter{Status: StatusActive, BlockchainStatus: wire.StatusPending}, []string{ids[2], ids[4]}},
		{"by sha256", Filter{SHA256: sha2}, []string{ids[2]}},
		{"bob's sha256 is not alice's", Filter{SHA256: rb.SHA256}, nil},
		{"from", Filter{From: t0.Add(2 * time.Minute)}, ids[2:]},
		{"from and to", Filter{From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute)}, ids[1:3]},
		{"other origin type", Filter{OriginType: "screenshot"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Pages of 2 must add up to the whole listing, in order.
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				if pages > 10 {
					t.Fatal("pagination does not end")
				}
				p, err := e.svc.List(ctx, alice.id, cursor, 2, tt.f)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Items) > 2 {
					t.Fatalf("page of %d items, limit 2", len(p.Items))
				}
				for _, r := range p.Items {
					got = append(got, r.ID)
				}
				if p.Next == "" {
					break
				}
				cursor = p.Next
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("List = %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := e.svc.List(ctx, alice.id, "!!not-a-cursor", 2, Filter{}); !errors.Is(err, store.ErrBadCursor) {
		t.Errorf("bad cursor: err = %v, want store.ErrBadCursor", err)
	}

	search := []struct {
		name string
		f    Filter
		want int
	}{
		{"whole registry", Filter{}, 6},
		{"by organisation, any case", Filter{OrgName: "other org"}, 1},
		{"anchored", Filter{BlockchainStatus: wire.StatusAnchored}, 2},
		{"by sha256 across accounts", Filter{SHA256: rb.SHA256}, 1},
	}
	for _, tt := range search {
		t.Run("public "+tt.name, func(t *testing.T) {
			p, err := e.svc.PublicSearch(ctx, "", 100, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) != tt.want || p.Next != "" {
				t.Errorf("PublicSearch = %d items (next %q), want %d", len(p.Items), p.Next, tt.want)
			}
		})
	}
	if _, err := e.svc.Get(ctx, bob.id, ids[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of another account's record: err = %v, want ErrNotFound", err)
	}
}

// TestSignWithoutWatermark: a picture too small to carry the watermark is
// signed without one; the signed record has no payload and the stored
// record says why. Pictures at the minimum and above are marked.
func TestSignWithoutWatermark(t *testing.T) {
	e := newEnv(t)
	alice := e.newOwner("alice@example.com", "Example News")
	for _, tc := range []struct {
		w, h   int
		marked bool
	}{{320, 240, true}, {224, 168, true}, {200, 150, false}, {167, 300, false}, {64, 48, false}} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			res, err := e.svc.Sign(context.Background(), SignInput{Owner: alice.id, SigningKeyID: alice.keyID, File: photo(t, 5, tc.w, tc.h)})
			if err != nil {
				t.Fatalf("Sign: %v", err)
			}
			rec, err := record.Parse(res.Record.Canonical)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Record
			if got := len(rec.WatermarkPayload) > 0; got != tc.marked {
				t.Errorf("signed payload present = %v, want %v", got, tc.marked)
			}
			if got := r.WatermarkState() == WatermarkEmbedded; got != tc.marked || (r.WatermarkPayloadHex != "") != tc.marked {
				t.Errorf("state %q payload %q, want marked %v", r.WatermarkState(), r.WatermarkPayloadHex, tc.marked)
			}
			if tc.marked != (r.WatermarkReason == "") || (!tc.marked && !strings.HasPrefix(r.WatermarkReason, WatermarkReasonTooSmall)) {
				t.Errorf("reason %q, want %q for an unmarked picture and none otherwise", r.WatermarkReason, WatermarkReasonTooSmall)
			}
			if resp := res.Response(); resp.Watermark != r.WatermarkState() || resp.WatermarkReason != r.WatermarkReason {
				t.Errorf("response watermark %q reason %q, want %q %q", resp.Watermark, resp.WatermarkReason, r.WatermarkState(), r.WatermarkReason)
			}
		})
	}
}
