package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/wire"
)

// surfaceWidths are the viewports a person sees the verdict in: a laptop
// and a phone.
var surfaceWidths = []int64{1280, 390}

// TestSurfacesInChromium looks at what a person sees for the verdicts
// that used to contradict their words (an exact copy, a re-encoded copy,
// a record whose signing key was revoked, a derivative signed by a second
// organisation, a record-only badge, a video) on the web app's /verify
// and in the widget's panel, at 1280 and 390 px: each page shows the
// shared presentation's headline (and chain), keeps the wording rules
// (present.TextViolations), marks no check of an authentic file failed,
// and fits the viewport without horizontal scrolling. Screenshots go to
// $PROVENANT_TEST_ARTIFACTS (surface-*.png).
func TestSurfacesInChromium(t *testing.T) {
	clk := clock.NewFake(time.Now().UTC().Truncate(time.Second))
	ts := startBrowserServer(t, clk, 1, nil)
	dir := artifactDir(t)
	axe := axeScript(t)
	tmp := t.TempDir()

	first := ts.newSignerOrg("desk@first.example", "First Light News")
	exact, exactID := ts.signTestdata(first, "meadow.jpg", "sign")
	ts.waitAnchored(first, exactID)

	// A second organisation signs a copy as a derivative of the first.
	second := ts.newSignerOrg("desk@second.example", "Second Wire")
	r := ts.signFile(second, reencode(t, exact, 0.8, 85), map[string]string{"derivative_of": exactID})
	ts.mustStatus(r, 201, "sign a derivative")
	derivative, derivativeID := r.body, r.header.Get("X-Record-Id")
	ts.waitAnchored(second, derivativeID)

	// A key reported compromised since before its record was anchored.
	leaky := ts.newSignerOrg("desk@leaky.example", "Leaky Desk")
	t0 := clk.Now()
	_, keyRevoked := ts.signAnchored(leaky, readTestdata(t, "water.jpg"), "sign with the key later revoked")
	clk.Advance(time.Hour)
	leaky.token = ts.freshToken(leaky.account)
	ts.mustStatus(ts.do("DELETE", "/api/v1/keys/signing-keys/"+leaky.keyID, leaky.token, map[string]any{
		"reason": "laptop stolen", "compromised_since": t0.Add(-time.Minute).Format(time.RFC3339)}), 200, "revoke the key")

	files := []struct {
		name string
		file []byte
		ext  string
	}{
		{"exact", exact, ".jpg"},
		{"reencoded", reencode(t, exact, 0.7, 60), ".jpg"},
		{"revoked-key", keyRevoked, ".jpg"},
		{"derivative", derivative, ".jpg"},
	}
	if clip, ok := surfaceClip(t); ok {
		r = ts.signFile(first, clip, nil)
		ts.mustStatus(r, 201, "sign a clip")
		files = append(files, struct {
			name string
			file []byte
			ext  string
		}{"video", r.body, ".mp4"})
	}

	b := newBrowser(t)
	wants := map[string]wire.VerifyResponse{}
	for _, f := range files {
		want := ts.verifyWire(f.file)
		wants[f.name] = want
		path := filepath.Join(tmp, f.name+f.ext)
		if err := os.WriteFile(path, f.file, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, w := range surfaceWidths {
			t.Run(fmt.Sprintf("verify/%s/%d", f.name, w), func(t *testing.T) {
				b.run(t, "viewport", chromedp.EmulateViewport(w, 900))
				b.run(t, "open verify", chromedp.Navigate(ts.base+"/verify"))
				b.waitJS(t, "verify page", `document.body.dataset.page === "verify"`, 10*time.Second)
				b.run(t, "choose "+f.name, chromedp.SetUploadFiles("#file", []string{path}, chromedp.ByQuery))
				b.waitJS(t, "verdict", `!document.querySelector("#result").hidden`, 60*time.Second)
				var page struct {
					Text, Headline string
					Failed         int
					Overflow       int
				}
				b.eval(t, `(() => { const r = document.querySelector("#result"); return {Text: r.innerText,
				  Headline: document.querySelector("#verdict").firstChild.textContent,
				  Failed: r.querySelectorAll('#checks li[data-state="failed"]').length,
				  Overflow: document.documentElement.scrollWidth - window.innerWidth}; })()`, &page)
				checkSurface(t, "web /verify", want, page.Headline, page.Text, page.Failed, page.Overflow)
				b.screenshot(t, dir, fmt.Sprintf("surface-verify-%s-%d", f.name, w))
				if w == surfaceWidths[0] {
					b.axeCheck(t, axe, "verify-"+f.name)
				}
			})
		}
	}

	// The widget on a publisher's page: the pictures, and the first one
	// again from an origin without CORS, badged by its record alone.
	pageFiles := map[string][]byte{}
	var names []string
	for _, f := range files {
		if f.ext != ".jpg" {
			continue
		}
		pageFiles["/img/"+f.name+".jpg"] = f.file
		names = append(names, f.name)
	}
	noCORS := servePage(t, map[string][]byte{"/x.jpg": exact})
	pageFiles["/page.html"] = append(widgetPage(ts.base, names, ""),
		fmt.Sprintf(`<figure><img data-provenant data-provenant-record=%q id="record-only" src="%s/x.jpg" alt="record only"></figure>`, exactID, noCORS)...)
	page := servePage(t, pageFiles)
	for _, w := range surfaceWidths {
		b.run(t, "viewport", chromedp.EmulateViewport(w, 900))
		b.run(t, "open the publisher's page", chromedp.Navigate(page+"/page.html"))
		got := b.waitBadges(t, len(names)+1, 60*time.Second)
		for _, name := range append(names, "record-only") {
			t.Run(fmt.Sprintf("widget/%s/%d", name, w), func(t *testing.T) {
				g := got[name]
				if g.Verification == nil {
					t.Fatalf("no verification: %+v", g)
				}
				var panel struct {
					Text, Headline, Metrics string
					Failed                  int
					Overflow                int
				}
				b.eval(t, badgeJS(name, `(() => { root.querySelector('button.badge').click(); const d = root.querySelector('[role=dialog]');
				  const box = d.getBoundingClientRect();
				  return {Text: d.innerText, Headline: d.querySelector('h2').innerText,
				    Failed: d.querySelectorAll('li[data-state="failed"]').length,
				    Overflow: Math.max(0, Math.ceil(box.right - document.documentElement.clientWidth), Math.ceil(-box.left)),
				    Metrics: [window.innerWidth, document.documentElement.clientWidth, box.left, box.width, getComputedStyle(d).width].join(' ')}; })()`), &panel)
				if panel.Overflow > 0 {
					t.Logf("viewport and panel (innerWidth clientWidth left width css-width): %s", panel.Metrics)
				}
				var shot []byte
				b.run(t, "screenshot", chromedp.CaptureScreenshot(&shot))
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("surface-widget-%s-%d.png", name, w)), shot, 0o644); err != nil {
					t.Fatal(err)
				}
				b.run(t, "close", chromedp.Evaluate(badgeJS(name, `root.querySelector('button.close').click()`), nil))
				if name == "record-only" {
					// The test's chain is local: the anchoring check must say so.
					if panel.Headline != present.RecordOnlyHeadline || strings.Contains(panel.Text, "Verified") || g.Status != "record" ||
						strings.Contains(panel.Text, "public blockchain") || strings.Contains(panel.Text, "Not checked: ") {
						t.Errorf("record-only badge %q, panel %q:\n%s", g.Status, panel.Headline, panel.Text)
					}
					if panel.Overflow > 0 {
						t.Errorf("panel overflows the %d px viewport by %d px", w, panel.Overflow)
					}
					return
				}
				// The panel says what the origin's /verify says of the file.
				checkSurface(t, "widget panel", wants[name], panel.Headline, panel.Text, panel.Failed, panel.Overflow)
			})
		}
	}
}

