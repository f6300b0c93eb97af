package verifier

import (
	"context"
	"crypto/sha256"
	"os"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/limits"
)

// BenchmarkAnalyze is the per-call cost of analyze on a 1.2 MP JPEG in
// the three ways the edge can run it: the core compiled in (the floor),
// the module in wazero's compiler, and the module with a call deadline
// (WithCloseOnContextDone). Sub-benchmarks run interleaved per round
// (-count), so compare medians of the same run.
func BenchmarkAnalyze(b *testing.B) {
	file := noise(b, 1280, 960)
	ctx := context.Background()
	engines := []struct {
		name string
		eng  Engine
	}{
		{"native", Native{Limits: limits.Default()}},
		{"wasm", newWasm(b, WasmConfig{Instances: 1})},
		{"wasm-deadline", newWasm(b, WasmConfig{Instances: 1, Deadline: time.Minute})},
	}
	for _, e := range engines {
		if _, err := e.eng.Analyze(ctx, file); err != nil { // warm the instance
			b.Fatal(err)
		}
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := e.eng.Analyze(ctx, file); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6/1.2288, "ms/MP")
		})
	}
}

// BenchmarkInterleaved times native, wasm and wasm-deadline analyze back to
// back in every iteration, so that load spikes of a shared machine hit all
// three alike, and reports the ratios to native.
func BenchmarkInterleaved(b *testing.B) {
	file := noise(b, 1280, 960)
	ctx := context.Background()
	nat := Native{Limits: limits.Default()}
	w := newWasm(b, WasmConfig{Instances: 1})
	wd := newWasm(b, WasmConfig{Instances: 1, Deadline: time.Minute})
	var tn, tw, td time.Duration
	for _, e := range []Engine{nat, w, wd} {
		if _, err := e.Analyze(ctx, file); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		for i, e := range []Engine{nat, w, wd} {
			t0 := time.Now()
			if _, err := e.Analyze(ctx, file); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			switch i {
			case 0:
				tn += d
			case 1:
				tw += d
			case 2:
				td += d
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(tn.Milliseconds())/n, "native-ms")
	b.ReportMetric(float64(tw.Milliseconds())/n, "wasm-ms")
	b.ReportMetric(float64(td.Milliseconds())/n, "deadline-ms")
	b.ReportMetric(float64(tw)/float64(tn), "wasm/native")
	b.ReportMetric(float64(td)/float64(tw), "deadline/wasm")
}

// BenchmarkHostHash is what hashing on the host saves: analyze (the
// module hashes the file) and analyze_hashed (the edge hashes it natively,
// counted in the time) back to back on one instance in every iteration,
// for a small JPEG and a large photograph from bench/images when present.
func BenchmarkHostHash(b *testing.B) {
	files := []struct {
		name string
		file []byte
	}{{"noise-1.2MP", noise(b, 1280, 960)}}
	if f, err := os.ReadFile("../../../bench/images/plasma__Volna__5120x2880.jpg"); err == nil {
		files = append(files, struct {
			name string
			file []byte
		}{"photo-14.7MP", f})
	}
	ctx := context.Background()
	w := newWasm(b, WasmConfig{Instances: 1})
	g := w.cur.Load()
	for _, f := range files {
		b.Run(f.name, func(b *testing.B) {
			var inModule, onHost time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := g.call(ctx, "analyze", f.file); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				sum := sha256.Sum256(f.file)
				if _, err := g.call(ctx, "analyze_hashed", sum[:], f.file); err != nil {
					b.Fatal(err)
				}
				inModule, onHost = inModule+t1.Sub(t0), onHost+time.Since(t1)
			}
			n := float64(b.N)
			b.ReportMetric(float64(len(f.file))/1e6, "MB")
			b.ReportMetric(float64(inModule.Microseconds())/n/1e3, "module-hash-ms")
			b.ReportMetric(float64(onHost.Microseconds())/n/1e3, "host-hash-ms")
			b.ReportMetric(float64(inModule-onHost)/n/1e6, "saved-ms")
		})
	}
}
