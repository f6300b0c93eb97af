package server

import (
	"crypto/rand"
	"sync/atomic"
	"testing"

	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
)

// BenchmarkSignStores measures sign throughput through real origins on
// loopback: one origin on Badger (the floor), and one, two and three
// origins on one PostgreSQL database, with four concurrent clients spread evenly over
// the origins. Run with -count to interleave the cases, and compare
// medians of ns/op to the Badger case of the same run. On a 2-core machine
// the origins share the cores, so this shows the cost of the shared store,
// not scaling.
func BenchmarkSignStores(b *testing.B) {
	cluster := pgtest.Start(b)
	master := make([]byte, 32)
	if _, err := rand.Read(master); err != nil {
		b.Fatal(err)
	}
	photos := make([][]byte, 16)
	for i := range photos {
		photos[i] = photo(b, uint64(5000+i), 640, 480)
	}
	cases := []struct {
		name    string
		origins int
		pg      bool
	}{{"badger-1", 1, false}, {"postgres-1", 1, true}, {"postgres-2", 2, true}, {"postgres-3", 3, true}}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var opts []serverOpt
			if c.pg {
				opts = append(opts, onPostgres(cluster.NewDatabase(), master))
			}
			servers := make([]*testServer, c.origins)
			for i := range servers {
				servers[i] = startServer(b, "", nil, opts...)
			}
			s := servers[0].newSigner("bench@example.com")
			var n atomic.Uint64
			b.SetParallelism(2) // 2 × GOMAXPROCS clients
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					ts := servers[int(i)%len(servers)]
					r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey,
						[]namedFile{{"file", "p.jpg", photos[int(i)%len(photos)]}}, nil)
					if r.status != 201 {
						b.Errorf("sign: status %d: %s", r.status, r.body)
						return
					}
				}
			})
			b.StopTimer()
		})
	}
}
