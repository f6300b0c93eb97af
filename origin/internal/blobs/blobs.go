// Package blobs keeps signed output files, content-addressed by their
// SHA-256. Store is the seam: Dir keeps them in a directory of the data
// dir; an object store (S3-compatible) can implement the same interface.
package blobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotFound: no blob with that digest.
var ErrNotFound = errors.New("blobs: not found")

// ErrDigestMismatch: the bytes given do not hash to the digest named.
var ErrDigestMismatch = errors.New("blobs: content does not match its digest")

// Store keeps immutable blobs under their SHA-256 (64 lowercase hex
// digits). Implementations must be safe for concurrent use.
type Store interface {
	// Put stores b under sum, which must be SHA-256(b). When Put returns
	// nil the blob survives a crash of the process and of the machine
	// (it is on stable storage). Putting a blob that exists is a no-op.
	Put(ctx context.Context, sum string, b []byte) error
	// PutReader is Put for a file read from r to its end, for files too
	// large to hold in memory (signed videos): the bytes are streamed to
	// storage and hashed on the way; ErrDigestMismatch when they do not
	// hash to sum, and then nothing is stored.
	PutReader(ctx context.Context, sum string, r io.Reader) error
	// Open returns the blob sum, or ErrNotFound. The caller closes it.
	Open(ctx context.Context, sum string) (Blob, error)
}

// Blob is an open blob: random access for Range requests, and its size.
type Blob interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// Dir is a Store in a local directory: <root>/<first 2 hex digits>/<sum>,
// with in-progress writes under <root>/tmp.
type Dir struct {
	root string
}

var _ Store = (*Dir)(nil)

// staleTemp is the age after which a temporary file is a crash's leftover.
// Several origins may share one blob directory (a shared filesystem in a
// scale-out deployment), so a starting origin must not remove another
// one's write in progress; a Put writes and renames within one request,
// far faster than this.
const staleTemp = time.Hour

// OpenDir opens (creating it if needed) the blob directory root and
// removes the temporary files a crash left behind, those older than an
// hour: a blob is visible only once renamed into place, so a leftover
// temporary file was never referenced, and a younger one may be another
// process's write in progress when the directory is shared.
func OpenDir(root string) (*Dir, error) {
	tmp := filepath.Join(root, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	for _, e := range ents {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(tmp, e.Name()))
		}
	}
	return &Dir{root: root}, nil
}

func validSum(sum string) bool {
	if len(sum) != 2*sha256.Size || strings.ToLower(sum) != sum {
		return false
	}
	_, err := hex.DecodeString(sum)
	return err == nil
}

func (d *Dir) path(sum string) string { return filepath.Join(d.root, sum[:2], sum) }

// Put writes b to a temporary file, fsyncs it, renames it to its final
// name and fsyncs the directory, so the blob is either absent or complete,
// never partial, whatever the moment of a crash.
func (d *Dir) Put(ctx context.Context, sum string, b []byte) error {
	if !validSum(sum) {
		return fmt.Errorf("blobs: %q is not a SHA-256 digest", sum)
	}
	if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
		return ErrDigestMismatch
	}
	if st, err := os.Stat(d.path(sum)); err == nil && st.Size() == int64(len(b)) {
		return ctx.Err()
	}
	return d.write(ctx, sum, bytes.NewReader(b))
}

// PutReader streams r into a temporary file while hashing it and renames
// it into place only when the digest is sum, with the durability of Put.
// Memory is one copy buffer whatever the size.
func (d *Dir) PutReader(ctx context.Context, sum string, r io.Reader) error {
	if !validSum(sum) {
		return fmt.Errorf("blobs: %q is not a SHA-256 digest", sum)
	}
	if _, err := os.Stat(d.path(sum)); err == nil {
		// Content-addressed: an existing blob is this content (Put and
		// PutReader rename only verified files into place).
		return ctx.Err()
	}
	return d.write(ctx, sum, r)
}

// write copies r to a temporary file, checks its SHA-256 is sum, syncs
// it and renames it to its final name.
func (d *Dir) write(ctx context.Context, sum string, r io.Reader) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	final := d.path(sum)
	f, err := os.CreateTemp(filepath.Join(d.root, "tmp"), sum+"-*")
	if err != nil {
		return fmt.Errorf("blobs: %w", err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(f, h), ctxReader{ctx, r}); err != nil {
		return fmt.Errorf("blobs: write %s: %w", sum, err)
	}
	if hex.EncodeToString(h.Sum(nil)) != sum {
		return ErrDigestMismatch
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("blobs: sync %s: %w", sum, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("blobs: close %s: %w", sum, err)
	}
	shard := filepath.Dir(final)
	if err := os.MkdirAll(shard, 0o700); err != nil {
		return fmt.Errorf("blobs: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("blobs: rename %s: %w", sum, err)
	}
	ok = true
	// The rename is durable only once the directories holding the new
	// entry are synced (the shard, and the root if the shard is new).
	for _, dir := range []string{shard, d.root} {
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// ctxReader stops a long copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("blobs: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("blobs: sync dir %s: %w", dir, err)
	}
	return nil
}

type fileBlob struct {
	*os.File
	size int64
}

func (b fileBlob) Size() int64 { return b.size }

// Open opens blob sum for reading.
func (d *Dir) Open(_ context.Context, sum string) (Blob, error) {
	if !validSum(sum) {
		return nil, ErrNotFound
	}
	f, err := os.Open(d.path(sum))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("blobs: %w", err)
	}
	return fileBlob{File: f, size: st.Size()}, nil
}
