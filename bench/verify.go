package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/internal/cputime"
	"github.com/provenant/provenant/internal/formdata"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// loadFlags are the flags the load generators share.
type loadFlags struct {
	url, images string
	c           int
	d           time.Duration
	mp          float64
	quality     int
	maxImages   int
	rate        float64
	// spread names each request's client by a distinct X-Forwarded-For
	// address, for a target that trusts this machine as its proxy.
	spread bool
}

func (lf *loadFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&lf.url, "url", "http://127.0.0.1:8080", "origin or edge base URL")
	fs.StringVar(&lf.images, "images", "bench/images", "directory of images (jpg, png, webp, gif)")
	fs.IntVar(&lf.c, "c", 2, "concurrent clients")
	fs.DurationVar(&lf.d, "d", 30*time.Second, "duration")
	fs.Float64Var(&lf.mp, "mp", 0, "if > 0, resize every image to this many megapixels and re-encode as JPEG (in memory) before the run")
	fs.IntVar(&lf.quality, "q", 90, "JPEG quality used with -mp")
	fs.IntVar(&lf.maxImages, "n", 16, "use at most this many images")
	fs.Float64Var(&lf.rate, "rate", 0, "if > 0, total requests per second (paced), e.g. to stay under a rate limit")
	fs.BoolVar(&lf.spread, "spread-clients", false, "send each request as a distinct client (X-Forwarded-For 198.18.0.0/15), for an origin or edge started with --trusted-proxies covering this machine, so per-IP limits do not cap the run")
}

// loadImages reads the image files, resized to mp megapixels as JPEG when
// mp > 0.
func (lf *loadFlags) loadImages() ([][]byte, error) {
	files, err := listImages(lf.images)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no images in %s", lf.images)
	}
	var out [][]byte
	for _, f := range files {
		if len(out) == lf.maxImages {
			break
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if lf.mp > 0 {
			img, err := imagex.Decode(b, limits.Default())
			if err != nil {
				continue
			}
			if b, err = resizeJPEG(img.Image, lf.mp, lf.quality); err != nil {
				return nil, err
			}
		}
		out = append(out, b)
	}
	return out, nil
}

func resizeJPEG(m image.Image, mp float64, q int) ([]byte, error) {
	b := m.Bounds()
	scale := sqrt(mp * 1e6 / float64(b.Dx()*b.Dy()))
	w, h := max(int(float64(b.Dx())*scale+0.5), 1), max(int(float64(b.Dy())*scale+0.5), 1)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), m, b, draw.Src, nil)
	return jpegOf(dst, q)
}

func sqrt(x float64) float64 {
	z := x / 2
	for i := 0; i < 50 && z > 0; i++ {
		z -= (z*z - x) / (2 * z)
	}
	return z
}

type request struct {
	body        []byte
	contentType string
}

// loadResult summarises a run.
type loadResult struct {
	n, errs  int
	status   map[int]int
	lat      []time.Duration
	elapsed  time.Duration
	cpuUser  time.Duration
	cpuSys   time.Duration
	lastBody string
}

// runLoad sends reqs round-robin from c clients for d to url, with the
// given headers, and collects latencies of the responses with wantStatus.
func runLoad(url string, headers map[string]string, reqs []request, c int, d time.Duration, rate float64, wantStatus int, spread bool) loadResult {
	tr := &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c, DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var pace <-chan time.Time
	if rate > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer t.Stop()
		pace = t.C
	}
	var mu sync.Mutex
	res := loadResult{status: map[int]int{}}
	u0, s0 := cputime.ProcessSplit()
	start := time.Now()
	fanOut(c, func(w int) {
		for i := w; ; i += c {
			if pace != nil {
				select {
				case <-pace:
				case <-ctx.Done():
					return
				}
			}
			if ctx.Err() != nil {
				return
			}
			rq := reqs[i%len(reqs)]
			req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(rq.body))
			req.Header.Set("Content-Type", rq.contentType)
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			if spread {
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.%d.%d.%d", 18+(i>>16)&1, (i>>8)&0xff, i&0xff))
			}
			t0 := time.Now()
			resp, err := client.Do(req)
			var body []byte
			if err == nil {
				body, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			lat := time.Since(t0)
			mu.Lock()
			switch {
			case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
				// cut off by the end of the run
			case err != nil:
				res.errs++
				res.status[-1]++
			default:
				res.n++
				res.status[resp.StatusCode]++
				if resp.StatusCode == wantStatus {
					res.lat = append(res.lat, lat)
				} else {
					res.errs++
					res.lastBody = string(body)
				}
			}
			mu.Unlock()
		}
	})
	res.elapsed = time.Since(start)
	u1, s1 := cputime.ProcessSplit()
	res.cpuUser, res.cpuSys = u1-u0, s1-s0
	return res
}

