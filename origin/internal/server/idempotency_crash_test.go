package server

import (
	"log/slog"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/clock"
)

// idemCrashChildEnv makes the test binary an origin on that data dir that
// kills itself (SIGKILL) right after a record's transaction commits, and
// after any idempotent request's handler succeeded, before the
// idempotency entry of the request is saved.
const idemCrashChildEnv = "PROVENANT_TEST_IDEM_CRASH_CHILD"

func runIdemCrashChild(dir string) {
	srv, err := newServer(Config{
		DataDir:  dir,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Password: cheapPassword,
		Webhooks: loopbackWebhooks(),
	}, deps{afterRecordCommit: func(string) { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) },
		afterIdempotentWrite: func(string) { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }})
	serveChild(srv, err)
}

// TestIdempotentSignSurvivesKillBetweenCommits kills the origin (SIGKILL,
// from inside, at the exact point) after the record's transaction of an
// idempotent sign committed and before its response was stored; the
// retry under the same key on a restarted origin answers the same record
// (201, Idempotent-Replayed) and the account has one record, not two. A
// different request under the key is still refused.
func TestIdempotentSignSurvivesKillBetweenCommits(t *testing.T) {
	dir, s := signerForChild(t, "idem-crash@example.com")

	child := startCrashChild(t, idemCrashChildEnv, dir)
	pic := readTestdata(t, "water.jpg")
	const key = "crash-between-commits-1"
	done := make(chan int, 1)
	go func() {
		if r, err := signForm(s, key, pic, nil).send(child.base); err == nil {
			done <- r.status
		}
	}()
	child.diedBeforeAnswering(done, "after the record's commit")

	ts := startServer(t, dir, clock.NewFake(time.Now().Add(time.Second)))
	r := ts.idemSign(s, key, pic, nil)
	ts.mustStatus(r, 201, "retry after the crash")
	if r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry not marked as a replay: %v", r.header)
	}
	id, _ := r.json(t)["record_id"].(string)
	list := ts.do("GET", "/api/v1/content-records", s.apiKey, nil)
	ts.mustStatus(list, 200, "list records")
	recs, _ := list.json(t)["items"].([]any)
	if len(recs) != 1 {
		t.Fatalf("the account has %d records after the retry, want 1: %s", len(recs), list.body)
	}
	if got, _ := recs[0].(map[string]any)["record_id"].(string); got != id && got != "" {
		t.Errorf("the replayed record %s is not the stored %s", id, got)
	}
	// The replay is now the key's entry; the same answer again.
	again := ts.idemSign(s, key, pic, nil)
	if again.status != 201 || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("second retry: %d replayed %q", again.status, again.header.Get("Idempotent-Replayed"))
	}
	// Another request under the same key is refused, as before.
	other := ts.idemSign(s, key, readTestdata(t, "meadow.jpg"), nil)
	if other.status != 422 || other.problemCode(t) != "idempotency_key_reused" {
		t.Errorf("another upload under the key: %d %s, want 422 idempotency_key_reused", other.status, other.body)
	}
}
