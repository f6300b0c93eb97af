package cluster

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore"
)

// newNet makes a network for t, or skips t with the reason when this
// machine cannot (not root, no ip command), except under CI (testtool.Missing).
func newNet(t *testing.T) *Net {
	t.Helper()
	if err := Available(); err != nil {
		testtool.Missing(t, "%v", err)
	}
	dir, err := os.MkdirTemp("", "pvcluster")
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNet(dir, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.Close()
		if !t.Failed() {
			_ = os.RemoveAll(dir)
		} else {
			t.Logf("hosts' directories and logs kept in %s", dir)
		}
	})
	return n
}

// TestPostgresFailover: a write acknowledged by the store is on both
// nodes (the primary commits synchronously); the primary's host is
// crashed and the store, through the multi-host connection string,
// writes again on the promoted standby with no error seen by its
// caller; the crashed node rejoins as a synchronous standby; and the
// write made before the crash is still there.
func TestPostgresFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL formation")
	}
	n := newNet(t)
	if err := PGAvailable(); err != nil {
		testtool.Missing(t, "%v", err)
	}
	ctx := context.Background()
	pg, err := StartPostgres(ctx, n, PGConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := pg.SyncStandbys(ctx); err != nil || s != 1 {
		t.Fatalf("synchronous standbys = %d, %v; want 1", s, err)
	}
	// The monitor's health checks decide when the standby is promoted;
	// on a loaded machine that takes longer than the production default
	// reconnect wait, and what this test holds is that the write lands
	// on the new primary, not how fast.
	st, err := pgstore.Open(ctx, pgstore.Config{URL: pg.URL(), ReconnectWait: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(k string) error {
		return st.Update(ctx, func(tx store.Txn) error { return tx.Set([]byte(k), []byte("v")) })
	}
	if err := put("before"); err != nil {
		t.Fatal(err)
	}
	old, err := pg.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The primary acknowledges a commit once a standby has flushed it.
	for q, want := range map[string]string{
		`SELECT current_setting('synchronous_commit')`:              "on",
		`SELECT current_setting('synchronous_standby_names') <> ''`: "true",
	} {
		if v, err := pg.query(ctx, old, q); err != nil || v != want {
			t.Fatalf("%s on the primary = %q, %v; want %s", q, v, err, want)
		}
	}
	pg.Crash(old)
	crashed := time.Now()
	if err := put("during"); err != nil {
		t.Fatalf("write during the failover: %v", err)
	}
	took := time.Since(crashed)
	now, err := pg.Primary(ctx)
	if err != nil || now == old {
		t.Fatalf("primary after the crash = %v, %v", now, err)
	}
	t.Logf("primary %s crashed; the write went to %s after %v", old.Name, now.Name, took.Round(time.Millisecond))
	if err := pg.Restart(old); err != nil {
		t.Fatal(err)
	}
	if err := pg.WaitSynchronous(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	err = st.View(ctx, func(tx store.Txn) error {
		for _, k := range []string{"before", "during"} {
			if _, err := tx.Get([]byte(k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("after the failover: %v", err)
	}
}

// TestChaos is the short variant of the chaos run (`go run ./bench chaos`
// runs the long one): three origins behind HAProxy on separate hosts,
// PostgreSQL under pg_auto_failover, SeaweedFS holding every origin's
// signed files in one bucket, Redis holding the rate limits, an edge and
// a geth chain, under a steady sign and verify load; the database
// primary is killed, the anchoring leader is killed, the object store is
// stopped for 10 s, the leader is cut from the database for 10 s, and
// everything is SIGKILLed and restarted. No acknowledged sign may be
// lost or stored twice, every record must end anchored with its
// content.signed webhook delivered, every acknowledged sign must have
// been on two database nodes, and the signed files must read back
// through the load balancer and from every origin.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole installation on separate hosts")
	}
	if err := Requirements(); err != nil {
		testtool.Missing(t, "%v", err)
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "pvchaos")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	inst, err := Install(ctx, InstallConfig{Dir: dir, Root: root, Log: log})
	t.Cleanup(func() {
		if inst != nil {
			inst.Close()
		}
		if !t.Failed() {
			_ = os.RemoveAll(dir)
		} else {
			t.Logf("hosts' directories and logs kept in %s", dir)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	const hold = 10 * time.Second
	rep, err := Run(ctx, inst, ChaosConfig{Faults: DefaultFaults(hold), Settle: 3 * time.Second, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("chaos report:\n%s", rep.Table())
	if !rep.OK() {
		t.Errorf("chaos run lost or damaged data:\n%s\n%s", rep.Table(), strings.Join(rep.Problems, "\n"))
	}
	// A database failover and a partitioned origin cost clients at most
	// the requests whose COMMIT was in flight (one per client): the
	// others wait for the database instead of failing. An object-store
	// outage refuses signs with 503 storage_unavailable (no record
	// without its file) and leaves verifies alone.
	faults := map[string]FaultResult{}
	for _, f := range rep.Faults {
		faults[f.Name] = f
	}
	for _, name := range []string{KillDBPrimary().Name, PartitionOrigin(hold).Name} {
		if f := faults[name]; f.SignErrors+f.VerifyErrors > 4 {
			t.Errorf("%s: %d requests failed, want at most one per client (4): %v", name, f.SignErrors+f.VerifyErrors, f.Errors)
		}
	}
	s3 := faults[StopObjectStore(hold).Name]
	if s3.SignErrors == 0 || s3.VerifyErrors != 0 {
		t.Errorf("object store stopped: %d of %d signs and %d of %d verifies failed; want signs refused, verifies served: %v",
			s3.SignErrors, s3.Signs, s3.VerifyErrors, s3.Verifies, s3.Errors)
	}
	for _, e := range s3.Errors {
		if !strings.Contains(e, "status 503 storage_unavailable") {
			t.Errorf("object store stopped: a sign failed with %q, want 503 storage_unavailable", e)
		}
	}
	if rep.Acked == 0 || len(rep.Faults) != len(DefaultFaults(hold)) || rep.FilesChecked == 0 {
		t.Errorf("%d signs acknowledged over %d faults, %d files read back", rep.Acked, len(rep.Faults), rep.FilesChecked)
	}
	// The edge verifies through the load balancer after it all.
	if err := httpGet(ctx, inst.Edge.URL+"/health"); err != nil {
		t.Errorf("edge: %v", err)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
