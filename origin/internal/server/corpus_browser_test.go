package server

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/origintest/corpus"
)

// TestConformanceCorpusInChromium is the browser's leg of the conformance
// corpus (origin/origintest/corpus): every picture of the corpus badged
// by the widget in headless Chromium, with the module's decoder and with
// the browser's own, reduces to the golden row of its case (the row the
// origin, the core, the module in wazero, the edge, the CLI and the SDK
// are held to), and the browser decoder's confidence is within 0.05 of
// the origin's.
func TestConformanceCorpusInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a corpus of signed records")
	}
	many := func(name string) ratelimit.Policy {
		return ratelimit.Policy{Name: name, Quota: 10000, Window: time.Minute}
	}
	ts := startBrowserServer(t, nil, 2, func(c *Config) {
		c.Anchor.BatchInterval = time.Hour
		c.Limits = httpapi.Limits{Verify: many("verify"), Lookup: many("verify-lookup"), Register: many("register")}
	})
	cp, golden := corpus.BuildForTest(t, corpus.Origin{URL: ts.base, Advance: func(d time.Duration) { ts.clock.Advance(d) }, Tag: "browser"})
	files := map[string][]byte{}
	var names []string
	cases := map[string]corpus.Case{}
	for i, c := range cp.Cases {
		if c.NotAnImage {
			continue // the browser verifies pictures; such a file goes to the server (TestVerifyPageUploadsWhatItCannotRead)
		}
		n := fmt.Sprintf("c%02d", i)
		files["/img/"+n+".jpg"] = c.File
		names = append(names, n)
		cases[n] = c
	}
	files["/page.html"] = widgetPage(ts.base, names, ` data-decoder="browser"`)
	files["/page-wasm.html"] = widgetPage(ts.base, names, ` data-decoder="wasm"`)
	page := servePage(t, files)
	for _, decoder := range []string{"wasm", "browser"} {
		t.Run(decoder, func(t *testing.T) {
			b := newBrowser(t)
			p := "/page.html"
			if decoder == "wasm" {
				p = "/page-wasm.html"
			}
			b.run(t, "open "+p, chromedp.Navigate(page+p))
			// Every image verified now, in view or not.
			b.run(t, "verify every picture", chromedp.Evaluate(`(async () => { while (!window.Provenant) await new Promise((r) => setTimeout(r, 20));
			  document.querySelectorAll('img[data-provenant]').forEach((img) => Provenant.verify(img)); })()`, nil))
			got := b.waitBadges(t, len(names), 120*time.Second)
			for _, n := range names {
				c := cases[n]
				t.Run(c.Name, func(t *testing.T) {
					g := got[n]
					if g.Verification == nil || g.Status == "error" {
						t.Fatalf("badge %q: %+v", g.Status, g.Verification)
					}
					if d := corpus.Diff(c, golden[c.Name], corpus.Summarize(g.Verification.Result, cp.Roles)); d != "" {
						t.Errorf("pixels read by %s as %s: %s", g.Verification.Decoder, g.Verification.Pixels, d)
					}
					if decoder == "browser" {
						w := ts.verifyWire(c.File)
						if d := math.Abs(w.Confidence - g.Verification.Result.Confidence); d > 0.05 {
							t.Errorf("confidence %.3f in the browser, %.3f at the origin", g.Verification.Result.Confidence, w.Confidence)
						}
					}
				})
			}
		})
	}
}
