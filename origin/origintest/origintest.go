// Package origintest runs a real origin on a loopback port, over a real
// Badger store in a temporary directory and the embedded chain, for the
// tests of clients that live outside the origin (the Go SDK in client/
// and the provenant command). Its subpackage originproc runs the origin
// binary as a process instead, for tests of its flags, signals or memory
// and for components that should not link the origin (the edge). It is
// test support: nothing in a production binary imports it.
package origintest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/accounts/accountstest"
	"github.com/provenant/provenant/origin/internal/server"
	"github.com/provenant/provenant/origin/origintest/corpus"
)

// Options adjusts the origin. The zero value anchors in batches closed
// every 200 ms, so that a test sees its records anchored within a second.
type Options struct {
	// BatchInterval closes an anchoring batch; zero means 200 ms.
	BatchInterval time.Duration
	// BatchSize closes a batch once it holds this many records; zero means
	// the anchor's default. The conformance corpus (package corpus) needs
	// 2 with a long BatchInterval, so that its pending records stay so.
	BatchSize int
	// Logger receives the origin's log; nil discards it.
	Logger *slog.Logger
}

// Origin is a running origin. It is stopped by the test's cleanup.
type Origin struct {
	// URL is the base URL, "http://127.0.0.1:<port>".
	URL string
	// DataDir is the origin's data directory (a t.TempDir()).
	DataDir string
	// ChainRPC is the URL of the embedded chain's read-only JSON-RPC.
	ChainRPC string
}

// Start runs an origin for the duration of t. Passwords are hashed with
// cheap argon2id parameters so that registering accounts stays fast.
func Start(t testing.TB, opt Options) *Origin {
	t.Helper()
	if opt.BatchInterval == 0 {
		opt.BatchInterval = 200 * time.Millisecond
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dir := t.TempDir()
	srv, err := server.New(server.Config{
		DataDir:  dir,
		Logger:   opt.Logger,
		Password: accountstest.CheapPassword(),
		Anchor:   server.AnchorConfig{BatchInterval: opt.BatchInterval, BatchSize: opt.BatchSize, PollInterval: 20 * time.Millisecond},
		// A port of its own, so that origins of parallel tests coexist.
		ChainRPCAddr: "127.0.0.1:0",
	})
	if err != nil {
		t.Fatalf("origintest: start origin: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("origintest: listen: %v", err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("origintest: shutdown: %v", err)
		}
	})
	o := &Origin{URL: "http://" + ln.Addr().String(), DataDir: dir}
	if a := srv.ChainRPCAddr(); a != nil {
		o.ChainRPC = "http://" + a.String()
	}
	return o
}

// StartCorpus runs an origin the way the conformance corpus needs it
// (hour-long batches of two records, so that its pending records stay
// so) and builds the corpus on it, tagged with the surface under test.
// It skips t under -short: the corpus signs dozens of records.
func StartCorpus(t *testing.T, tag string) (*Origin, *corpus.Corpus, map[string]corpus.Row) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a corpus of signed records")
	}
	o := Start(t, Options{BatchInterval: time.Hour, BatchSize: 2})
	cp, golden := corpus.BuildForTest(t, corpus.Origin{URL: o.URL, Tag: tag})
	return o, cp, golden
}
