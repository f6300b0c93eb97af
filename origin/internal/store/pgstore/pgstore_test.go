package pgstore_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
	"github.com/provenant/provenant/origin/internal/store/storetest"
)

// openPG reads pages of three rows, so that every scan of the suite
// crosses page boundaries.
func openPG(url string) (store.Store, error) {
	return pgstore.Open(context.Background(), pgstore.Config{URL: url, PageSize: 3, MaxRetries: 100})
}

func TestMain(m *testing.M) {
	storetest.ChildMain(openPG)
	os.Exit(m.Run())
}

// TestConformance runs the Store conformance suite on PostgreSQL, each
// test in its own database of one cluster; the durability test SIGKILLs
// the cluster after its writer.
func TestConformance(t *testing.T) {
	c := pgtest.Start(t)
	storetest.Run(t, storetest.Backend{
		New:   func(*testing.T) string { return c.NewDatabase() },
		Open:  openPG,
		Crash: func(*testing.T) { c.Kill() },
	})
}

// TestRefusesNonDurableServer checks Open refuses a database whose
// settings would let an acknowledged commit vanish in a crash.
func TestRefusesNonDurableServer(t *testing.T) {
	c := pgtest.Start(t)
	url := c.NewDatabase()
	st, err := pgstore.Open(context.Background(), pgstore.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	// Reconnect with synchronous_commit off for the session, as a
	// database or role default would set it.
	_, err = pgstore.Open(context.Background(), pgstore.Config{URL: url + "&options=-c%20synchronous_commit%3Doff"})
	if err == nil || !strings.Contains(err.Error(), "synchronous_commit=off") {
		t.Fatalf("Open with synchronous_commit=off = %v, want a refusal", err)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, cfg := range []pgstore.Config{
		{},
		{URL: "postgres://u:secret@/db?host=%zz"},
		{URL: "postgres:///db", Table: "kv; DROP TABLE x"},
	} {
		_, err := pgstore.Open(context.Background(), cfg)
		if err == nil {
			t.Errorf("Open(%+v) succeeded", cfg)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("Open error shows the password: %v", err)
		}
	}
}

// TestScanLargeValues scans values whose total far exceeds one page's
// byte budget: pages end early by size and the scan resumes after the
// last row kept, so every key comes back once, in order.
func TestScanLargeValues(t *testing.T) {
	st := pgtest.Open(t, pgtest.Start(t).NewDatabase())
	const n = 14
	big := make([]byte, 1<<20)
	for i := range n {
		err := st.Update(context.Background(), func(tx store.Txn) error {
			big[0] = byte(i)
			return tx.Set(fmt.Appendf(nil, "big/%02d", i), big)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err := st.View(context.Background(), func(tx store.Txn) error {
		return tx.Scan([]byte("big/"), nil, func(k, v []byte) error {
			if len(v) != len(big) || int(v[0]) != len(got) {
				return fmt.Errorf("value of %s: %d bytes, first %d", k, len(v), v[0])
			}
			got = append(got, string(k))
			return nil
		})
	})
	if err != nil || len(got) != n || got[n-1] != fmt.Sprintf("big/%02d", n-1) {
		t.Fatalf("scan of %d large values = %d keys (%v), err %v", n, len(got), got, err)
	}
}
