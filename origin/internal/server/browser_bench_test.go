package server

import (
	"fmt"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/provenant/provenant/origin/internal/demo"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// BenchmarkBrowser measures the widget in headless Chromium against a real
// origin, on generated 1, 4 and 12 MP JPEGs signed and anchored first:
//
//   - analyze per MP: Provenant.analyze inside the worker, with the
//     browser decoding (createImageBitmap at the reduced size, then
//     inspect and analyze_pixels; copies and JSON included) and with the
//     module decoding (analyze), next to facts.Analyze and the full
//     pure-Go decode (imagex.Decode) natively, same files, same run;
//     medians of 7 runs;
//   - image load to final badge: from the <img> load event to the badge's
//     provenant-status event, for a page that already loaded the module
//     (warm; fetch, analyze, lookup, decide) and for the first image of a
//     fresh page (cold: worker and module start included).
//
// Run: go test -run '^$' -bench Browser -benchtime 1x ./origin/internal/server
// (bench/README.md has the figures).
func BenchmarkBrowser(b *testing.B) {
	chromiumPath(b)
	ts := startServerB(b, modulesFS(b))
	s := ts.newSignerOrg("bench@widget.example", "Bench News")
	sizes := []struct {
		name string
		w, h int
	}{{"1MP", 1225, 817}, {"4MP", 2449, 1633}, {"12MP", 4243, 2828}}
	files := map[string][]byte{}
	var ids []string
	for i, sz := range sizes {
		r := ts.signFile(s, demo.Scene(uint64(10+i), sz.w, sz.h), nil)
		ts.mustStatus(r, 201, "sign "+sz.name)
		files["/img/"+sz.name+".jpg"] = r.body
		ids = append(ids, r.header.Get("X-Record-Id"))
	}
	if len(ids)%2 == 1 {
		// Anchoring closes batches of two: fill the last one.
		r := ts.signFile(s, demo.Scene(99, 640, 480), nil)
		ts.mustStatus(r, 201, "sign a filler")
		ids = append(ids, r.header.Get("X-Record-Id"))
	}
	ts.waitAnchored(s, ids...)
	files["/page.html"] = []byte(fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset=utf-8></head><body><script src="%s/api/v1/widget/embed.js"></script></body></html>`, ts.base))
	page := servePage(b, files)

	for i := 0; i < b.N; i++ {
		br := newBrowser(b)
		run := func(js string, out any) {
			b.Helper()
			err := chromedp.Run(br.ctx, chromedp.Evaluate(js, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
			if err != nil {
				b.Fatalf("%v\nconsole:\n%s", err, br.consoleLog())
			}
		}
		if err := chromedp.Run(br.ctx, chromedp.Navigate(page+"/page.html")); err != nil {
			b.Fatal(err)
		}
		var cold badgeTiming
		run(badgeTimingJS("/img/1MP.jpg"), &cold)
		b.ReportMetric(cold.MS, "cold-badge-1MP-ms")
		for _, sz := range sizes {
			mp := float64(sz.w*sz.h) / 1e6
			var ms []float64
			var steps []map[string]float64
			for range 7 {
				var w badgeTiming
				run(badgeTimingJS("/img/"+sz.name+".jpg"), &w)
				if w.Status != "verified" {
					b.Fatalf("%s badge %q, want verified", sz.name, w.Status)
				}
				ms = append(ms, w.MS)
				steps = append(steps, w.Timings)
			}
			b.ReportMetric(median(ms), "badge-"+sz.name+"-ms")
			// Where a badge's time goes in the worker (the rest is start,
			// messages and rendering).
			for _, step := range []string{"fetch", "analyze", "lookup", "decide"} {
				var v []float64
				for _, st := range steps {
					v = append(v, st[step])
				}
				b.ReportMetric(median(v), "badge-"+sz.name+"-"+step+"-ms")
			}

			type analyzed struct {
				MS      []float64            `json:"ms"`
				Decoder string               `json:"decoder"`
				Steps   []map[string]float64 `json:"steps"`
			}
			var host, mod analyzed
			src := "/img/" + sz.name + ".jpg"
			run(fmt.Sprintf(`Provenant.analyze(%q, 7)`, src), &host)
			run(fmt.Sprintf(`Provenant.analyze(%q, 7, 'wasm')`, src), &mod)
			if host.Decoder != "browser" || mod.Decoder != "wasm" {
				b.Fatalf("%s: decoders %q and %q, want browser and wasm", sz.name, host.Decoder, mod.Decoder)
			}
			var native, decode []float64
			for range 7 {
				start := time.Now()
				if _, err := imagex.Decode(files[src], limits.Default()); err != nil {
					b.Fatal(err)
				}
				decode = append(decode, float64(time.Since(start).Microseconds())/1000)
				start = time.Now()
				if _, err := facts.Analyze(files[src], limits.Default(), time.Now()); err != nil {
					b.Fatal(err)
				}
				native = append(native, float64(time.Since(start).Microseconds())/1000)
			}
			h, w, nat, dec := median(host.MS), median(mod.MS), median(native), median(decode)
			// Where the browser path's time goes, step by step.
			for _, step := range []string{"inspect", "decode_luma", "imagedecoder", "frame_copy", "decode_rgba", "sha256", "c2pa", "analyze_pixels"} {
				var v []float64
				for _, st := range host.Steps {
					v = append(v, st[step])
				}
				if median(v) > 0 {
					b.ReportMetric(median(v), "browser-path-"+step+"-ms-"+sz.name)
				}
			}
			b.ReportMetric(h/mp, "chromium-browser-decode-ms/MP-"+sz.name)
			b.ReportMetric(w/mp, "chromium-wasm-decode-ms/MP-"+sz.name)
			b.ReportMetric(nat/mp, "native-analyze-ms/MP-"+sz.name)
			b.ReportMetric(dec/mp, "native-full-decode-ms/MP-"+sz.name)
			b.ReportMetric(h/nat, "browser-decode/native-analyze-"+sz.name)
			b.ReportMetric(w/nat, "wasm-decode/native-analyze-"+sz.name)
			b.ReportMetric(h/dec, "browser-decode/native-full-decode-"+sz.name)
			b.ReportMetric(w/dec, "wasm-decode/native-full-decode-"+sz.name)
		}
		br.cancel()
	}
}

type badgeTiming struct {
	MS      float64            `json:"ms"`
	Status  string             `json:"status"`
	Timings map[string]float64 `json:"timings"`
}

// badgeTimingJS adds a marked image to the page and resolves to the time
// from its load event to its badge's final status. A cache-busting query
// makes every run fetch and check the file anew.
func badgeTimingJS(src string) string {
	return fmt.Sprintf(`new Promise((resolve) => {
  const img = document.createElement('img');
  let loaded = 0;
  img.addEventListener('load', () => { loaded = performance.now(); });
  img.setAttribute('data-provenant', '');
  img.width = 200;
  document.addEventListener('provenant-status', function on(e) {
    if (e.target !== img.nextElementSibling) return;
    document.removeEventListener('provenant-status', on);
    const end = performance.now();
    const v = e.target.verification || {};
    const wait = () => loaded ? resolve({ms: Math.max(0, end - loaded), status: e.detail.status, timings: v.timings || {}}) : setTimeout(wait, 5);
    wait();
  });
  img.src = %q + '?r=' + Math.random();
  document.body.prepend(img);
})`, src)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// startServerB is startServer for a benchmark.
func startServerB(b *testing.B, modules fs.FS) *testServer {
	b.Helper()
	return startServer(b, "", nil, func(c *Config, _ *deps) {
		c.Verifier = modules
		c.Anchor.BatchSize = 2
		c.Anchor.PollInterval = 20 * time.Millisecond
	})
}