func pctDur(xs []time.Duration, p float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(int(p/100*float64(len(s))), len(s)-1)]
}

func (r loadResult) print(w io.Writer, what string) {
	ok := len(r.lat)
	fmt.Fprintf(w, "%s: %d requests in %v, %d ok (%.1f/s), %d errors\n", what, r.n, r.elapsed.Round(time.Millisecond), ok,
		float64(ok)/r.elapsed.Seconds(), r.errs)
	fmt.Fprintf(w, "  latency p50 %v  p95 %v  p99 %v  max %v\n", pctDur(r.lat, 50).Round(time.Microsecond*100),
		pctDur(r.lat, 95).Round(time.Microsecond*100), pctDur(r.lat, 99).Round(time.Microsecond*100), pctDur(r.lat, 100).Round(time.Microsecond*100))
	codes := make([]int, 0, len(r.status))
	for k := range r.status {
		codes = append(codes, k)
	}
	sort.Ints(codes)
	fmt.Fprint(w, "  status:")
	for _, k := range codes {
		if k == -1 {
			fmt.Fprintf(w, " transport-error×%d", r.status[k])
		} else {
			fmt.Fprintf(w, " %d×%d", k, r.status[k])
		}
	}
	fmt.Fprintln(w)
	cpu := r.cpuUser + r.cpuSys
	fmt.Fprintf(w, "  client CPU %v (user %v, sys %v) = %.2f cores\n", cpu.Round(time.Millisecond), r.cpuUser.Round(time.Millisecond),
		r.cpuSys.Round(time.Millisecond), cpu.Seconds()/r.elapsed.Seconds())
	if r.errs > 0 && r.lastBody != "" {
		fmt.Fprintf(w, "  last error body: %.300s\n", r.lastBody)
	}
}

// decodeCeiling decodes the images with c goroutines for d, as the origin
// does (imagex.Decode under the default limits), and returns decodes per
// second: the ceiling a decode-bound verify could reach on this machine.
func decodeCeiling(imgs [][]byte, c int, d time.Duration) (float64, error) {
	var n int64
	var mu sync.Mutex
	var firstErr error
	deadline := time.Now().Add(d)
	start := time.Now()
	fanOut(c, func(w int) {
		k := int64(0)
		for i := w; time.Now().Before(deadline); i += c {
			if _, err := imagex.Decode(imgs[i%len(imgs)], limits.Default()); err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			k++
		}
		mu.Lock()
		n += k
		mu.Unlock()
	})
	return float64(n) / time.Since(start).Seconds(), firstErr
}

func verifyCommand(fs *flag.FlagSet) func() error {
	var lf loadFlags
	lf.register(fs)
	floor := fs.Duration("floor", 10*time.Second, "total time spent measuring the decode-only ceiling in this process (0 to skip)")
	rounds := fs.Int("rounds", 5, "interleaved rounds of decode-only ceiling and verify load")
	serverPID := fs.Int("server-pid", 0, "if set, read the origin's CPU time from /proc and report CPU per request next to CPU per decode (robust on a shared machine)")
	apiKey := fs.String("api-key", "", "if set (with -signing-key), sign every image first and verify the signed outputs")
	signingKey := fs.String("signing-key", "", "signing key id for -api-key")
	reencode := fs.Int("reencode", 0, "with -api-key: re-encode the signed outputs as JPEG at this quality (watermark path instead of exact match)")
	return func() error {
		imgs, err := lf.loadImages()
		if err != nil {
			return err
		}
		if *apiKey != "" {
			if imgs, err = signAll(lf.url, *apiKey, *signingKey, imgs, *reencode); err != nil {
				return err
			}
			fmt.Printf("verify corpus: %d signed outputs (re-encoded at q%d when > 0)\n", len(imgs), *reencode)
		}
		reqs := make([]request, len(imgs))
		var px, bytesTotal int64
		for i, b := range imgs {
			body, ct := formdata.File("file", "image", b, nil)
			reqs[i] = request{body: body, contentType: ct}
			if info, err := imagex.DecodeConfig(b, limits.Default()); err == nil {
				px += int64(info.Width * info.Height)
			}
			bytesTotal += int64(len(b))
		}
		fmt.Printf("verify: %d images, mean %.2f MP, mean %d KB; c=%d d=%v GOMAXPROCS=%d\n", len(imgs),
			float64(px)/float64(len(imgs))/1e6, bytesTotal/int64(len(imgs))/1000, lf.c, lf.d, runtime.GOMAXPROCS(0))
		return interleaved(lf.url+"/api/v1/verify", nil, http.StatusOK, "verify", imgs, reqs, lf, *floor, *rounds, *serverPID)
	}
}

