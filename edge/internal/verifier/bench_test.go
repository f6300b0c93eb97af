package verifier

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/cputime"
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

// processCPU is the CPU time this process has used (user and system, all
// threads): wall clock would count the other work of a shared machine.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkVerifyCPU is the process CPU of one verify's work at the edge
// (analyze, then decide over an empty lookup answer) in the three ways
// the edge can run it: the core compiled in (what the origin's own verify
// costs), the module decoding the file itself (analyze_hashed) and the
// module given the host's native decode (analyze_decoded). The three run
// back to back in every iteration, so that load hits them alike; the
// ratios to native are reported per round, to be compared as medians over
// -count rounds:
//
//	go test -run '^$' -bench VerifyCPU -benchtime 4x -count 5 ./edge/internal/verifier
func BenchmarkVerifyCPU(b *testing.B) {
	type input struct {
		name string
		file []byte
	}
	inputs := []input{{"noise-1.2MP", noise(b, 1280, 960)}}
	for _, f := range []struct{ name, path string }{
		{"photo-1.0MP", "plasma__Flow__720x1440.jpg"},
		{"photo-4.1MP", "plasma__BytheWater__2560x1600.jpg"},
		{"photo-14.7MP", "plasma__Volna__5120x2880.jpg"},
	} {
		if file, err := os.ReadFile("../../../bench/images/" + f.path); err == nil {
			inputs = append(inputs, input{f.name, file})
			if f.name == "photo-4.1MP" {
				inputs = append(inputs, input{"signed-photo-4.1MP", markedJPEG(b, file, 1<<30, 1<<30)})
			}
		}
	}
	ctx := context.Background()
	engines := []Engine{
		Native{Limits: limits.Default()},
		newWasm(b, WasmConfig{Instances: 1, ModuleDecode: true}),
		newWasm(b, WasmConfig{Instances: 1}),
	}
	lookup := []byte(`{"candidates":[]}`)
	verify := func(e Engine, file []byte) {
		a, err := e.Analyze(ctx, file)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Decide(ctx, a, lookup); err != nil {
			b.Fatal(err)
		}
	}
	for _, in := range inputs {
		for _, e := range engines { // warm the instances at this size
			verify(e, in.file)
		}
		b.Run(in.name, func(b *testing.B) {
			var cpu [3]time.Duration
			for b.Loop() {
				for i, e := range engines {
					t0 := processCPU(b)
					verify(e, in.file)
					cpu[i] += processCPU(b) - t0
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(cpu[0].Microseconds())/n/1e3, "native-cpu-ms")
			b.ReportMetric(float64(cpu[1].Microseconds())/n/1e3, "module-decode-cpu-ms")
			b.ReportMetric(float64(cpu[2].Microseconds())/n/1e3, "host-decode-cpu-ms")
			b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "module-decode/native")
			b.ReportMetric(float64(cpu[2])/float64(cpu[0]), "host-decode/native")
		})
	}
}

// BenchmarkVerifySteps splits what the wasm edge spends on one verify of
// a small photograph (1.0 MP from bench/images, a 1.2 MP noise JPEG
// without it) into its steps, each timed on its own locked thread's CPU
// clock: the native SHA-256 and luma decode (hostDecode), the module's
// analyze_decoded with the copies in and out, parsing its answer, decide
// over an empty lookup answer (the JSON both ways and the copies), and
// the module's alloc and free of one byte (the price of taking an
// instance from the pool and crossing into the module at all). What is not analyze_decoded is what
// the edge adds to the analysis.
//
//	go test -run '^$' -bench VerifySteps -benchtime 10x -count 5 ./edge/internal/verifier
func BenchmarkVerifySteps(b *testing.B) {
	file, err := os.ReadFile("../../../bench/images/plasma__Flow__720x1440.jpg")
	if err != nil {
		file = noise(b, 1280, 960)
	}
	ctx := context.Background()
	w := newWasm(b, WasmConfig{Instances: 1})
	g := w.cur.Load()
	lookup := []byte(`{"candidates":[]}`)
	a, err := w.Analyze(ctx, file)
	if err != nil {
		b.Fatal(err)
	}
	var parts [][]byte
	var out []byte
	steps := []struct {
		name string
		f    func() error
	}{
		{"host-decode", func() error {
			var ok bool
			if parts, ok = hostDecode(file, sha256.Sum256(file), w.cfg.MemoryBytes); !ok {
				return errors.New("not decoded on the host")
			}
			return nil
		}},
		{"analyze-decoded", func() (err error) { out, err = g.call(ctx, "analyze_decoded", parts...); return err }},
		{"parse", func() (err error) { _, _, err = parseAnalyze(out); return err }},
		{"decide", func() (err error) { _, err = w.Decide(ctx, a, lookup); return err }},
		{"alloc-free", func() error {
			in, err := g.get(ctx)
			if err != nil {
				return err
			}
			defer g.put(ctx, in, false)
			r, err := in.mod.ExportedFunction("alloc").Call(ctx, 1)
			if err == nil {
				_, err = in.mod.ExportedFunction("free").Call(ctx, r[0])
			}
			return err
		}},
	}
	cpu := make([]time.Duration, len(steps))
	for b.Loop() {
		for i, s := range steps {
			var err error
			cpu[i] += cputime.Thread(func() { err = s.f() })
			if err != nil {
				b.Fatalf("%s: %v", s.name, err)
			}
		}
	}
	var total time.Duration
	for i, s := range steps {
		b.ReportMetric(float64(cpu[i].Microseconds())/float64(b.N)/1e3, s.name+"-ms")
		total += cpu[i]
	}
	b.ReportMetric(float64(total-cpu[1])/float64(total), "not-analyze-decoded/total")
}
