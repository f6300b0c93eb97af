package videos

import (
	"bytes"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/content/videos/videostest"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

func randomID(r *rand.Rand) record.ID {
	var id record.ID
	for i := range id {
		id[i] = byte(r.Uint32())
	}
	return id
}

func update(t *testing.T, st store.Store, fn func(store.Txn) error) {
	t.Helper()
	if err := st.Update(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

func frames() Index { return Index{Frames: phindex.Index{Prefix: []byte(FramePrefix)}} }

// TestPutIndexed: Put keeps a long video under at most 64 whole frames and
// 64 centres, evenly spread, exactly the hashes Indexed then reads back
// and the frame index holds; a record that is not a video has none, and an
// unreadable fingerprint is an error, not an empty video.
func TestPutIndexed(t *testing.T) {
	st := storetest.Badger(t)
	r := rand.New(rand.NewPCG(48, 1))
	fp := videostest.Fingerprint(r, 300)
	id, other := randomID(r), randomID(r)
	update(t, st, func(tx store.Txn) error { return frames().Put(tx, id, fp) })

	var got []phash.Hash
	update(t, st, func(tx store.Txn) error {
		var err error
		got, err = Indexed(tx, id)
		return err
	})
	if len(got) != 128 {
		t.Fatalf("a 300-second video is indexed under %d hashes, want 64 frames and 64 centres", len(got))
	}
	for i, h := range got[:64] {
		if want := fp.Hashes[i*300/64]; h != want {
			t.Fatalf("indexed frame %d is %v, want second %d's %v", i, h, i*300/64, want)
		}
	}
	if got[64] != fp.Centre[0] {
		t.Fatalf("the centres are not indexed after the frames")
	}
	ids, _, _, err := frames().Frames.Entries(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(got) {
		t.Fatalf("the frame index holds %d entries, Indexed reads %d", len(ids), len(got))
	}

	update(t, st, func(tx store.Txn) error {
		if hs, err := Indexed(tx, other); err != nil || hs != nil {
			t.Errorf("Indexed of a record without a video = %v, %v; want nil, nil", hs, err)
		}
		if err := tx.Set(fingerprintKey(other.String()), []byte("not a fingerprint")); err != nil {
			return err
		}
		if _, err := Indexed(tx, other); err == nil {
			t.Error("Indexed of an unreadable fingerprint: no error")
		}
		return nil
	})
}

// TestQueryHashes: a clip probes at most 12 of its frames, spread over it,
// and one still scene only once.
func TestQueryHashes(t *testing.T) {
	r := rand.New(rand.NewPCG(48, 2))
	tests := []struct {
		name string
		fp   video.Fingerprint
		want int
	}{
		{"short clip, every frame", videostest.Fingerprint(r, 5), 5},
		{"long clip, twelve", videostest.Fingerprint(r, 600), 12},
		{"still scene, one", video.Fingerprint{Hashes: []phash.Hash{{P64: 7}, {P64: 7}, {P64: 7}, {P64: 7}}}, 1},
		{"empty, none", video.Fingerprint{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := QueryHashes(tt.fp)
			if len(got) != tt.want {
				t.Fatalf("%d query hashes, want %d", len(got), tt.want)
			}
			if len(got) > 1 && got[len(got)-1] == tt.fp.Hashes[len(got)-1] && len(tt.fp.Hashes) > len(got) {
				t.Fatalf("the query hashes are the clip's first frames, not spread over it")
			}
		})
	}
}

// TestAlign: a clip trimmed from a signed video aligns on it, at its
// offset, over the video that shares fewer of its seconds, whichever is
// compared first; the watermark's record is compared though no frame
// finds it; a record whose hash cannot be read, an unreadable
// fingerprint and an unrelated clip give no match.
func TestAlign(t *testing.T) {
	st := storetest.Badger(t)
	r := rand.New(rand.NewPCG(48, 3))
	signed := videostest.Fingerprint(r, 40)
	// partial shares the seconds 10–24 of signed and nothing else: 15 of a
	// 20-second clip of it, enough to align, fewer than signed.
	partial := videostest.Fingerprint(r, 40)
	copy(partial.Hashes[10:25], signed.Hashes[10:25])
	// unindexed is a video whose frames are not in the frame index (a
	// watermark still names it).
	unindexed := videostest.Fingerprint(r, 30)
	a, b, c, broken := randomID(r), randomID(r), randomID(r), randomID(r)
	update(t, st, func(tx store.Txn) error {
		if err := frames().Put(tx, a, signed); err != nil {
			return err
		}
		if err := frames().Put(tx, b, partial); err != nil {
			return err
		}
		elsewhere := Index{Frames: phindex.Index{Prefix: []byte("test/elsewhere/")}}
		if err := elsewhere.Put(tx, c, unindexed); err != nil {
			return err
		}
		if err := frames().Put(tx, broken, videostest.Fingerprint(r, 10)); err != nil {
			return err
		}
		return tx.Set(fingerprintKey(broken.String()), []byte("garbage"))
	})
	clip := video.Fingerprint{Hashes: append([]phash.Hash(nil), signed.Hashes[10:30]...)}
	hashes := map[string]phash.Hash{a.String(): {P64: 1}, b.String(): {P64: 2}, c.String(): {P64: 3}, broken.String(): {P64: 4}}
	all := func(id string) (phash.Hash, bool) { h, ok := hashes[id]; return h, ok }

	tests := []struct {
		name   string
		clip   video.Fingerprint
		first  string
		hashOf func(string) (phash.Hash, bool)
		want   *Aligned
	}{
		{"trimmed clip", clip, "", all, &Aligned{Hash: phash.Hash{P64: 1}, Mid: 20, Match: Match{
			RecordID: a.String(), OffsetSeconds: 10, ClipSeconds: 20, SignedSeconds: 40, MatchedSeconds: 20, Trimmed: true}}},
		{"the lesser match compared first", clip, b.String(), all, &Aligned{Hash: phash.Hash{P64: 1}, Mid: 20, Match: Match{
			RecordID: a.String(), OffsetSeconds: 10, ClipSeconds: 20, SignedSeconds: 40, MatchedSeconds: 20, Trimmed: true}}},
		{"the watermark's record", video.Fingerprint{Hashes: unindexed.Hashes}, c.String(), all, &Aligned{Hash: phash.Hash{P64: 3}, Mid: 15, Match: Match{
			RecordID: c.String(), ClipSeconds: 30, SignedSeconds: 30, MatchedSeconds: 30}}},
		{"not found by its frames alone", video.Fingerprint{Hashes: unindexed.Hashes}, "", all, nil},
		{"the best record unreadable", clip, "", func(id string) (phash.Hash, bool) {
			if id == a.String() {
				return phash.Hash{}, false
			}
			return all(id)
		}, &Aligned{Hash: phash.Hash{P64: 2}, Mid: 20, Match: Match{
			RecordID: b.String(), OffsetSeconds: 10, ClipSeconds: 20, SignedSeconds: 40, MatchedSeconds: 15, Trimmed: true}}},
		{"unreadable fingerprint", clip, broken.String(), func(id string) (phash.Hash, bool) {
			if id == broken.String() {
				return all(id)
			}
			return phash.Hash{}, false
		}, nil},
		{"unrelated clip", videostest.Fingerprint(r, 20), "", all, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			ix := frames()
			ix.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			update(t, st, func(tx store.Txn) error {
				got, err := ix.Align(tx, tt.clip, tt.first, tt.hashOf)
				if err != nil {
					return err
				}
				switch {
				case tt.want == nil && got != nil:
					t.Errorf("aligned on %+v, want none", *got)
				case tt.want != nil && (got == nil || *got != *tt.want):
					t.Errorf("aligned on %+v, want %+v", got, *tt.want)
				}
				return nil
			})
			if tt.first == broken.String() && !strings.Contains(logs.String(), broken.String()) {
				t.Errorf("the unreadable fingerprint was not reported: %q", logs.String())
			}
		})
	}
}
