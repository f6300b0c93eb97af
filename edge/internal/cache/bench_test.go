package cache

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/compress"
)

// benchFixture: a badge the cache may keep (cached) and the same badge
// marked no-store (fetched from the origin on every request, through the
// same edge), plus the origin's own address for a direct baseline.
func benchFixture(b *testing.B) (*edgeFixture, *fasthttp.HostClient) {
	f := newFixture(b, func(c *Config) { c.Now = nil })
	f.origin.set("/api/v1/widget/badge/cached.svg", badge())
	each := badge()
	each.cc = "no-store"
	f.origin.set("/api/v1/widget/badge/each.svg", each)
	direct := &fasthttp.HostClient{Addr: f.origin.addr, ReadTimeout: 10 * time.Second, MaxConns: 512, MaxIdleConnDuration: 300 * time.Millisecond}
	return f, direct
}

// burst sends n GETs of path with c concurrent clients and returns the
// elapsed time; any failure stops the benchmark.
func burst(b *testing.B, client *fasthttp.HostClient, path string, n, c int) time.Duration {
	errs := make(chan error, c)
	start := time.Now()
	for w := range c {
		go func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI("http://edge.test" + path)
			req.Header.Set("Accept-Encoding", "gzip")
			for i := w; i < n; i += c {
				if err := client.Do(req, resp); err != nil {
					errs <- err
					return
				}
				if resp.StatusCode() != 200 {
					errs <- errStatus(resp.StatusCode())
					return
				}
			}
			errs <- nil
		}()
	}
	for range c {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

type errStatus int

func (e errStatus) Error() string { return "status " + strconv.Itoa(int(e)) }

// BenchmarkBadge serves one badge three ways in the same run: from the
// cache, from the origin on every request through the edge, and from the
// origin directly. Each iteration alternates small bursts of the three
// (20 rounds of 100 requests each), so that load spikes on a shared
// machine hit them alike; it reports the median over iterations of each
// rate and of the ratio of the cached rate to the fetched-each-time rate.
func BenchmarkBadge(b *testing.B) {
	f, direct := benchFixture(b)
	const rounds, n, c = 20, 100, 16
	burst(b, f.client, "/api/v1/widget/badge/cached.svg", c, c) // fill, warm connections
	burst(b, f.client, "/api/v1/widget/badge/each.svg", c, c)
	burst(b, direct, "/api/v1/widget/badge/cached.svg", c, c)
	var cached, each, origin, ratio []float64
	b.ResetTimer()
	for range b.N {
		var tc, te, td time.Duration
		for range rounds {
			tc += burst(b, f.client, "/api/v1/widget/badge/cached.svg", n, c)
			te += burst(b, f.client, "/api/v1/widget/badge/each.svg", n, c)
			td += burst(b, direct, "/api/v1/widget/badge/cached.svg", n, c)
		}
		cached = append(cached, rounds*n/tc.Seconds())
		each = append(each, rounds*n/te.Seconds())
		origin = append(origin, rounds*n/td.Seconds())
		ratio = append(ratio, te.Seconds()/tc.Seconds())
	}
	b.ReportMetric(median(cached), "cached-req/s")
	b.ReportMetric(median(each), "fetched-req/s")
	b.ReportMetric(median(origin), "origin-direct-req/s")
	b.ReportMetric(median(ratio), "cached/fetched")
	b.ReportMetric(0, "ns/op")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkVariant is the one-time cost of a stored object's compressed
// variant (the wait of the first client asking for that coding), on the
// verifier module named by PROVENANT_BENCH_WASM.
func BenchmarkVariant(b *testing.B) {
	path := os.Getenv("PROVENANT_BENCH_WASM")
	if path == "" {
		b.Skip("PROVENANT_BENCH_WASM names no verifier module (make wasm builds one)")
	}
	body, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, coding := range []string{compress.Zstd, compress.Brotli, compress.Gzip} {
		for name, effort := range map[string]compress.Effort{"default": compress.EffortDefault, "high": compress.EffortHigh} {
			b.Run(coding+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				var out []byte
				for range b.N {
					out = compress.Encode(out[:0], coding, body, effort)
				}
				b.ReportMetric(float64(len(out))/float64(len(body))*100, "%size")
			})
		}
	}
}

// BenchmarkServeHit is the cache's own cost of a HIT, without the network.
func BenchmarkServeHit(b *testing.B) {
	f, _ := benchFixture(b)
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/api/v1/widget/badge/cached.svg")
	ctx.Request.Header.SetHost("edge.test")
	ctx.Request.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	ctx.Request.Header.Set("Accept", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8")
	f.cache.Serve(&ctx)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ctx.Response.Reset()
		f.cache.Serve(&ctx)
	}
	if string(ctx.Response.Header.Peek("X-Cache")) != "HIT" {
		b.Fatalf("X-Cache %s", ctx.Response.Header.Peek("X-Cache"))
	}
}
