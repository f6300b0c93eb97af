package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/provenant/provenant/internal/allocs"
)

// TestUploadStreams: signing a 32 MiB file allocates a small fraction of
// its size (the file is read while it is sent, never held in memory), and
// the origin receives every byte with the announced Content-Length.
func TestUploadStreams(t *testing.T) {
	const size = 32 << 20
	path := filepath.Join(t.TempDir(), "big.jpg")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var got, announced int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		announced = r.ContentLength
		got, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		io.WriteString(w, `{"record_id":"r"}`)
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, Token: "iai_x"})
	if err != nil {
		t.Fatal(err)
	}
	up, err := FileUpload(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var signErr error
	alloc := allocs.During(func() {
		_, signErr = c.Sign(context.Background(), SignRequest{File: up, SigningKeyID: "k"})
	})
	if signErr != nil {
		t.Fatal(signErr)
	}
	if got != announced || got <= size {
		t.Errorf("origin received %d bytes, Content-Length %d, file %d", got, announced, size)
	}
	t.Logf("allocated %d KiB to send %d MiB", alloc>>10, size>>20)
	if alloc > size/8 {
		t.Errorf("allocated %d bytes to send a %d-byte file: the upload is buffered", alloc, size)
	}
}
