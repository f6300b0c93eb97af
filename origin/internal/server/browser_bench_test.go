package server

import (
	"bytes"
	"fmt"
	"image/jpeg"
	stdpng "image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
//   - analyze per MP: Provenant.analyze inside the worker (copies, JSON
//     and the C2PA module's read of the manifest included) three ways,
//     interleaved: with the decoder the worker chooses, with the
//     browser's (ImageDecoder's planes, then analyze_pixels) and with the
//     module's (analyze_hashed), next to facts.Analyze and the full
//     pure-Go decode (imagex.Decode) natively, same files, same run;
//     medians of 7 runs; the same three ways for a 4 MP PNG and the
//     progressive JPEGs of bench/images when present;
//   - image load to final badge: from the <img> load event to the badge's
//     provenant-status event, for a page that already loaded the module
//     (warm; fetch, analyze, lookup, decide) and for the first image of a
//     fresh page (cold: worker and module start included); the warm
//     badges again on a page whose widget has the browser decode every
//     JPEG (data-decoder="browser").
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
	scene, err := jpeg.Decode(bytes.NewReader(demo.Scene(31, 2449, 1633)))
	if err != nil {
		b.Fatal(err)
	}
	var png bytes.Buffer
	if err := stdpng.Encode(&png, scene); err != nil {
		b.Fatal(err)
	}
	files["/other/png-4MP.png"] = png.Bytes()
	others := append([]otherFile{{name: "png-4MP", src: "/other/png-4MP.png", pixels: 2449 * 1633}}, progressiveJPEGs(b, files)...)
	files["/page.html"] = []byte(fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset=utf-8></head><body><script src="%s/api/v1/widget/embed.js"></script></body></html>`, ts.base))
	files["/page-browser.html"] = []byte(fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset=utf-8></head><body><script src="%s/api/v1/widget/embed.js" data-decoder="browser"></script></body></html>`, ts.base))
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
			timeBadges(b, run, sz.name, "badge-")

			src := "/img/" + sz.name + ".jpg"
			auto, host, mod := analyzeThreeWays(b, run, src)
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
			a, h, w, nat, dec := median(auto.MS), median(host.MS), median(mod.MS), median(native), median(decode)
			// Where each decoder's time goes, step by step.
			reportSteps(b, host, "browser-path-", sz.name, "inspect", "decode_luma", "imagedecoder", "frame_copy", "decode_rgba", "sha256", "c2pa", "analyze_pixels")
			reportSteps(b, mod, "wasm-path-", sz.name, "sha256", "analyze", "c2pa")
			b.ReportMetric(a/mp, "chromium-chosen-ms/MP-"+sz.name)
			b.ReportMetric(h/mp, "chromium-browser-decode-ms/MP-"+sz.name)
			b.ReportMetric(w/mp, "chromium-wasm-decode-ms/MP-"+sz.name)
			b.ReportMetric(nat/mp, "native-analyze-ms/MP-"+sz.name)
			b.ReportMetric(dec/mp, "native-full-decode-ms/MP-"+sz.name)
			b.ReportMetric(a/nat, "chosen/native-analyze-"+sz.name)
			b.ReportMetric(h/nat, "browser-decode/native-analyze-"+sz.name)
			b.ReportMetric(w/nat, "wasm-decode/native-analyze-"+sz.name)
			b.ReportMetric(h/dec, "browser-decode/native-full-decode-"+sz.name)
			b.ReportMetric(w/dec, "wasm-decode/native-full-decode-"+sz.name)
		}
		// Pictures the browser decodes by default: a PNG and the
		// photographs of bench/images saved as progressive JPEGs (when
		// present); the same three ways, unsigned, analyze only.
		for _, p := range others {
			mp := float64(p.pixels) / 1e6
			auto, host, mod := analyzeThreeWays(b, run, p.src)
			b.ReportMetric(median(auto.MS)/mp, "chromium-chosen-ms/MP-"+p.name)
			b.ReportMetric(median(host.MS)/mp, "chromium-browser-decode-ms/MP-"+p.name)
			b.ReportMetric(median(mod.MS)/mp, "chromium-wasm-decode-ms/MP-"+p.name)
		}
		// The same badges with the browser's decoder for every JPEG (as
		// the widget's default was before it chose per picture), on a
		// fresh page of the same browser.
		if err := chromedp.Run(br.ctx, chromedp.Navigate(page+"/page-browser.html")); err != nil {
			b.Fatal(err)
		}
		run(badgeTimingJS("/img/1MP.jpg"), &cold)
		for _, sz := range sizes {
			timeBadges(b, run, sz.name, "badge-browser-decoder-")
		}
		br.cancel()
	}
}

