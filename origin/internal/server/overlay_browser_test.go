package server

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/origin/origintest/corpus"
)

// framed puts a signed picture under a white caption bar (barFrac of the
// picture's height, with black marks in it): the signed picture whole,
// inside a larger file whose surroundings nobody signed.
func framed(t *testing.T, signed []byte, barFrac float64) []byte {
	t.Helper()
	m := toRGBA(t, signed)
	b := m.Bounds()
	W, H := b.Dx(), b.Dy()
	bar := int(float64(H) * barFrac)
	out := image.NewRGBA(image.Rect(0, 0, W, H+bar))
	draw.Draw(out, out.Bounds(), &image.Uniform{color.White}, image.Point{}, draw.Src)
	draw.Draw(out, image.Rect(0, bar, W, H+bar), m, b.Min, draw.Src)
	for x := W / 20; x < W*19/20; x += bar / 2 {
		draw.Draw(out, image.Rect(x, bar/5, x+bar/6, bar*4/5), &image.Uniform{color.Black}, image.Point{}, draw.Src)
	}
	return testkit.EncodeJPEG(t, out, 90)
}

// overlayState is what a surface drew on a checked picture.
type overlayState struct {
	Kind string `json:"kind"`
	// Changed are the outlined blocks (edited), in percent of the file.
	Changed []struct{ X, Y, W, H float64 } `json:"changed"`
	// Place is where the copy sits in the signed picture (crop), and
	// Vouched the signed picture's place in the file (contained), in
	// percent.
	Place   struct{ X, Y, W, H float64 } `json:"place"`
	Vouched struct{ X, Y, W, H float64 } `json:"vouched"`
	Shaded  bool                         `json:"shaded"`
	Caption string                       `json:"caption"`
}

// overlayJS reads the evidence figure under root (an expression).
func overlayJS(root string) string {
	return `(() => { const f = ` + root + `.querySelector("figure[data-overlay]"); if (!f) return null;
		const num = (e, a) => parseFloat(e.getAttribute(a));
		const v = f.querySelector("rect.vouched"), img = f.querySelector(".frame img");
		return {kind: f.dataset.overlay, shaded: !!f.querySelector("path.added"),
			caption: (f.querySelector("figcaption") || {}).textContent || "",
			changed: Array.from(f.querySelectorAll("rect.changed")).map(r => ({X: num(r, "x"), Y: num(r, "y"), W: num(r, "width"), H: num(r, "height")})),
			vouched: v ? {X: num(v, "x"), Y: num(v, "y"), W: num(v, "width"), H: num(v, "height")} : {},
			place: img ? {X: parseFloat(img.style.left), Y: parseFloat(img.style.top), W: parseFloat(img.style.width), H: parseFloat(img.style.height)} : {}}; })()`
}

// checkOverlay holds a surface's drawing to the edit that was made: the
// caption bar's blocks outlined at the bottom, the crop's place in the
// middle of the signed picture, the added bar shaded above the signed
// picture.
func checkOverlay(t *testing.T, where, want string, o *overlayState, barPct float64) {
	t.Helper()
	if o == nil {
		t.Errorf("%s: no evidence drawn for the %s copy", where, want)
		return
	}
	if o.Kind != want {
		t.Errorf("%s: overlay %q for the %s copy (caption %q)", where, o.Kind, want, o.Caption)
		return
	}
	switch want {
	case "edited":
		// The caption covers the bottom sixth: every outlined block
		// reaches into the lower half, and some lie in the bar itself.
		low := 0
		for _, c := range o.Changed {
			if c.Y+c.H < 50 {
				t.Errorf("%s: a block outlined at %+v, far above the edit at the bottom", where, c)
			}
			if c.Y >= 70 {
				low++
			}
		}
		if len(o.Changed) == 0 || low == 0 {
			t.Errorf("%s: changed blocks %+v, want blocks in the bottom sixth", where, o.Changed)
		}
	case "crop":
		// 10 % cut from each side: the copy is the middle 80 %.
		p := o.Place
		if math.Abs(p.X-10) > 4 || math.Abs(p.Y-10) > 4 || math.Abs(p.W-80) > 5 || math.Abs(p.H-80) > 5 {
			t.Errorf("%s: crop placed at %+v, want about 10,10 80×80 %%", where, p)
		}
	case "contained":
		v := o.Vouched
		if !o.Shaded || math.Abs(v.Y-barPct) > 3 || v.X > 3 || v.W < 95 || math.Abs(v.Y+v.H-100) > 3 {
			t.Errorf("%s: contained drawn shaded=%v, signed picture at %+v; want it below a %.1f %% shaded bar", where, o.Shaded, v, barPct)
		}
	}
}

