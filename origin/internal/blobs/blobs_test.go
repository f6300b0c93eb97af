package blobs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDirLayout: what the conformance tests cannot see from outside a
// Dir: a blob is the file <root>/<2 hex>/<sum>, and no temporary file is
// left after a Put, a PutReader, or a PutReader refused for its digest.
func TestDirLayout(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	small := []byte("the signed output file")
	streamed := pattern(3<<20+17, 7)
	if err := d.Put(ctx, sumOf(small), small); err != nil {
		t.Fatal(err)
	}
	if err := d.PutReader(ctx, sumOf([]byte("other")), bytesReader(streamed)); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("PutReader under another digest: %v, want ErrDigestMismatch", err)
	}
	if err := d.PutReader(ctx, sumOf(streamed), bytesReader(streamed)); err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{small, streamed} {
		sum := sumOf(data)
		fi, err := os.Stat(filepath.Join(root, sum[:2], sum))
		if err != nil || fi.Size() != int64(len(data)) {
			t.Errorf("blob of %d bytes not at <root>/<2 hex>/<sum>: %v", len(data), err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(root, "tmp")); len(ents) != 0 {
		t.Errorf("%d temporary files left", len(ents))
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

// bytesReader hides bytes.Reader's WriterTo so the copy goes through Read
// in chunks, as a file's would.
func bytesReader(b []byte) io.Reader { return struct{ io.Reader }{bytes.NewReader(b)} }