// analyzed is Provenant.analyze's answer.
type analyzed struct {
	MS      []float64            `json:"ms"`
	Decoder string               `json:"decoder"`
	Pixels  string               `json:"pixels"`
	Steps   []map[string]float64 `json:"steps"`
}

// analyzeThreeWays times Provenant.analyze of src inside the worker, 7
// runs each: with the decoder the worker chooses, with the browser's
// and with the module's. It fails unless the choice is the one the
// worker documents (the module's for a sequential JPEG it decodes at
// reduced scale, the browser's for the 1 MP JPEG, a progressive one or a
// PNG).
func analyzeThreeWays(b *testing.B, run func(string, any), src string) (auto, host, mod analyzed) {
	b.Helper()
	// One call each first, untimed (the modules' code tiers up and their
	// memory grows to the picture's size), then 7 rounds interleaved, so
	// that no way pays for another's warm-up or for a change of load.
	ways := []struct {
		arg string
		out *analyzed
	}{{"", &auto}, {", 'browser'", &host}, {", 'wasm'", &mod}}
	for round := range 8 {
		for _, w := range ways {
			var a analyzed
			run(fmt.Sprintf(`Provenant.analyze(%q, 1%s)`, src, w.arg), &a)
			w.out.Decoder, w.out.Pixels = a.Decoder, a.Pixels
			if round > 0 {
				w.out.MS = append(w.out.MS, a.MS...)
				w.out.Steps = append(w.out.Steps, a.Steps...)
			}
		}
	}
	want := "wasm"
	if strings.HasPrefix(src, "/other/") || strings.Contains(src, "1MP") {
		want = "browser"
	}
	if auto.Decoder != want || host.Decoder != "browser" || mod.Decoder != "wasm" {
		b.Fatalf("%s: decoders %q, %q and %q, want %s, browser and wasm", src, auto.Decoder, host.Decoder, mod.Decoder, want)
	}
	return auto, host, mod
}

// timeBadges reports the median of 7 warm badges of the picture of that
// size, and of each step of the worker's (the rest is start, messages and
// rendering).
func timeBadges(b *testing.B, run func(string, any), size, prefix string) {
	b.Helper()
	var ms []float64
	var steps []map[string]float64
	for range 7 {
		var w badgeTiming
		run(badgeTimingJS("/img/"+size+".jpg"), &w)
		if w.Status != "verified" {
			b.Fatalf("%s badge %q, want verified", size, w.Status)
		}
		ms = append(ms, w.MS)
		steps = append(steps, w.Timings)
	}
	b.ReportMetric(median(ms), prefix+size+"-ms")
	for _, step := range []string{"fetch", "analyze", "lookup", "decide"} {
		var v []float64
		for _, st := range steps {
			v = append(v, st[step])
		}
		b.ReportMetric(median(v), prefix+size+"-"+step+"-ms")
	}
}

// reportSteps reports the median of each of a's steps that took time.
func reportSteps(b *testing.B, a analyzed, prefix, size string, steps ...string) {
	for _, step := range steps {
		var v []float64
		for _, st := range a.Steps {
			v = append(v, st[step])
		}
		if median(v) > 0 {
			b.ReportMetric(median(v), prefix+step+"-ms-"+size)
		}
	}
}

type otherFile struct {
	name, src string
	pixels    int
}

// progressiveJPEGs adds the progressive JPEGs of bench/images (the
// development photo set, not in the repository) to files, for the
// benchmark to time; none when the set is absent.
func progressiveJPEGs(b *testing.B, files map[string][]byte) []otherFile {
	b.Helper()
	var out []otherFile
	for _, name := range []string{"plasma__ColorfulCups__2560x1600", "bg__mate_abstract_Elephants_3840x2160", "plasma__Volna__5120x2880"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "bench", "images", name+".jpg"))
		if err != nil {
			continue
		}
		info, err := imagex.DecodeConfig(data, limits.Default())
		if err != nil {
			b.Fatal(err)
		}
		src := "/other/" + name + ".jpg"
		files[src] = data
		out = append(out, otherFile{name: fmt.Sprintf("progressive-%dMP", (info.Width*info.Height+500000)/1000000), src: src, pixels: info.Width * info.Height})
	}
	return out
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
