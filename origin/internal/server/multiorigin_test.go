package server

import (
	"crypto/rand"
	"slices"
	"sync"
	"testing"

	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
)

// onPostgres puts the origin's store on the shared database url with the
// installation's master key, as every origin of a scale-out deployment is
// configured.
func onPostgres(url string, master []byte) serverOpt {
	return func(c *Config, _ *deps) {
		c.PostgresURL = url
		c.MasterKey = master
	}
}

// TestTwoOriginsOnPostgres runs two origins on one PostgreSQL database:
// an account registered on one logs in on the other, keys made on one
// work on the other, concurrent signs on both are each stored once, both
// dashboards count every record, and a file signed on one verifies on the
// other.
func TestTwoOriginsOnPostgres(t *testing.T) {
	url := pgtest.Start(t).NewDatabase()
	master := make([]byte, 32)
	if _, err := rand.Read(master); err != nil {
		t.Fatal(err)
	}
	a := startServer(t, "", nil, onPostgres(url, master))
	b := startServer(t, "", nil, onPostgres(url, master))

	s := a.newSigner("scale@example.com")
	// A's session token and API key are accepted by B.
	r := b.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	b.mustStatus(r, 200, "dashboard on B with a token from A")
	r = b.do("POST", "/api/v1/keys/api-keys", s.token, map[string]any{"name": "made on B"})
	b.mustStatus(r, 201, "API key created on B")
	keyB, _ := r.json(t)["key"].(string)

	const perOrigin = 4
	var mu sync.Mutex
	signed := map[string][]byte{} // record id → signed file
	var wg sync.WaitGroup
	for i, o := range []struct {
		ts  *testServer
		key string
	}{{a, s.apiKey}, {b, keyB}} {
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
	if len(signed) != 2*perOrigin {
		t.Fatalf("%d distinct record ids for %d signs", len(signed), 2*perOrigin)
	}

	for _, ts := range []*testServer{a, b} {
		r := ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
		ts.mustStatus(r, 200, "dashboard")
		if n := r.json(t)["total_signed"]; n != float64(2*perOrigin) {
			t.Errorf("total_signed = %v, want %d on every origin", n, 2*perOrigin)
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
	i := 0
	for id, file := range signed {
		ts := []*testServer{a, b}[i%2]
		i++
		v := ts.verify(file)
		if !v.Authentic || v.RecordID != id {
			t.Errorf("verify of %s = authentic %v record %s", id, v.Authentic, v.RecordID)
		}
	}
	t.Logf("%d records signed on two origins", len(signed))
}
