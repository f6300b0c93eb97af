package blobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
)

// testStore runs the behaviour every Store promises against the store
// open returns (a fresh, empty one per call).
func testStore(t *testing.T, open func(t *testing.T) Store) {
	t.Run("PutOpen", func(t *testing.T) {
		ctx := context.Background()
		s := open(t)
		data := []byte("the signed output file")
		sum := sumOf(data)
		if _, err := s.Open(ctx, sum); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Open before Put: %v, want ErrNotFound", err)
		}
		if err := s.Put(ctx, sum, data); err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, sum, data); err != nil {
			t.Fatalf("second Put of the same blob: %v", err)
		}
		if got := readAll(t, s, sum); string(got) != string(data) {
			t.Fatalf("read back %q", got)
		}
	})
	t.Run("Refuses", func(t *testing.T) {
		ctx := context.Background()
		s := open(t)
		data := []byte("x")
		if err := s.Put(ctx, sumOf([]byte("y")), data); !errors.Is(err, ErrDigestMismatch) {
			t.Errorf("Put under another digest: %v, want ErrDigestMismatch", err)
		}
		if _, err := s.Open(ctx, sumOf([]byte("y"))); !errors.Is(err, ErrNotFound) {
			t.Errorf("a refused Put left a blob: %v", err)
		}
		for _, bad := range []string{"", "../../etc/passwd", sumOf(data)[:63], "ZZ" + sumOf(data)[2:]} {
			if err := s.Put(ctx, bad, data); err == nil {
				t.Errorf("Put(%q) accepted", bad)
			}
			if err := s.PutReader(ctx, bad, bytesReader(data)); err == nil {
				t.Errorf("PutReader(%q) accepted", bad)
			}
			if _, err := s.Open(ctx, bad); !errors.Is(err, ErrNotFound) {
				t.Errorf("Open(%q): %v, want ErrNotFound", bad, err)
			}
		}
	})
	t.Run("ConcurrentPuts", func(t *testing.T) {
		ctx := context.Background()
		s := open(t)
		data := pattern(1<<16, 7)
		sum := sumOf(data)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if err := s.Put(ctx, sum, data); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if sumOf(readAll(t, s, sum)) != sum {
			t.Fatal("concurrent puts left a corrupt blob")
		}
	})
	// PutReader: a streamed blob reads back whole, also when it spans
	// several parts of a multipart upload; a stream that does not hash to
	// the digest named leaves no blob.
	t.Run("PutReader", func(t *testing.T) {
		ctx := context.Background()
		s := open(t)
		for _, size := range []int{0, 3<<20 + 17, 2*s3PartSize + 5} {
			data := pattern(size, 11)
			sum := sumOf(data)
			other := sumOf(append([]byte("other"), data...))
			if err := s.PutReader(ctx, other, bytesReader(data)); !errors.Is(err, ErrDigestMismatch) {
				t.Fatalf("size %d: PutReader under another digest: %v, want ErrDigestMismatch", size, err)
			}
			if _, err := s.Open(ctx, other); !errors.Is(err, ErrNotFound) {
				t.Fatalf("size %d: a mismatched stream became a blob: %v", size, err)
			}
			if err := s.PutReader(ctx, sum, bytesReader(data)); err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			if got := readAll(t, s, sum); sumOf(got) != sum || len(got) != size {
				t.Fatalf("size %d: read back %d bytes", size, len(got))
			}
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.PutReader(cctx, sumOf([]byte("late")), bytesReader([]byte("late"))); !errors.Is(err, context.Canceled) {
			t.Errorf("PutReader after cancel: %v, want context.Canceled", err)
		}
		if _, err := s.Open(ctx, sumOf([]byte("late"))); !errors.Is(err, ErrNotFound) {
			t.Errorf("a cancelled PutReader left a blob: %v", err)
		}
	})
	// ReadAt: ranges anywhere in the blob, in any order, read what is
	// there (the file endpoint's Range answers read this way).
	t.Run("ReadAt", func(t *testing.T) {
		ctx := context.Background()
		s := open(t)
		data := pattern(1<<20+3, 13)
		sum := sumOf(data)
		if err := s.Put(ctx, sum, data); err != nil {
			t.Fatal(err)
		}
		b, err := s.Open(ctx, sum)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if b.Size() != int64(len(data)) {
			t.Fatalf("Size %d, want %d", b.Size(), len(data))
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range 40 {
			off := rng.Int64N(int64(len(data)))
			n := 1 + rng.IntN(70000)
			if i%3 == 0 && i > 0 {
				off = 0 // back to the start after reading further on
			}
			p := make([]byte, n)
			got, err := b.ReadAt(p, off)
			want := min(int64(n), int64(len(data))-off)
			if int64(got) != want || string(p[:got]) != string(data[off:off+want]) {
				t.Fatalf("ReadAt(%d bytes at %d) = %d bytes (%v), want %d", n, off, got, err, want)
			}
			if int64(n) > want && err != io.EOF {
				t.Fatalf("ReadAt past the end: err %v, want io.EOF", err)
			}
		}
		if _, err := b.ReadAt(make([]byte, 1), int64(len(data))); err != io.EOF {
			t.Errorf("ReadAt at the end: %v, want io.EOF", err)
		}
	})
}

// sumOf is a blob's name: the hex SHA-256 of its bytes.
func sumOf(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func readAll(t *testing.T, s Store, sum string) []byte {
	t.Helper()
	b, err := s.Open(context.Background(), sum)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := io.ReadAll(io.NewSectionReader(b, 0, b.Size()))
	if err != nil {
		t.Fatalf("read %s: %v", sum, err)
	}
	return got
}

func pattern(n, mul int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*mul + i>>16)
	}
	return b
}

func TestDirConformance(t *testing.T) {
	testStore(t, func(t *testing.T) Store {
		d, err := OpenDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}