// TestOverlayInChromium checks that the evidence is shown, not only said:
// for an edited copy (a caption bar painted over the bottom), a cropped
// copy (10 % cut from each side) and a contained copy (a caption bar added
// above the signed picture), the web app's /verify, the certificate
// page's "check a copy" and the widget's panel each draw the picture with
// the changed blocks outlined where the edit is, the crop placed where it
// was cut from, or the added bar shaded. Screenshots: overlay-*.png.
func TestOverlayInChromium(t *testing.T) {
	ts := startBrowserServer(t, nil, 1, nil)
	dir := artifactDir(t)
	tmp := t.TempDir()
	s := ts.newSignerOrg("desk@overlay.example", "Overlay News")
	signed, id := ts.signTestdata(s, "meadow.jpg", "sign")
	ts.waitAnchored(s, id)

	const barFrac = 0.12
	copies := []struct {
		name, overlay string
		file          []byte
	}{
		{"edited", "edited", captioned(t, signed)},
		{"cropped", "crop", transform(t, signed, 90, corpus.Crop(0.10))},
		{"contained", "contained", framed(t, signed, barFrac)},
	}
	barPct := 100 * barFrac / (1 + barFrac)
	paths := map[string]string{}
	files := map[string][]byte{}
	var names []string
	for _, c := range copies {
		paths[c.name] = filepath.Join(tmp, c.name+".jpg")
		if err := os.WriteFile(paths[c.name], c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		files["/img/"+c.name+".jpg"] = c.file
		names = append(names, c.name)
		// What the origin answers for the copy, for the record of a failure.
		v := ts.verifyWire(c.file)
		t.Logf("%s: origin says match %q region %+v contained %+v changed %+v", c.name, v.Match, v.Region, v.Contained, v.ChangedBlocks)
	}

	b := newBrowser(t)
	for _, c := range copies {
		// The web app's verify page.
		b.run(t, "open verify", chromedp.EmulateViewport(1100, 900), chromedp.Navigate(ts.base+"/verify"))
		b.waitJS(t, "verify page", `document.querySelector("#file")`, 10*time.Second)
		b.run(t, "choose the "+c.name+" copy", chromedp.SetUploadFiles("#file", []string{paths[c.name]}, chromedp.ByQuery))
		b.waitJS(t, "verdict", `document.querySelector("#result").dataset.status && document.querySelector("#evidence img") && document.querySelector("#evidence img").complete`, 30*time.Second)
		var o *overlayState
		b.eval(t, overlayJS("document.querySelector('#evidence')"), &o)
		checkOverlay(t, "verify page", c.overlay, o, barPct)
		b.screenshot(t, dir, "overlay-verify-"+c.name)
		b.run(t, "phone", chromedp.EmulateViewport(390, 844))
		var wide int
		b.eval(t, `document.documentElement.scrollWidth`, &wide)
		if wide > 390 {
			t.Errorf("verify page with the %s overlay is %d px wide on a 390 px screen", c.name, wide)
		}
		b.screenshot(t, dir, "overlay-verify-"+c.name+"-phone")

		// The certificate's "check a copy".
		b.run(t, "open the certificate", chromedp.EmulateViewport(1100, 900), chromedp.Navigate(ts.base+"/api/v1/content-records/"+id+"/certificate"))
		b.waitJS(t, "certificate", `document.querySelector("#file") && document.body.dataset.ready === "1"`, 10*time.Second)
		b.run(t, "check the "+c.name+" copy", chromedp.SetUploadFiles("#file", []string{paths[c.name]}, chromedp.ByQuery))
		b.waitJS(t, "copy checked", `!document.querySelector("#copy-result").hidden && document.querySelector("#copy-result img") && document.querySelector("#copy-result img").complete`, 30*time.Second)
		o = nil
		b.eval(t, overlayJS("document.querySelector('#copy-result')"), &o)
		checkOverlay(t, "certificate", c.overlay, o, barPct)
		var head string
		b.eval(t, `document.querySelector("#copy-result h3").textContent`, &head)
		t.Logf("certificate, %s copy: %s", c.name, head)
		b.run(t, "scroll to the result", chromedp.ScrollIntoView("#check", chromedp.ByQuery))
		b.screenshot(t, dir, "overlay-certificate-"+c.name)
	}

	// The widget's panel on a publisher's page.
	files["/page.html"] = widgetPage(ts.base, names, "")
	page := servePage(t, files)
	b.run(t, "open the publisher's page", chromedp.EmulateViewport(1100, 900), chromedp.Navigate(page+"/page.html"))
	b.waitBadges(t, len(names), 40*time.Second)
	for _, c := range copies {
		var o *overlayState
		b.eval(t, badgeJS(c.name, `(root.querySelector('button.badge').click(), new Promise(res => { const img = root.querySelector('[role=dialog] figure img'); if (!img || img.complete) res(); else img.addEventListener('load', res); }).then(() => `+overlayJS("root.querySelector('[role=dialog]')")+`))`), &o)
		checkOverlay(t, "widget panel", c.overlay, o, barPct)
		var shot []byte
		b.run(t, "panel screenshot", chromedp.CaptureScreenshot(&shot))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("overlay-widget-%s.png", c.name)), shot, 0o644); err != nil {
			t.Fatal(err)
		}
		b.eval(t, badgeJS(c.name, `(root.querySelector('[role=dialog] button.close').click(), true)`), nil)
	}
}
