package content

import (
	"context"
	crand "crypto/rand"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/internal/hamming/hammingtest"
	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/content/videos"
	"github.com/provenant/provenant/origin/internal/content/videos/videostest"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
)

// indexVideo stores fp under id as a signed video's transaction does and
// adds it to the service's in-memory index as its commit does.
func (e *env) indexVideo(s *Service, id record.ID, fp video.Fingerprint) {
	e.t.Helper()
	ctx := context.Background()
	if err := e.st.Update(ctx, func(tx store.Txn) error { return s.videoIndex().Put(tx, id, fp) }); err != nil {
		e.t.Fatal(err)
	}
	if err := s.nearCommitted(ctx, &record.Record{ID: id, PerceptualHash: fp.Hashes[len(fp.Hashes)/2]}); err != nil {
		e.t.Fatal(err)
	}
}

// TestVideoCopyAtThresholdAmongNearRecords: a clip trimmed from a signed
// video, every frame of it at the index's exact radius (8 bits of the
// 64-bit hash) and 60 of 256 bits from the signed frame, is matched to
// that video while 300 other videos each hold two frames nearer the
// clip's (0–2 bits) that are not the same picture (far on 256 bits):
// more than a nearest-first cut of any lookup keeps. It is matched both
// by the index kept since start and by one reloaded from the store.
func TestVideoCopyAtThresholdAmongNearRecords(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(36, 1))
	signedFP := videostest.Fingerprint(r, 40)
	const from, length = 10, 20
	var clip video.Fingerprint
	for _, h := range signedFP.Hashes[from : from+length] {
		clip.Hashes = append(clip.Hashes, phash.Hash{
			P64:  hammingtest.FlipExact(r, h.P64, hamming.DefaultExactRadius),
			P256: hammingtest.Flip256(r, h.P256, 60),
		})
	}
	if m := video.MatchFingerprints(signedFP, clip); !m.Matched || m.Offset != from {
		t.Fatalf("the clip does not align on its video by itself: %+v", m)
	}
	queries := videos.QueryHashes(clip)
	const decoys = 300
	for d := range decoys {
		fp := videostest.Fingerprint(r, 40)
		for k, q := range []int{d % len(queries), (d + 5) % len(queries)} {
			fp.Hashes[k*20] = phash.Hash{P64: hammingtest.FlipExact(r, queries[q].P64, r.IntN(3)), P256: videostest.Hash(r).P256}
		}
		var did [16]byte
		if _, err := crand.Read(did[:]); err != nil {
			t.Fatal(err)
		}
		e.indexVideo(e.svc, did, fp)
	}
	// The signed video is claimed after the others: the earliest claim
	// among the best-voted is not what finds it.
	o := e.newOwner("video@example.com", "Video Maker")
	rec := e.plant(o, "Video Maker", signedFP.Hashes[len(signedFP.Hashes)/2])
	id, err := record.ParseID(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.indexVideo(e.svc, id, signedFP)

	check := func(name string, s *Service) {
		t.Helper()
		m, err := s.matchVideo(t.Context(), clip, verdict.Watermark{})
		if err != nil {
			t.Fatal(err)
		}
		if m == nil || m.RecordID != rec.ID || m.OffsetSeconds != from || m.MatchedSeconds != length {
			t.Fatalf("%s: match %+v, want record %s at offset %d with %d seconds", name, m, rec.ID, from, length)
		}
	}
	check("index kept since start", e.svc)
	near, err := LoadNear(t.Context(), e.st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := near.VideoLen(), (decoys+1)*2*40; got != want {
		t.Fatalf("reloaded video index holds %d hashes, want %d", got, want)
	}
	cfg := e.cfg
	cfg.Near.Index = near
	check("index reloaded from the store", e.service(cfg))
}

// TestNearLoading: while the index loads, searches that need it fail
// with nearindex.ErrLoading (after the configured wait) and Ready says so; a
// record committed meanwhile is in the index once it is loaded, beside
// those loaded from the store.
func TestNearLoading(t *testing.T) {
	e := newEnv(t)
	o := e.newOwner("early@example.com", "Early")
	r := rand.New(rand.NewPCG(36, 2))
	before := e.plant(o, "Early", videostest.Hash(r))

	// The load reads the three indexes' entries (three reads), then waits
	// before ordering them by claim: a record committed in that wait is
	// in none of its snapshots.
	open := make(chan struct{})
	gated := &storetest.Gated{Store: e.st, Open: open, Free: 3}
	near := StartNear(t.Context(), gated, nil, nearindex.Options{Wait: 20 * time.Millisecond})
	for gated.Views.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	cfg := e.cfg
	cfg.Near.Index = near
	s := e.service(cfg)
	if err := near.Ready(); !errors.Is(err, nearindex.ErrLoading) {
		t.Fatalf("Ready while loading = %v, want nearindex.ErrLoading", err)
	}
	bh, _ := phash.Parse(before.PerceptualHash)
	if _, err := s.candidates(t.Context(), fromFacts(facts.Facts{PHash: bh})); !errors.Is(err, nearindex.ErrLoading) {
		t.Fatalf("candidates while loading: %v, want nearindex.ErrLoading", err)
	}
	if _, err := s.matchVideo(t.Context(), videostest.Fingerprint(r, 5), verdict.Watermark{}); !errors.Is(err, nearindex.ErrLoading) {
		t.Fatalf("video match while loading: %v, want nearindex.ErrLoading", err)
	}
	// A file that is not a picture searches no index: it is answered.
	if _, err := s.candidates(t.Context(), Facts{NotDecoded: true}); err != nil {
		t.Fatalf("candidates of an undecoded file while loading: %v", err)
	}

	e.svc = s // plant commits through the loading service
	during := e.plant(o, "Early", videostest.Hash(r))
	close(open)
	select {
	case <-near.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the index did not load")
	}
	if err := near.Ready(); err != nil {
		t.Fatalf("Ready once loaded = %v", err)
	}
	for _, want := range []*Record{before, during} {
		h, _ := phash.Parse(want.PerceptualHash)
		cands, err := s.candidates(t.Context(), fromFacts(facts.Facts{PHash: h}))
		if err != nil {
			t.Fatal(err)
		}
		if len(cands) != 1 || cands[0].rec.ID != want.ID {
			t.Errorf("after the load, the search for record %s found %d candidates", want.ID, len(cands))
		}
	}
	if m, _ := near.Len(); m != 2 {
		t.Errorf("index holds %d hashes, want 2 (one loaded, one committed while loading)", m)
	}
}

// TestNearWithoutGeometric: an index loaded without the geometric hashes
// answers verification, and refuses look-before-mark (which needs them)
// with ErrGeometricIndexOff instead of searching the store's buckets.
func TestNearWithoutGeometric(t *testing.T) {
	e := newEnv(t)
	o := e.newOwner("geo@example.com", "Geo")
	r := rand.New(rand.NewPCG(36, 3))
	rec := e.plant(o, "Geo", videostest.Hash(r))
	near := StartNear(t.Context(), e.st, nil, nearindex.Options{WithoutGeometric: true})
	<-near.Done()
	cfg := e.cfg
	cfg.Near.Index = near
	s := e.service(cfg)
	h, _ := phash.Parse(rec.PerceptualHash)
	cands, err := s.candidates(t.Context(), fromFacts(facts.Facts{PHash: h}))
	if err != nil || len(cands) != 1 {
		t.Fatalf("verification search: %d candidates, %v; want the record", len(cands), err)
	}
	vs := h.Dihedral()
	if _, err := s.candidatesFor(t.Context(), fromFacts(facts.Facts{PHash: h}), variants{hs: vs[1:], fromBits: true}); !errors.Is(err, ErrGeometricIndexOff) {
		t.Fatalf("look-before-mark search: %v, want ErrGeometricIndexOff", err)
	}
	if _, geo := near.Len(); geo != 0 {
		t.Errorf("geometric index holds %d hashes", geo)
	}
}

// failingStore fails its first reads.
type failingStore struct {
	store.Store
	failures *atomic.Int32
}

var errStoreDown = errors.New("store down")

func (f failingStore) View(ctx context.Context, fn func(store.Txn) error) error {
	if f.failures.Add(-1) >= 0 {
		return errStoreDown
	}
	return f.Store.View(ctx, fn)
}

// TestNearLoadRetries: a load that fails (the store unreadable at start)
// leaves the index not ready, saying why, and is retried until it loads.
func TestNearLoadRetries(t *testing.T) {
	e := newEnv(t)
	o := e.newOwner("retry@example.com", "Retry")
	rec := e.plant(o, "Retry", videostest.Hash(rand.New(rand.NewPCG(36, 4))))
	failures := &atomic.Int32{}
	failures.Store(2)
	near := StartNear(t.Context(), failingStore{e.st, failures}, nil, nearindex.Options{Retry: 200 * time.Millisecond})
	deadline := time.Now().Add(10 * time.Second)
	sawFailure := false
	for near.Ready() != nil && time.Now().Before(deadline) {
		err := near.Ready()
		sawFailure = sawFailure || (errors.Is(err, nearindex.ErrLoading) && errors.Is(err, errStoreDown))
		time.Sleep(time.Millisecond)
	}
	if err := near.Ready(); err != nil {
		t.Fatalf("not loaded after the store came back: %v", err)
	}
	if !sawFailure {
		t.Error("Ready never reported the load failure")
	}
	cfg := e.cfg
	cfg.Near.Index = near
	h, _ := phash.Parse(rec.PerceptualHash)
	cands, err := e.service(cfg).candidates(t.Context(), fromFacts(facts.Facts{PHash: h}))
	if err != nil || len(cands) != 1 {
		t.Fatalf("after the retried load: %d candidates, %v", len(cands), err)
	}
}
