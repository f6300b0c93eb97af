package main

import (
	"flag"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/provenant/provenant/internal/cputime"
	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/internal/hamming/hammingtest"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
)

// indexCommand measures the near-duplicate index (internal/hamming) on a
// generated registry (hammingtest.Generate: single photos and bursts of
// re-encoded copies): build time, memory per record, recall, and lookup
// latency under concurrency while new records are added. With -store it
// runs the store half instead (fill Badger or PostgreSQL, restart = load
// the index from the store, follow the change feed), which lives in the
// origin's phindex package as BenchmarkRestart.
func indexCommand(fs *flag.FlagSet) func() error {
	n := fs.Int("n", 1_000_000, "records in the registry")
	queries := fs.Int("queries", 40_000, "lookups to time")
	conc := fs.Int("c", 4, "concurrent lookups")
	addRate := fs.Int("add-rate", 200, "records added per second while the lookups run (the write path)")
	seed := fs.Uint64("seed", 1, "generator seed")
	st := fs.String("store", "", "badger or postgres: run the store half (go test BenchmarkRestart in origin/internal/content/phindex)")
	return func() error {
		if *st != "" {
			cmd := exec.Command("go", "test", "./origin/internal/content/phindex", "-run", "^$", "-bench", "^BenchmarkRestart$", "-benchtime", "1x", "-timeout", "120m", "-v")
			cmd.Env = append(os.Environ(), fmt.Sprintf("PHINDEX_RESTART_N=%d", *n), "PHINDEX_RESTART_STORE="+*st, fmt.Sprintf("PHINDEX_RESTART_SEED=%d", *seed))
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			return cmd.Run()
		}
		with256 := *n <= 20_000_000
		t0 := time.Now()
		g := hammingtest.Generate(*n, *seed, with256)
		bursts, inBursts := 0, 0
		size := map[int32]int{}
		for _, p := range g.Photo {
			size[p]++
		}
		for _, k := range size {
			if k > 1 {
				bursts++
				inBursts += k
			}
		}
		fmt.Printf("generated %d records (%d photos, %d bursts holding %d records) in %v\n", *n, len(g.First), bursts, inBursts, time.Since(t0).Round(time.Millisecond))

		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		ix := hamming.New()
		t0 = time.Now()
		ids := make([][16]byte, *n)
		for i := range ids {
			ids[i] = hammingtest.ID(i)
		}
		ix.AddMany(ids, g.P64)
		ids = nil
		ix.Freeze()
		build := time.Since(t0)
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		fmt.Printf("index built in %v: %.1f bytes per record (arrays %.1f, heap growth %.1f)\n", build.Round(time.Millisecond),
			float64(ix.Bytes())/float64(*n), float64(ix.Bytes())/float64(*n), float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(*n))

		// Lookups as verification makes them: candidate distance 14, a pool
		// of poolFactor (4) × MaxCandidates nearest, confirmed on the 256-bit
		// hash.
		pool := 4 * limits.DefaultMaxCandidates
		type kind struct {
			name      string
			lo, hi    int // 64-bit bits flipped in a stored record's hash; -1: a random hash
			lat       []time.Duration
			cpu       []time.Duration // the lookup thread's CPU time
			found     int             // the record the query was made from is in the answer
			inPool    int             // ... and among the pool's nearest, confirmed on 256 bits
			firstPool int             // the photo's earliest claim is in the pool, confirmed
			firstNear int             // queries whose photo's earliest claim is within 8 bits and confirmable
			cands, n  int
			// unexplained: the target was found but not pooled, and the 64
			// nearest were not all copies of its photo
			unexplained int
			confirmed   int // pool records confirmed on 256 bits
			mu          sync.Mutex
		}
		kinds := []*kind{{name: "near 0-8", lo: 0, hi: 8}, {name: "near 9-14", lo: 9, hi: 14}, {name: "miss", lo: -1}}
		var next atomic.Int64
		stopAdd := make(chan struct{})
		var added atomic.Int64
		var addWG sync.WaitGroup
		if *addRate > 0 {
			addWG.Add(1)
			go func() {
				defer addWG.Done()
				r := rand.New(rand.NewPCG(*seed, 99))
				t := time.NewTicker(time.Second / time.Duration(*addRate))
				defer t.Stop()
				for i := *n; ; i++ {
					select {
					case <-stopAdd:
						return
					case <-t.C:
					}
					ix.Add(hammingtest.ID(i), r.Uint64())
					added.Add(1)
				}
			}()
		}
		cpu0 := cputime.Process()
		t0 = time.Now()
		fanOut(*conc, func(w int) {
			// Locked to its thread so that the thread's CPU time is the
			// lookups' own (wall latency on a shared machine is also
			// the neighbours' load).
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			r := rand.New(rand.NewPCG(*seed+uint64(w), 7))
			for {
				i := next.Add(1) - 1
				if i >= int64(*queries) {
					return
				}
				k := kinds[[]int{0, 0, 1, 2}[i%4]]
				target := -1
				q := r.Uint64()
				var q256 [4]uint64
				if k.lo >= 0 {
					target = r.IntN(*n)
					d := k.lo + r.IntN(k.hi-k.lo+1)
					q = hammingtest.FlipExact(r, g.P64[target], d)
					if with256 {
						q256 = hammingtest.Flip256(r, g.P256[target], min(phash.NearDistance256, 4*d+r.IntN(9)))
					}
				}
				c0 := cputime.ThreadNow()
				s := time.Now()
				ms := ix.Lookup(q, phash.CandidateDistance64)
				el := time.Since(s)
				cpu := cputime.ThreadNow() - c0
				// The pool as the origin builds it (phindex.LookupPool): the
				// 64 nearest, plus the two earliest-added within 8 bits and
				// within 14.
				inP := make(map[int]bool, pool+4)
				for j := range ms[:min(pool, len(ms))] {
					inP[j] = true
				}
				if len(ms) > pool {
					bySeq := make([]int, 0, len(ms)-pool)
					for j := pool; j < len(ms); j++ {
						bySeq = append(bySeq, j)
					}
					slices.SortFunc(bySeq, func(a, b int) int { return ms[a].Seq - ms[b].Seq })
					for _, within := range []int{hamming.DefaultExactRadius, phash.CandidateDistance64} {
						k := 0
						for _, j := range bySeq {
							if k < 2 && ms[j].D64 <= within {
								inP[j] = true
								k++
							}
						}
					}
				}
				found, inPool, firstPool, confirmed := false, false, false, 0
				for j, m := range ms {
					rec := int(m.ID[0]&0x7f)<<32 | int(m.ID[12])<<24 | int(m.ID[13])<<16 | int(m.ID[14])<<8 | int(m.ID[15])
					if rec == target {
						found = true
					}
					if !inP[j] || !with256 || rec >= *n {
						continue
					}
					if hammingtest.Distance256(q256, g.P256[rec]) > phash.NearDistance256 {
						continue
					}
					confirmed++
					if rec == target {
						inPool = true
					}
					if target >= 0 && rec == int(g.First[g.Photo[target]]) {
						firstPool = true
					}
				}
				// A target loaded from the index but left out of the pool:
				// was the pool's nearest part all its own photo's burst?
				unexplained := false
				if found && !inPool && with256 {
					same := 0
					for _, m := range ms[:min(pool, len(ms))] {
						rec := int(m.ID[0]&0x7f)<<32 | int(m.ID[12])<<24 | int(m.ID[13])<<16 | int(m.ID[14])<<8 | int(m.ID[15])
						if rec < *n && g.Photo[rec] == g.Photo[target] {
							same++
						}
					}
					unexplained = same < pool
				}
				firstNear := false
				if target >= 0 && with256 {
					f := int(g.First[g.Photo[target]])
					firstNear = bits.OnesCount64(q^g.P64[f]) <= hamming.DefaultExactRadius && hammingtest.Distance256(q256, g.P256[f]) <= phash.NearDistance256
					firstPool = firstPool && firstNear
				}
				k.mu.Lock()
				if unexplained {
					k.unexplained++
				}
				if firstNear {
					k.firstNear++
				}
				k.lat = append(k.lat, el)
				k.cpu = append(k.cpu, cpu)
				k.n++
				k.cands += len(ms)
				k.confirmed += confirmed
				if found {
					k.found++
				}
				if inPool {
					k.inPool++
				}
				if firstPool {
					k.firstPool++
				}
				k.mu.Unlock()
			}
		})
		wall, cpu := time.Since(t0), cputime.Process()-cpu0
		close(stopAdd)
		addWG.Wait()
		var all, allCPU []time.Duration
		fmt.Printf("%d lookups, %d concurrent, GOMAXPROCS %d, %d records added meanwhile: %.0f lookups/s, %.0f per CPU-second (%v CPU incl. queries' generation)\n",
			*queries, *conc, runtime.GOMAXPROCS(0), added.Load(), float64(*queries)/wall.Seconds(), float64(*queries)/cpu.Seconds(), cpu.Round(time.Millisecond))
		fmt.Println("| queries | n | p50 | p90 | p99 | max | found (any limit) | in the pool and confirmed | photo's earliest claim in the pool, when within 8 bits and confirmable | matches ≤ 14 per lookup |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
		for _, k := range kinds {
			all = append(all, k.lat...)
			allCPU = append(allCPU, k.cpu...)
			slices.Sort(k.lat)
			pct := func(x int) string {
				if k.lo < 0 {
					return "–"
				}
				return fmt.Sprintf("%.3f %%", 100*float64(x)/float64(k.n))
			}
			pool := pct(k.inPool)
			first := "–"
			if k.firstNear > 0 {
				first = fmt.Sprintf("%.3f %% of %d", 100*float64(k.firstPool)/float64(k.firstNear), k.firstNear)
			}
			if !with256 {
				pool, first = "–", "–"
			}
			fmt.Printf("| %s | %d | %v | %v | %v | %v | %s | %s | %s | %.2f |\n", k.name, k.n, q(k.lat, 50), q(k.lat, 90), q(k.lat, 99), k.lat[len(k.lat)-1].Round(time.Microsecond),
				pct(k.found), pool, first, float64(k.cands)/float64(k.n))
		}
		for _, k := range kinds {
			if k.lo >= 0 && with256 {
				fmt.Printf("%s: targets found but not in the pool although the 64 nearest were not all copies of their photo: %d\n", k.name, k.unexplained)
			}
		}
		slices.Sort(all)
		slices.Sort(allCPU)
		var sum time.Duration
		for _, c := range allCPU {
			sum += c
		}
		mean := sum / time.Duration(len(allCPU))
		fmt.Printf("all: wall p50 %v p90 %v p99 %v p99.9 %v; lookup CPU p50 %v p99 %v p99.9 %v mean %v (⇒ %.0f lookups/s per core)\n",
			q(all, 50), q(all, 90), q(all, 99), q10(all, 999), q(allCPU, 50), q(allCPU, 99), q10(allCPU, 999), mean.Round(time.Microsecond), 1/mean.Seconds())
		return nil
	}
}

func q(l []time.Duration, p int) time.Duration {
	return l[min(len(l)-1, len(l)*p/100)].Round(time.Microsecond)
}

func q10(l []time.Duration, pm int) time.Duration {
	return l[min(len(l)-1, len(l)*pm/1000)].Round(time.Microsecond)
}
