package blobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/origin/internal/blobs/s3test"
)

// TestS3 runs the S3 store's tests on one real S3 server (SeaweedFS),
// started once: it takes seconds.
func TestS3(t *testing.T) {
	srv := s3test.Start(t)
	t.Run("Conformance", func(t *testing.T) { s3Conformance(t, srv) })
	t.Run("Config", func(t *testing.T) { s3Config(t, srv) })
	t.Run("Outage", func(t *testing.T) { s3Outage(t, srv) }) // last: it stops the server
}

// s3Conformance: the S3 store keeps every promise of the Store
// interface; each subtest has a key prefix of its own in one bucket.
func s3Conformance(t *testing.T, srv *s3test.Server) {
	var n atomic.Int64
	blobs.RunStoreTests(t, func(t *testing.T) blobs.Store {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cfg := srv.Config("conformance")
		cfg.Prefix = fmt.Sprintf("t%d/", n.Add(1))
		s, err := blobs.OpenS3(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// s3Outage: with the object store down a Put fails fast with
// ErrUnavailable (what the API answers 503 storage_unavailable) and an
// Open too; once it is back, what was stored before is all there and
// Puts work again.
func s3Outage(t *testing.T, srv *s3test.Server) {
	ctx := context.Background()
	s, err := blobs.OpenS3(ctx, srv.Config("outage"))
	if err != nil {
		t.Fatal(err)
	}
	before := bytes.Repeat([]byte("kept before the outage "), 1000)
	if err := s.Put(ctx, blobs.SumOf(before), before); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	down := time.Now()
	during := []byte("signed during the outage")
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Put(pctx, blobs.SumOf(during), during); !errors.Is(err, blobs.ErrUnavailable) {
		t.Fatalf("Put with the store down: %v, want ErrUnavailable", err)
	}
	if err := s.PutReader(pctx, blobs.SumOf(during), bytes.NewReader(during)); !errors.Is(err, blobs.ErrUnavailable) {
		t.Fatalf("PutReader with the store down: %v, want ErrUnavailable", err)
	}
	if _, err := s.Open(pctx, blobs.SumOf(before)); !errors.Is(err, blobs.ErrUnavailable) {
		t.Fatalf("Open with the store down: %v, want ErrUnavailable", err)
	}
	t.Logf("the calls with the store down took %v", time.Since(down))
	began := time.Now()
	srv.Restart()
	t.Logf("the store restarted in %v", time.Since(began))
	b, err := s.Open(ctx, blobs.SumOf(before))
	if err != nil {
		t.Fatalf("a blob stored before the outage: %v", err)
	}
	got, err := io.ReadAll(io.NewSectionReader(b, 0, b.Size()))
	_ = b.Close()
	if err != nil || !bytes.Equal(got, before) {
		t.Fatalf("read back %d bytes (%v) after the outage, want %d", len(got), err, len(before))
	}
	if _, err := s.Open(ctx, blobs.SumOf(during)); !errors.Is(err, blobs.ErrNotFound) {
		t.Errorf("the failed Put left something: %v", err)
	}
	if err := s.Put(ctx, blobs.SumOf(during), during); err != nil {
		t.Fatalf("Put after the store came back: %v", err)
	}
}

// s3Config: a bad endpoint, a missing bucket without CreateBucket and
// wrong credentials are refused at open, not at the first sign.
func s3Config(t *testing.T, srv *s3test.Server) {
	ctx := context.Background()
	for _, ep := range []string{"", "ftp://x", "http://h/path", "127.0.0.1:9000"} {
		if _, err := blobs.OpenS3(ctx, blobs.S3Config{Endpoint: ep, Bucket: "b"}); err == nil {
			t.Errorf("endpoint %q accepted", ep)
		}
	}
	cfg := srv.Config("never-created")
	cfg.CreateBucket = false
	if _, err := blobs.OpenS3(ctx, cfg); err == nil {
		t.Error("a missing bucket was accepted")
	}
	cfg = srv.Config("creds")
	cfg.SecretKey = "wrong"
	if _, err := blobs.OpenS3(ctx, cfg); err == nil || errors.Is(err, blobs.ErrUnavailable) {
		t.Errorf("wrong credentials: %v, want a refusal that is not an outage", err)
	}
	// Nothing listens there: an outage (the origin starts anyway), not a
	// configuration fault.
	down, err := blobs.NewS3(blobs.S3Config{Endpoint: "http://127.0.0.1:1", Bucket: "signed-files", AccessKey: "k", SecretKey: "s", MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := down.Check(ctx); !errors.Is(err, blobs.ErrUnavailable) {
		t.Errorf("Check with nothing listening: %v, want ErrUnavailable", err)
	}
}

// BenchmarkS3Put: the cost a sign adds by keeping its file in the object
// store: one 2 MB PUT (a 4 MP JPEG) acknowledged by SeaweedFS on
// loopback, from parallel goroutines as an origin's signs are.
func BenchmarkS3Put(b *testing.B) {
	srv := s3test.Start(b)
	s, err := blobs.OpenS3(context.Background(), srv.Config("bench"))
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	b.SetBytes(2 << 20)
	b.RunParallel(func(pb *testing.PB) {
		data := make([]byte, 2<<20)
		for pb.Next() {
			i := n.Add(1)
			copy(data, fmt.Sprintf("blob %d", i))
			if err := s.Put(context.Background(), blobs.SumOf(data), data); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
