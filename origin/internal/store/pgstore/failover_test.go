package pgstore_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
)

// terminateOthers ends every other session on the database of dbURL, as
// a primary's crash or demotion ends the origin's connections.
func terminateOthers(t *testing.T, dbURL string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReconnectsAfterLostConnection ends the store's connections in the
// middle of a transaction (before its COMMIT): Update and View run their
// function again on a new connection and succeed, and the write is
// stored once, instead of the caller seeing the broken connection.
func TestReconnectsAfterLostConnection(t *testing.T) {
	dbURL := pgtest.Start(t).NewDatabase()
	ctx := context.Background()
	st, err := pgstore.Open(ctx, pgstore.Config{URL: dbURL, ReconnectWait: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var runs atomic.Int32
	err = st.Update(ctx, func(tx store.Txn) error {
		if runs.Add(1) == 1 {
			if _, err := tx.Get([]byte("k")); !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if terminateOthers(t, dbURL) == 0 {
				t.Error("no session to end")
			}
		}
		if _, err := tx.Get([]byte("k")); !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return tx.Set([]byte("k"), []byte("v"))
	})
	if err != nil {
		t.Fatalf("Update across a lost connection: %v", err)
	}
	if runs.Load() < 2 {
		t.Fatalf("fn ran %d times; the lost connection was not noticed", runs.Load())
	}
	runs.Store(0)
	var got []byte
	err = st.View(ctx, func(tx store.Txn) error {
		if runs.Add(1) == 1 {
			terminateOthers(t, dbURL)
		}
		v, err := tx.Get([]byte("k"))
		got = v
		return err
	})
	if err != nil || string(got) != "v" || runs.Load() < 2 {
		t.Fatalf("View across a lost connection = %q, %v after %d runs", got, err, runs.Load())
	}
}

// TestGivesUpAfterReconnectWait checks the retries are bounded: with
// the database gone for good, Update fails after about ReconnectWait.
func TestGivesUpAfterReconnectWait(t *testing.T) {
	c := pgtest.Start(t)
	dbURL := c.NewDatabase()
	ctx := context.Background()
	st, err := pgstore.Open(ctx, pgstore.Config{URL: dbURL, ReconnectWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The database is dropped under the store: every new connection is
	// refused (3D000 is not a lost connection, so it must not be retried
	// at all), and the existing ones are ended (retried, then refused).
	terminateOthers(t, dbURL)
	admin := strings.Replace(dbURL, "/t1?", "/postgres?", 1)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP DATABASE t1 WITH (FORCE)`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = st.Update(ctx, func(tx store.Txn) error { return tx.Set([]byte("k"), []byte("v")) })
	if err == nil {
		t.Fatal("Update on a dropped database succeeded")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Update gave up after %v, want about the reconnect wait (2 s)", d)
	}
}

// TestMultiHostFindsThePrimary lists a read-only server first in a
// multi-host connection string without target_session_attrs: the store
// connects to the writable one, as after a failover where the old
// primary came back as a standby.
func TestMultiHostFindsThePrimary(t *testing.T) {
	ro, rw := pgtest.Start(t), pgtest.Start(t)
	roURL, rwURL := ro.NewDatabase(), rw.NewDatabase()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, roURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER SYSTEM SET default_transaction_read_only = on`, `SELECT pg_reload_conf()`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close(ctx)
	time.Sleep(200 * time.Millisecond) // the reload is asynchronous
	host := func(u string) string {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return p.Query().Get("host")
	}
	multi := "postgres://postgres@/t1?sslmode=disable&host=" + url.QueryEscape(host(roURL)+","+host(rwURL))
	st, err := pgstore.Open(ctx, pgstore.Config{URL: multi})
	if err != nil {
		t.Fatalf("Open(read-only host, writable host): %v", err)
	}
	defer st.Close()
	if err := st.Update(ctx, func(tx store.Txn) error { return tx.Set([]byte("k"), []byte("v")) }); err != nil {
		t.Fatalf("Update: %v", err)
	}
}
