package server

import (
	"crypto/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
)

// onPostgres puts the origin's store on the shared database url with the
// installation's master key, as every origin of a scale-out deployment is
// configured.
func onPostgres(url string, master []byte) serverOpt {
	return func(c *Config, _ *deps) {
		c.PostgresURL = url
		c.MasterKey = master
		c.Anchor.PollInterval = 20 * time.Millisecond
		// The test moves the fake clocks past the batch interval; the
		// lease must outlast that.
		c.Anchor.LeaseTTL = time.Hour
	}
}

// originsOnPostgres starts n origins on one new PostgreSQL database with
// one master key: the origins of one scale-out installation.
func originsOnPostgres(t *testing.T, n int) []*testServer {
	t.Helper()
	url := pgtest.Start(t).NewDatabase()
	master := make([]byte, 32)
	if _, err := rand.Read(master); err != nil {
		t.Fatal(err)
	}
	origins := make([]*testServer, n)
	for i := range origins {
		origins[i] = startServer(t, "", nil, onPostgres(url, master))
	}
	return origins
}

// TestOriginsOnPostgres runs three origins on one PostgreSQL database:
// an account registered on one logs in on the others, keys made on one
// work on the others, concurrent signs on all are each stored once, every
// dashboard counts every record, every record is anchored once (by the
// one anchoring leader: the dashboards agree on the anchored count), and
// a file signed on one verifies on another.
func TestOriginsOnPostgres(t *testing.T) {
	origins := originsOnPostgres(t, 3)
	a, b, c := origins[0], origins[1], origins[2]

	s := a.newSigner("scale@example.com")
	// A's session token and API key are accepted by B.
	r := b.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	b.mustStatus(r, 200, "dashboard on B with a token from A")
	r = b.do("POST", "/api/v1/keys/api-keys", s.token, map[string]any{"name": "made on B"})
	b.mustStatus(r, 201, "API key created on B")
	keyB, _ := r.json(t)["key"].(string)

	const perOrigin = 3
	var mu sync.Mutex
	signed := map[string][]byte{} // record id → signed file
	var wg sync.WaitGroup
	for i, o := range []struct {
		ts  *testServer
		key string
	}{{a, s.apiKey}, {b, keyB}, {c, s.apiKey}} {
		for j := range perOrigin {
			wg.Go(func() {
				r := o.ts.upload("/api/v1/sign?signing_key_id="+s.keyID, o.key,
					[]namedFile{{"file", "p.jpg", photo(t, uint64(1000+i*perOrigin+j), 640, 480)}}, map[string]string{"return_file": "true"})
				if r.status != 201 {
					t.Errorf("sign on origin %d: status %d: %s", i, r.status, r.body)
					return
				}
				mu.Lock()
				signed[r.header.Get("X-Record-Id")] = r.body
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	total := len(origins) * perOrigin
	if len(signed) != total {
		t.Fatalf("%d distinct record ids for %d signs", len(signed), total)
	}

	// Verified while pending: each origin's embedded chain holds only its
	// own anchors, so a proof checked on another origin's chain would not
	// verify; a real deployment points every origin at one chain
	// (--eth-rpc).
	i := 0
	for id, file := range signed {
		ts := origins[i%len(origins)]
		i++
		v := ts.verify(file)
		if !v.Authentic || v.RecordID != id {
			t.Errorf("verify of %s = authentic %v record %s", id, v.Authentic, v.RecordID)
		}
	}
	// Past the batch interval on every origin's clock, the leader closes
	// one batch of everything and anchors it.
	for _, ts := range origins {
		ts.clock.Advance(2 * anchor.DefaultBatchInterval)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := c.do("GET", "/api/v1/dashboard/stats", s.token, nil)
		c.mustStatus(r, 200, "dashboard")
		m := r.json(t)
		if m["blockchain_anchored"] == float64(total) && m["pending_batch"] == float64(0) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dashboard after 60 s: %s; want %d anchored, 0 pending", r.body, total)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, ts := range origins {
		r := ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
		ts.mustStatus(r, 200, "dashboard")
		m := r.json(t)
		if m["total_signed"] != float64(total) || m["blockchain_anchored"] != float64(total) {
			t.Errorf("dashboard total_signed %v, blockchain_anchored %v; want %d and %d on every origin", m["total_signed"], m["blockchain_anchored"], total, total)
		}
		r = ts.do("GET", "/api/v1/content-records?limit=100", s.apiKey, nil)
		ts.mustStatus(r, 200, "records list")
		var ids []string
		for _, it := range r.json(t)["items"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		slices.Sort(ids)
		want := slices.Sorted(func(yield func(string) bool) {
			for id := range signed {
				if !yield(id) {
					return
				}
			}
		})
		if !slices.Equal(ids, want) {
			t.Errorf("records list = %v, want each signed record once %v", ids, want)
		}
	}
	t.Logf("%d records signed and anchored on %d origins", len(signed), len(origins))
}

// TestPostgresNeedsSharedMasterKey: with a PostgreSQL store the origin
// refuses to start on a master key of its own data directory, which the
// other origins would not have.
func TestPostgresNeedsSharedMasterKey(t *testing.T) {
	_, err := New(Config{DataDir: t.TempDir(), PostgresURL: "postgres://127.0.0.1:1/none"})
	if err == nil || !strings.Contains(err.Error(), "PROVENANT_MASTER_KEY") {
		t.Fatalf("New on PostgreSQL without a master key = %v, want a refusal naming PROVENANT_MASTER_KEY", err)
	}
}

// TestBlobsDirNeedsPostgres: a blobs directory outside the data directory
// is refused with Badger, whose backups copy the files from the data
// directory only.
func TestBlobsDirNeedsPostgres(t *testing.T) {
	_, err := New(Config{DataDir: t.TempDir(), BlobsDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "blobs directory") {
		t.Fatalf("New on Badger with a blobs directory of its own = %v, want a refusal", err)
	}
}