// checkSurface checks one rendered verdict: the shared headline and
// chain, the wording rules, no failed check beside an authentic verdict,
// nothing wider than the viewport.
func checkSurface(t *testing.T, where string, v wire.VerifyResponse, headline, text string, failed, overflow int) {
	t.Helper()
	p := present.Present(v, present.Options{})
	if headline != p.Headline {
		t.Errorf("%s headline %q, want the shared %q", where, headline, p.Headline)
	}
	if p.Chain != "" && !strings.Contains(text, p.Chain) {
		t.Errorf("%s lacks the provenance chain %q:\n%s", where, p.Chain, text)
	}
	for _, bad := range present.TextViolations(v, text) {
		t.Errorf("%s: %s\n%s", where, bad, text)
	}
	if v.Authentic && failed > 0 {
		t.Errorf("%s marks %d check(s) of an authentic file failed:\n%s", where, failed, text)
	}
	if overflow > 0 {
		t.Errorf("%s overflows the viewport by %d px", where, overflow)
	}
}

// surfaceClip is a short clip to sign, or false without ffmpeg (outside
// CI, where videoClip skips).
func surfaceClip(t *testing.T) ([]byte, bool) {
	t.Helper()
	var clip []byte
	t.Run("clip", func(t *testing.T) { clip = videoClip(t, "mandelbrot", "3") })
	return clip, clip != nil
}
