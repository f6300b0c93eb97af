package server

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/provenant/provenant/origin/origintest/originproc"
)

// cpuOf is the CPU time (user and system, all threads) process pid has
// used, to the nanosecond; 0 is this process. The kernel's CPU clock of
// another process, not /proc's ticks of 10 ms.
func cpuOf(b *testing.B, pid int) time.Duration {
	id := int32(unix.CLOCK_PROCESS_CPUTIME_ID)
	if pid != 0 {
		id = int32((^pid)<<3 | 2) // CPUCLOCK_SCHED of the whole process
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// BenchmarkVerifyEdgeCPU is the CPU of one verify through the edge
// against the origin's own verify of the same file, with a real origin
// process and five edges in this process: the compiled-in core (native),
// the module in wazero (wasm), both with the exact probe off (-noprobe:
// every file analysed, the edge before the exact-only lookup), and the
// module in wazero reading every manifest with the C2PA module before the
// lookup, probe off (wasm-c2pa-first: the edge before the lookup answered
// the service's own signed output's manifest). Every iteration verifies
// once at each, back to back, so that load hits them alike.
//
// The edge's CPU is this process's during its verify, less this
// process's during the origin's own verify (the client's share: the
// upload and the answer); the origin's is read from its CPU clock, and
// for the edges it is the lookup's cost. Inputs: a 1.0 MP photograph from
// bench/images (a small test picture without it) signed by the origin,
// which embeds its C2PA manifest, and the same photograph unsigned.
//
//	go test -run '^$' -bench VerifyEdgeCPU -benchtime 10x -count 5 ./edge/internal/server
func BenchmarkVerifyEdgeCPU(b *testing.B) {
	o := originproc.Start(b, originproc.Options{Binary: mustBuilt(b).origin, Args: []string{"--trusted-proxies", "127.0.0.1/32"}})
	targets := []struct{ name, url string }{{"origin", o.URL}}
	for _, e := range []struct {
		name string
		opts edgeOpts
	}{{"native", edgeOpts{engine: "native"}}, {"wasm-c2pa-first", edgeOpts{readC2PAFirst: true, mutate: noProbe}}, {"wasm", edgeOpts{}},
		{"native-noprobe", edgeOpts{engine: "native", mutate: noProbe}}, {"wasm-noprobe", edgeOpts{mutate: noProbe}}} {
		url, _ := startEdge(b, o.URL, e.opts)
		targets = append(targets, struct{ name, url string }{e.name, url})
	}
	photo, err := os.ReadFile(filepath.Join(mustBuilt(b).root, "bench", "images", "plasma__Flow__720x1440.jpg"))
	if err != nil {
		photo = testImage(b, "meadow.jpg")
	}
	s := newSigner(b, o.URL, "bench@edge.example")
	signed, _ := s.sign(b, o.URL, photo)
	for _, in := range []struct {
		name string
		file []byte
	}{{"signed-photo", signed}, {"unsigned-photo", photo}} {
		verify := func(i int) response {
			r := upload(b, targets[i].url+"/api/v1/verify", nextClient(), "", in.file, nil)
			mustStatus(b, r, 200, targets[i].name+" verify")
			if engine, _, _ := strings.Cut(targets[i].name, "-"); i > 0 && !strings.HasPrefix(r.header.Get("X-Verified-By"), "edge "+engine) {
				b.Fatalf("%s: X-Verified-By %q: the edge passed it on", targets[i].name, r.header.Get("X-Verified-By"))
			}
			return r
		}
		for i := range targets { // warm the instances at this size
			verify(i)
		}
		b.Run(in.name, func(b *testing.B) {
			self := make([]time.Duration, len(targets))
			origin := make([]time.Duration, len(targets))
			for b.Loop() {
				for i := range targets {
					s0, o0 := cpuOf(b, 0), cpuOf(b, o.Pid)
					verify(i)
					self[i] += cpuOf(b, 0) - s0
					origin[i] += cpuOf(b, o.Pid) - o0
				}
			}
			n := float64(b.N)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / n / 1e3 }
			client := self[0]
			b.ReportMetric(ms(origin[0]), "origin-cpu-ms")
			for i := 1; i < len(targets); i++ {
				edge := self[i] - client
				b.ReportMetric(ms(edge), targets[i].name+"-cpu-ms")
				b.ReportMetric(ms(origin[i]), targets[i].name+"-lookup-cpu-ms")
				b.ReportMetric(float64(edge)/float64(origin[0]), targets[i].name+"/origin")
			}
			edge := func(name string) float64 {
				i := slices.IndexFunc(targets, func(t struct{ name, url string }) bool { return t.name == name })
				return float64(self[i] - client)
			}
			b.ReportMetric(edge("wasm-c2pa-first")/edge("wasm-noprobe"), "c2pa-first/wasm-noprobe")
			b.ReportMetric(edge("wasm")/edge("wasm-noprobe"), "wasm/wasm-noprobe")
			b.ReportMetric(edge("native")/edge("native-noprobe"), "native/native-noprobe")
		})
	}
}

// noProbe turns the exact probe off (Config.NoExactProbe).
func noProbe(c *Config) { c.NoExactProbe = true }