// interleaved runs the load against u in rounds, each preceded by a slice
// of the decode-only ceiling of the same images, so that both see the same
// machine load (the machine is shared), and prints throughput, the median
// ratio to the ceiling and, with serverPID, the origin's CPU per request
// next to the CPU per decode.
func interleaved(u string, hdr map[string]string, want int, what string, imgs [][]byte, reqs []request, lf loadFlags,
	floor time.Duration, rounds, serverPID int) error {
	var err error
	if rounds < 1 {
		rounds = 1
	}
	var total loadResult
	total.status = map[int]int{}
	var ratios, ceils, decodeCPU, serverCPU []float64
	for r := 0; r < rounds; r++ {
		var ceil float64
		if floor > 0 {
			u0, s0 := cputime.ProcessSplit()
			t0 := time.Now()
			if ceil, err = decodeCeiling(imgs, lf.c, floor/time.Duration(rounds)); err != nil {
				return fmt.Errorf("decode ceiling: %w", err)
			}
			u1, s1 := cputime.ProcessSplit()
			ceils = append(ceils, ceil)
			decodeCPU = append(decodeCPU, float64((u1-u0)+(s1-s0))/(ceil*time.Since(t0).Seconds()))
		}
		cpu0 := procCPU(serverPID)
		res := runLoad(u, hdr, reqs, lf.c, lf.d/time.Duration(rounds), lf.rate, want, lf.spread)
		if serverPID > 0 && len(res.lat) > 0 {
			serverCPU = append(serverCPU, float64(procCPU(serverPID)-cpu0)/float64(len(res.lat)))
		}
		total.n += res.n
		total.errs += res.errs
		total.lat = append(total.lat, res.lat...)
		total.elapsed += res.elapsed
		total.cpuUser += res.cpuUser
		total.cpuSys += res.cpuSys
		for k, v := range res.status {
			total.status[k] += v
		}
		if res.lastBody != "" {
			total.lastBody = res.lastBody
		}
		if ceil > 0 {
			ratios = append(ratios, float64(len(res.lat))/res.elapsed.Seconds()/ceil)
		}
	}
	if len(ceils) > 0 {
		fmt.Printf("decode-only ceiling (imagex.Decode, %d goroutines, in this process), per round: %s images/s\n", lf.c, fmtFloats(ceils, "%.1f"))
	}
	total.print(os.Stdout, "POST /api/v1/"+what)
	if len(ratios) > 0 {
		fmt.Printf("  %s throughput / decode ceiling per round: %s; median %.0f%%\n", what, fmtFloats(ratios, "%.2f"), 100*median(ratios))
	}
	if len(serverCPU) > 0 && len(decodeCPU) > 0 {
		dc, sc := median(decodeCPU)/1e6, median(serverCPU)/1e6
		fmt.Printf("  CPU per decode (client, median) %.1f ms; origin CPU per %s (median) %.1f ms; CPU-bound ratio %.0f%%\n", dc, what, sc, 100*dc/sc)
	}
	return nil
}

// signAll signs every image (return_file=true) and returns the watermarked
// outputs, re-encoded as JPEG at quality q when q > 0.
func signAll(base, apiKey, signingKey string, imgs [][]byte, q int) ([][]byte, error) {
	out := make([][]byte, 0, len(imgs))
	for _, b := range imgs {
		body, ct := formdata.File("file", "image", b, map[string]string{"return_file": "true"})
		req, _ := http.NewRequest("POST", base+"/api/v1/sign?signing_key_id="+signingKey, bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", "Bearer "+apiKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		marked, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusCreated {
			return nil, fmt.Errorf("sign: status %d: %.200s", resp.StatusCode, marked)
		}
		if q > 0 {
			img, err := imagex.Decode(marked, limits.Default())
			if err != nil {
				return nil, err
			}
			if marked, err = jpegOf(img.Image, q); err != nil {
				return nil, err
			}
		}
		out = append(out, marked)
	}
	return out, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fmtFloats(xs []float64, f string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf(f, x)
	}
	return out
}

// procCPU returns the user+system CPU time of process pid in nanoseconds
// (from /proc/<pid>/stat, in clock ticks of 10 ms), or 0.
func procCPU(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// utime and stime are fields 14 and 15 of the line, the 12th and 13th
	// after the parenthesised command name.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	_, _ = fmt.Sscan(string(f[11]), &ut)
	_, _ = fmt.Sscan(string(f[12]), &st)
	const tick = int64(10 * time.Millisecond) // sysconf(_SC_CLK_TCK) = 100 on Linux
	return (ut + st) * tick
}
