package blobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func sumOf(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func TestDirPutOpen(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("the signed output file")
	sum := sumOf(data)
	if _, err := d.Open(ctx, sum); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open before Put: %v, want ErrNotFound", err)
	}
	if err := d.Put(ctx, sum, data); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ctx, sum, data); err != nil {
		t.Fatalf("second Put of the same blob: %v", err)
	}
	b, err := d.Open(ctx, sum)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := io.ReadAll(io.NewSectionReader(b, 0, b.Size()))
	if err != nil || string(got) != string(data) || b.Size() != int64(len(data)) {
		t.Fatalf("read back %q (size %d), %v", got, b.Size(), err)
	}
	if _, err := os.Stat(filepath.Join(root, sum[:2], sum)); err != nil {
		t.Errorf("blob not at <root>/<2 hex>/<sum>: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Join(root, "tmp"))
	if len(ents) != 0 {
		t.Errorf("%d temporary files left after Put", len(ents))
	}
}

func TestDirRefuses(t *testing.T) {
	ctx := context.Background()
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("x")
	if err := d.Put(ctx, sumOf([]byte("y")), data); !errors.Is(err, ErrDigestMismatch) {
		t.Errorf("Put under another digest: %v, want ErrDigestMismatch", err)
	}
	for _, bad := range []string{"", "../../etc/passwd", sumOf(data)[:63], "ZZ" + sumOf(data)[2:]} {
		if err := d.Put(ctx, bad, data); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
		if _, err := d.Open(ctx, bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open(%q): %v, want ErrNotFound", bad, err)
		}
	}
}

// TestOpenDirRemovesDebris: a temporary file left by a crash between
// write and rename is removed at the next open and never becomes a blob;
// a recent one, which may be another origin's write in progress on a
// shared directory, is left alone.
func TestOpenDirRemovesDebris(t *testing.T) {
	root := t.TempDir()
	if _, err := OpenDir(root); err != nil {
		t.Fatal(err)
	}
	debris := filepath.Join(root, "tmp", "abc-123")
	inFlight := filepath.Join(root, "tmp", "def-456")
	for _, f := range []string{debris, inFlight} {
		if err := os.WriteFile(f, []byte("half a fi"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(debris, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(debris); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("debris still there: %v", err)
	}
	if _, err := os.Stat(inFlight); err != nil {
		t.Errorf("a write in progress was removed: %v", err)
	}
}

func TestDirConcurrentPuts(t *testing.T) {
	ctx := context.Background()
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 1<<16)
	for i := range data {
		data[i] = byte(i * 7)
	}
	sum := sumOf(data)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := d.Put(ctx, sum, data); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b, err := d.Open(ctx, sum)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, _ := io.ReadAll(io.NewSectionReader(b, 0, b.Size()))
	if sumOf(got) != sum {
		t.Fatal("concurrent puts left a corrupt blob")
	}
}

// TestDirPutReader: a streamed blob reads back whole; a stream that does
// not hash to the digest named leaves neither a blob nor a temporary file.
func TestDirPutReader(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i * 7)
	}
	sum := sumOf(data)
	if err := d.PutReader(ctx, sumOf([]byte("other")), bytesReader(data)); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("PutReader under another digest: %v, want ErrDigestMismatch", err)
	}
	if _, err := d.Open(ctx, sumOf([]byte("other"))); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a mismatched stream became a blob: %v", err)
	}
	if err := d.PutReader(ctx, sum, bytesReader(data)); err != nil {
		t.Fatal(err)
	}
	b, err := d.Open(ctx, sum)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := io.ReadAll(io.NewSectionReader(b, 0, b.Size()))
	if err != nil || string(got) != string(data) {
		t.Fatalf("read back %d bytes, want %d: %v", len(got), len(data), err)
	}
	ents, _ := os.ReadDir(filepath.Join(root, "tmp"))
	if len(ents) != 0 {
		t.Errorf("%d temporary files left", len(ents))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := d.PutReader(cctx, sumOf([]byte("late")), bytesReader([]byte("late"))); !errors.Is(err, context.Canceled) {
		t.Errorf("PutReader after cancel: %v, want context.Canceled", err)
	}
}

// bytesReader hides bytes.Reader's WriterTo so the copy goes through Read
// in chunks, as a file's would.
func bytesReader(b []byte) io.Reader { return struct{ io.Reader }{bytes.NewReader(b)} }
