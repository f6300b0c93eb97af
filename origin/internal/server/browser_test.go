package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/origin/internal/demo"
	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/imagex/jpegtest/camera"
	"github.com/provenant/provenant/shared/wire"
)

// chromiumPath returns the headless browser the widget tests drive. With
// none installed they skip, unless CI is set: CI must run them.
func chromiumPath(t testing.TB) string {
	t.Helper()
	return testtool.LookPath(t, "apt-get install chromium", "chromium", "chromium-browser", "google-chrome")
}

// browser is one headless Chromium with its page's console, exceptions and
// network log collected.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	logs   []string
	reqs   []sentRequest
	cancel func()
}

// sentRequest is a request the page (or its worker) sent.
type sentRequest struct {
	URL, Method string
	BodyBytes   int
	Body        []byte
	HasBody     bool
}

// newBrowser starts Chromium; extra options (flags) come after the
// defaults.
func newBrowser(t testing.TB, extra ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	exe := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // CI containers run as root
		chromedp.WindowSize(1100, 900),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	opts = append(opts, extra...)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b := &browser{ctx: ctx, cancel: func() { cancel(); acancel() }}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value))
			}
			b.logs = append(b.logs, "console."+string(e.Type)+": "+strings.Join(parts, " "))
		case *runtime.EventExceptionThrown:
			b.logs = append(b.logs, "exception: "+e.ExceptionDetails.Error())
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		b.cancel()
		t.Fatalf("start chromium: %v", err)
	}
	// The network log comes from the browser target's Fetch domain, which
	// pauses every request of every target, the page's dedicated workers
	// included (a page target's Network domain does not see those).
	c := chromedp.FromContext(ctx)
	bctx := cdp.WithExecutor(ctx, c.Browser)
	chromedp.ListenBrowser(ctx, func(ev any) {
		e, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		r := sentRequest{URL: e.Request.URL, Method: e.Request.Method, HasBody: e.Request.HasPostData}
		for _, p := range e.Request.PostDataEntries {
			d, _ := base64.StdEncoding.DecodeString(p.Bytes)
			r.Body = append(r.Body, d...)
		}
		r.BodyBytes = len(r.Body)
		b.mu.Lock()
		b.reqs = append(b.reqs, r)
		b.mu.Unlock()
		go func() { _ = fetch.ContinueRequest(e.RequestID).Do(bctx) }()
	})
	if err := fetch.Enable().Do(bctx); err != nil {
		b.cancel()
		t.Fatalf("enable request logging: %v", err)
	}
	t.Cleanup(b.cancel)
	return b
}

func (b *browser) consoleLog() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.logs, "\n")
}

func (b *browser) requests() []sentRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]sentRequest(nil), b.reqs...)
}

// servePage serves files (path -> bytes) from a second loopback origin,
// different from the service's, and returns its base URL.
func servePage(t testing.TB, files map[string][]byte) string { return serveFiles(t, files, false) }

// servePageCORS is servePage for an image host that lets any page read
// its files (Access-Control-Allow-Origin: *), as docs/widget.md asks
// publishers of cross-origin pictures to do.
func servePageCORS(t testing.TB, files map[string][]byte) string { return serveFiles(t, files, true) }

func serveFiles(t testing.TB, files map[string][]byte, cors bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if cors {
			w.Header().Set("Access-Control-Allow-Origin", "*")
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ".html"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		case strings.HasSuffix(r.URL.Path, ".jpg"):
			w.Header().Set("Content-Type", "image/jpeg")
		}
		_, _ = w.Write(b)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// widgetPage is a publisher's page: the embed script from the service and
// one marked image per name, each served by the page's own origin. attrs
// are added to the script tag.
func widgetPage(service string, names []string, attrs string) []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>publisher</title>")
	b.WriteString(`<style>body{display:flex;flex-wrap:wrap;font-family:sans-serif} img{width:200px;height:auto;display:block} figure{margin:8px}</style></head><body>`)
	for _, n := range names {
		fmt.Fprintf(&b, `<figure><img data-provenant id=%q src="/img/%s.jpg" alt=%q></figure>`, n, n, n)
	}
	fmt.Fprintf(&b, `<script src="%s/api/v1/widget/embed.js" async%s></script></body></html>`, service, attrs)
	return []byte(b.String())
}

// checkRecordOnly opens the panel of a badge computed from its record
// alone and checks that neither the badge nor the panel vouches for the
// picture: no "Verified", no passed picture check, a neutral mark on each
// check the picture could not have, and the certificate still linked.
func checkRecordOnly(t *testing.T, b *browser, id string) {
	t.Helper()
	var v struct {
		Badge  string   `json:"badge"`
		Title  string   `json:"title"`
		Text   string   `json:"text"`
		Marks  []string `json:"marks"`
		Colour string   `json:"colour"`
		Cert   string   `json:"cert"`
	}
	js := badgeJS(id, `(() => { const badge = root.querySelector('button.badge'); const text = badge.innerText; badge.click();
	  const d = root.querySelector('[role=dialog]'); const a = d.querySelector('a[href]');
	  const out = {badge: text, title: d.querySelector('h2').innerText, text: d.innerText,
	    marks: [...d.querySelectorAll('li[data-check] > span:first-child')].map((s) => s.className),
	    colour: getComputedStyle(root.querySelector('.mark')).backgroundColor, cert: a ? a.href : ''};
	  root.querySelector('button.close').click(); return out; })()`)
	b.run(t, "read the badge", chromedp.Evaluate(js, &v))
	if !strings.Contains(v.Badge, "Record only") || !strings.Contains(v.Title, "this picture was not checked") {
		t.Errorf("record-only badge %q, panel title %q", v.Badge, v.Title)
	}
	if strings.Contains(v.Badge+v.Title+v.Text, "Verified") || strings.Contains(v.Text, "Authentic") {
		t.Errorf("record-only badge vouches for the picture:\n%s\n%s", v.Badge, v.Text)
	}
	if want := []string{"na", "na", "na"}; len(v.Marks) != 4 || !reflect.DeepEqual(v.Marks[:3], want) {
		t.Errorf("picture checks marked %v, want neutral (na) for watermark, SHA-256 and perceptual hash", v.Marks)
	}
	if v.Colour == "rgb(26, 127, 55)" {
		t.Errorf("record-only badge drawn in the verified green")
	}
	if !strings.Contains(v.Cert, "/certificate") || !strings.Contains(v.Text, "CORS") {
		t.Errorf("record-only panel lacks the certificate link (%q) or the CORS hint:\n%s", v.Cert, v.Text)
	}
}

// badgeState is what the page shows for one image.
type badgeState struct {
	ID           string              `json:"id"`
	Status       string              `json:"status"`
	RecordID     string              `json:"record_id"`
	Verification *widgetVerification `json:"verification"`
}

type widgetVerification struct {
	Status string              `json:"status"`
	Error  string              `json:"error"`
	Result wire.VerifyResponse `json:"result"`
	Match  string              `json:"match"`
	Timing map[string]float64  `json:"timings"`
	// Decoder is what read the picture's pixels: "browser" or "wasm";
	// Pixels the form the module got: "luma" (a JPEG's Y plane), "rgba"
	// or "file" (the module decoded).
	Decoder string `json:"decoder"`
	Pixels  string `json:"pixels"`
	// ByRecord is set when the badge came from the record's certificate
	// because the picture's bytes could not be read.
	ByRecord bool `json:"byRecord"`
}

const badgesJS = `[...document.querySelectorAll('img[data-provenant]')].map((img) => {
  const b = img.nextElementSibling && img.nextElementSibling.tagName === 'PROVENANT-BADGE' ? img.nextElementSibling : null;
  return {id: img.id, status: b ? (b.getAttribute('status') || '') : '', record_id: b ? (b.getAttribute('record-id') || '') : '',
    verification: b ? b.verification : null};
})`

// waitBadges waits until every image's badge has a status.
func (b *browser) waitBadges(t testing.TB, want int, d time.Duration) map[string]badgeState {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var states []badgeState
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(badgesJS, &states)); err != nil {
			t.Fatalf("read badges: %v\n%s", err, b.consoleLog())
		}
		done := map[string]badgeState{}
		for _, s := range states {
			if s.Status != "" {
				done[s.ID] = s
			}
		}
		if len(done) == want {
			return done
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, %d of %d badges final: %+v\nconsole:\n%s", d, len(done), want, states, b.consoleLog())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWidgetInChromium runs the widget in a real headless Chromium on a
// page served by a different origin than the service: every badge reaches
// the status its file deserves, whichever decoder read the pixels (the
// browser's own, data-decoder=browser, the verifier module's,
// data-decoder=wasm, or by default each picture's measured fastest: the
// module's for the 4 MP JPEGs, the browser's for smaller ones and the
// PNG);
// the verdict computed in the browser is the origin's own /verify response
// for the same file (member for member with the module's decoder; the
// same verdict, record, match and checks with the browser's, whose pixels
// differ by a level or two); no request carries image bytes to the
// service, and the details panel works from the keyboard (screenshot saved
// as an artefact).
func TestWidgetInChromium(t *testing.T) {
	ts := startBrowserServer(t, nil, 2, nil)
	s := ts.newSignerOrg("desk@widget.example", "Widget News")
	signed, id := ts.signTestdata(s, "meadow.jpg", "sign meadow")
	r := ts.signFile(s, readTestdata(t, "water.jpg"), nil)
	ts.mustStatus(r, 201, "sign water")
	revoked, revokedID := r.body, r.header.Get("X-Record-Id")
	// A 4 MP photo: both decoders read it at half size.
	r = ts.signFile(s, demo.Scene(21, 2449, 1633), nil)
	ts.mustStatus(r, 201, "sign a 4 MP picture")
	large, largeID := r.body, r.header.Get("X-Record-Id")
	r = ts.signFile(s, demo.Scene(22, 900, 700), nil)
	ts.mustStatus(r, 201, "sign a fourth picture")
	ts.waitAnchored(s, id, revokedID, largeID, r.header.Get("X-Record-Id"))
	// A picture too small to carry a watermark is signed without one; its
	// watermark check is "not applicable", in the browser as at the origin
	// (signed after the batch above, so it stays pending).
	r = ts.signFile(s, photo(t, 11, 64, 48), nil)
	ts.mustStatus(r, 201, "sign a 64x48 picture")
	small, smallID := r.body, r.header.Get("X-Record-Id")
	r = ts.do("DELETE", "/api/v1/content-records/"+revokedID, s.apiKey, map[string]string{"reason": "published in error"})
	ts.mustStatus(r, 200, "revoke")

	corpus := []struct {
		name, status, recordID string
		file                   []byte
		// host: the browser decodes it itself when asked to, into pixels
		// of that form ("luma" or "rgba"); auto: the widget's default
		// has the browser decode it (the module's decoder is the faster
		// for a sequential JPEG it decodes at reduced scale, the
		// browser's for a smaller or progressive JPEG or a PNG:
		// bench/README.md).
		host   bool
		pixels string
		auto   bool
	}{
		{"signed", "verified", id, signed, true, "luma", true},
		{"reencoded", "verified", id, reencode(t, signed, 0.7, 80), true, "luma", true},
		{"cropped", "verified", id, transform(t, signed, 90, corpus.Crop(0.08)), true, "luma", true},
		{"edited", "altered", "", captioned(t, signed), true, "luma", true},
		{"unsigned", "none", "", photo(t, 7, 640, 480), true, "luma", true},
		{"revoked", "revoked", revokedID, revoked, true, "luma", true},
		{"small", "pending", smallID, small, true, "luma", true},
		{"large", "verified", largeID, large, true, "luma", false},
		{"large-q75", "verified", largeID, transform(t, large, 75, func(m image.Image) image.Image { return m }), true, "luma", false},
		// Stored turned a quarter, upright by its EXIF orientation.
		{"large-rotated", "verified", largeID, camera.JPEG(t, toRGBA(t, large), 90, 6), true, "luma", false},
		{"large-rotated-180", "verified", largeID, camera.JPEG(t, toRGBA(t, large), 90, 3), true, "luma", false},
		{"large-png", "verified", largeID, pngOf(t, large), true, "rgba", true},
		// A small progressive JPEG (the browser's decoder by default, by
		// either rule).
		{"progressive", "none", "", testkit.ReadFile(t, "../../../shared/imagex/testdata/luma/big-prog-420.jpg"), true, "luma", true},
		// A progressive JPEG large enough for the module's reduced scale
		// (1100×1040, made with jpegtran -progressive): the browser's
		// decoder by default all the same, by the frame rule alone.
		{"progressive-large", "none", "", readTestdata(t, "progressive-1100x1040.jpg"), true, "luma", true},
		// The browser would read a WebP's EXIF orientation, which the
		// service ignores: the module decodes WebP.
		{"webp", "none", "", testkit.ReadFile(t, "../../../shared/testdata/images/photo.webp"), false, "file", false},
	}
	files := map[string][]byte{}
	var names []string
	for _, c := range corpus {
		files["/img/"+c.name+".jpg"] = c.file
		names = append(names, c.name)
	}
	// A picture on a third origin that sends no CORS headers: the worker
	// cannot read it, so the badge comes from data-provenant-record.
	// It shows the neutral "record only" state, never "verified": the
	// record is genuine, the picture was never compared with it (here it
	// is even another record's picture). The same picture from an origin
	// that allows CORS is read and verified as usual.
	noCORS := servePage(t, map[string][]byte{"/signed.jpg": signed, "/other.jpg": revoked})
	withCORS := servePageCORS(t, map[string][]byte{"/signed.jpg": signed})
	byRecord := fmt.Sprintf(`<figure><img data-provenant data-provenant-record=%q id="byrecord" src="%s/other.jpg" alt="by record"></figure>`, id, noCORS) +
		fmt.Sprintf(`<figure><img data-provenant data-provenant-record=%q id="cors" crossorigin="anonymous" src="%s/signed.jpg" alt="readable"></figure>`, id, withCORS)
	files["/page.html"] = append(widgetPage(ts.base, names, ""), byRecord...)
	files["/page-browser.html"] = append(widgetPage(ts.base, names, ` data-decoder="browser"`), byRecord...)
	files["/page-wasm.html"] = append(widgetPage(ts.base, names, ` data-decoder="wasm"`), byRecord...)
	files["/page-canvas.html"] = append(widgetPage(ts.base, names, ` data-decoder="canvas"`), byRecord...)
	page := servePage(t, files)
	if page == ts.base {
		t.Fatal("page and service share an origin")
	}
	want := map[string]wire.VerifyResponse{}
	for _, c := range corpus {
		want[c.name] = ts.verifyWire(c.file)
	}

	var b *browser
	// "canvas": the browser's decoder without WebCodecs (as in a browser
	// without ImageDecoder, or outside a secure context): JPEGs go through
	// createImageBitmap and the canvas as RGBA instead.
	// The default page comes last: the checks after the loop (no image
	// bytes to the service, a picture added later, the panel by keyboard)
	// run on the browser kept open, and they concern what ships.
	decoders := []string{"wasm", "canvas", "browser", "auto"}
	for _, decoder := range decoders {
		b = newBrowser(t)
		pageName := "/page.html"
		if decoder != "auto" {
			pageName = "/page-" + decoder + ".html"
		}
		b.run(t, "open "+pageName, chromedp.Navigate(page+pageName))
		got := b.waitBadges(t, len(corpus)+2, 60*time.Second)
		if dir := os.Getenv("PROVENANT_TEST_ARTIFACTS"); dir != "" && decoder == "auto" {
			var shot []byte
			b.run(t, "screenshot "+pageName, chromedp.FullScreenshot(&shot, 90))
			_ = os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(filepath.Join(dir, "widget-page.jpg"), shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(decoder, func(t *testing.T) {
			if g := got["byrecord"]; g.Status != "record" || g.RecordID != id || g.Verification == nil || !g.Verification.ByRecord || g.Verification.Result.Authentic {
				t.Errorf("image without CORS, by record: status %q record %q, want record-only %s (%+v)", g.Status, g.RecordID, id, g.Verification)
			}
			if g := got["cors"]; g.Status != "verified" || g.RecordID != id || g.Verification == nil || g.Verification.ByRecord {
				t.Errorf("image from an origin that allows CORS: status %q record %q, want verified %s from its pixels (%+v)", g.Status, g.RecordID, id, g.Verification)
			}
			if decoder == "auto" {
				checkRecordOnly(t, b, "byrecord")
			}
			for _, c := range corpus {
				t.Run(c.name, func(t *testing.T) {
					g := got[c.name]
					if g.Status != c.status {
						t.Fatalf("badge status %q, want %q (verification %+v)", g.Status, c.status, g.Verification)
					}
					wantDecoder, wantPixels := "wasm", "file"
					switch {
					case decoder == "browser" && c.host:
						wantDecoder, wantPixels = "browser", c.pixels
					case decoder == "canvas" && c.host:
						wantDecoder, wantPixels = "browser", "rgba"
					case decoder == "auto" && c.auto:
						wantDecoder, wantPixels = "browser", c.pixels
					}
					if g.Verification.Decoder != wantDecoder || g.Verification.Pixels != wantPixels {
						t.Errorf("pixels read by %q as %q, want %q as %q", g.Verification.Decoder, g.Verification.Pixels, wantDecoder, wantPixels)
					}
					if c.name == "reencoded" && g.Verification.Match != "reencoded" {
						t.Errorf("re-encoded copy matched by %q, want reencoded (watermark and perceptual hash)", g.Verification.Match)
					}
					if c.recordID != "" && g.RecordID != c.recordID {
						t.Errorf("badge record-id %q, want %q", g.RecordID, c.recordID)
					}
					if wm := g.Verification.Result.Checks.Watermark; (c.name == "small") != wm.NotApplicable {
						t.Errorf("watermark check %+v: not applicable only for the picture signed without a watermark", wm)
					}
					if c.name == "small" && decoder == "auto" {
						var text string
						var shot []byte
						b.run(t, "open and close the small badge's panel", chromedp.Evaluate(badgeJS("small", `(root.querySelector('button.badge').click(), root.querySelector('[role=dialog]').innerText)`), &text),
							chromedp.CaptureScreenshot(&shot),
							chromedp.Evaluate(badgeJS("small", `root.querySelector('button.close').click()`), nil))
						if !strings.Contains(text, "Watermark: not applicable") || !strings.Contains(text, "too small to carry a watermark when signed") {
							t.Errorf("small picture's panel:\n%s", text)
						}
						if dir := os.Getenv("PROVENANT_TEST_ARTIFACTS"); dir != "" {
							_ = os.MkdirAll(dir, 0o755)
							if err := os.WriteFile(filepath.Join(dir, "widget-small-panel.png"), shot, 0o644); err != nil {
								t.Fatal(err)
							}
						}
					}
					// Same answers: the browser's verdict is the origin's.
					w := want[c.name]
					gotV := g.Verification.Result
					if g.Verification.Decoder == "browser" {
						if d := pixelDifference(gotV, w); d != "" {
							t.Errorf("%s (pixels read by the browser as %s)", d, g.Verification.Pixels)
						}
						t.Logf("%s: confidence %.2f, origin %.2f", g.Verification.Pixels, gotV.Confidence, w.Confidence)
						gotV, w = verdictOnly(gotV), verdictOnly(w)
					}
					if !reflect.DeepEqual(gotV, w) {
						gj, _ := json.MarshalIndent(g.Verification.Result, "", " ")
						wj, _ := json.MarshalIndent(want[c.name], "", " ")
						t.Errorf("browser verdict (pixels read by %s)\n%s\norigin /verify\n%s", g.Verification.Decoder, gj, wj)
					}
				})
			}
		})
		if decoder != decoders[len(decoders)-1] {
			b.cancel()
		}
	}

	t.Run("no image bytes to the service", func(t *testing.T) {
		svc, _ := url.Parse(ts.base)
		lookups := 0
		for _, r := range b.requests() {
			u, err := url.Parse(r.URL)
			if err != nil || u.Host != svc.Host {
				continue
			}
			if strings.HasSuffix(u.Path, "/verify/lookup") {
				lookups++
				// A badge view counts for nobody (docs/widget.md); the web
				// app's verify page is the one that reports.
				if bytes.Contains(r.Body, []byte(`"report"`)) {
					t.Errorf("a badge's lookup asks to be counted: %s", r.Body)
				}
			}
			if r.HasBody && (r.BodyBytes == 0 || r.BodyBytes > 4096) {
				t.Errorf("%s %s carries a body of %d bytes (or one CDP did not show): only small JSON facts may go to the service", r.Method, r.URL, r.BodyBytes)
			}
			for _, c := range corpus {
				if bytes.Contains(r.Body, c.file[:64]) || bytes.Contains(r.Body, []byte{0xff, 0xd8, 0xff}) {
					t.Errorf("%s %s carries image bytes", r.Method, r.URL)
				}
			}
			if strings.HasSuffix(u.Path, "/api/v1/verify") {
				t.Errorf("the widget called POST /api/v1/verify, which uploads the file")
			}
		}
		if lookups < len(corpus) {
			t.Errorf("saw %d lookup requests for %d images: the network log misses the worker's requests, so it proves nothing", lookups, len(corpus))
		}
	})

	t.Run("image added later", func(t *testing.T) {
		b.run(t, "add a late picture", chromedp.Evaluate(`(() => { const img = document.createElement('img');
		  img.id = 'late'; img.src = '/img/revoked.jpg'; img.setAttribute('data-provenant', ''); document.body.prepend(img); })()`, nil))
		got := b.waitBadges(t, len(corpus)+3, 30*time.Second)
		if got["late"].Status != "revoked" {
			t.Errorf("image added after load: badge %q, want revoked", got["late"].Status)
		}
	})

	t.Run("panel by keyboard", func(t *testing.T) { checkPanel(t, b, "signed") })
}

// verdictOnly is v without what depends on the pixels' last level (which
// pixelDifference bounds): the watermark's strength and the
// perceptual-hash distance in the checks' details, the confidence, the
// region and the changed blocks' exact set. What stays is the verdict:
// authentic or not, the record and how it matched, which checks passed,
// the signer, the anchor.
func verdictOnly(v wire.VerifyResponse) wire.VerifyResponse {
	v.Checks.Watermark.Details = ""
	v.Checks.PerceptualHash.Details = ""
	v.Confidence = 0
	if v.Region != nil {
		v.Region = &wire.Region{}
	}
	if v.ChangedBlocks != nil {
		v.ChangedBlocks = &wire.BlockMap{Cols: v.ChangedBlocks.Cols, Rows: v.ChangedBlocks.Rows}
	}
	return v
}

// pixelDifference says how got, from pixels another decoder read, is
// further from want than a level or two of difference explains: a
// confidence more than 0.05 apart, a region edge more than 1 % of the
// picture apart. "" when within.
func pixelDifference(got, want wire.VerifyResponse) string {
	if d := math.Abs(got.Confidence - want.Confidence); d > 0.05+1e-9 {
		return fmt.Sprintf("confidence %.2f, origin %.2f", got.Confidence, want.Confidence)
	}
	if (got.Region == nil) != (want.Region == nil) {
		return fmt.Sprintf("region %+v, origin %+v", got.Region, want.Region)
	}
	if g, w := got.Region, want.Region; g != nil {
		for _, d := range []float64{g.X - w.X, g.Y - w.Y, g.W - w.W, g.H - w.H} {
			if math.Abs(d) > 0.01+1e-9 {
				return fmt.Sprintf("region %+v, origin %+v", *g, *w)
			}
		}
	}
	return ""
}

// pngOf re-encodes a JPEG's picture as PNG.
func pngOf(t *testing.T, jpg []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, toRGBA(t, jpg)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// badgeJS evaluates expr with `badge` bound to the badge of image id and
// `root` to its shadow root.
func badgeJS(id, expr string) string {
	return fmt.Sprintf(`(() => { const badge = document.getElementById(%q).nextElementSibling; const root = badge.shadowRoot; return (%s); })()`, id, expr)
}

func checkPanel(t *testing.T, b *browser, id string) {
	// Reach the badge the way a keyboard user does: Tab from the top.
	b.run(t, "blur and scroll to the top", chromedp.Evaluate(`document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0)`, nil))
	ok := false
	for i := 0; i < 20 && !ok; i++ {
		b.run(t, "Tab towards the badge", chromedp.KeyEvent(kb.Tab),
			chromedp.Evaluate(badgeJS(id, `document.activeElement === badge && root.activeElement === root.querySelector('button.badge')`), &ok))
	}
	if !ok {
		t.Fatalf("20 Tabs never focused the badge of %s", id)
	}
	var outline string
	b.run(t, "read the badge's focus ring", chromedp.Evaluate(badgeJS(id, `(() => { const s = getComputedStyle(root.querySelector('button.badge')); return s.outlineStyle + ' ' + s.outlineWidth; })()`), &outline))
	if strings.HasPrefix(outline, "none") || strings.HasSuffix(outline, " 0px") {
		t.Errorf("focused badge has no visible focus ring (outline %q)", outline)
	}
	b.run(t, "Enter on the badge", chromedp.KeyEvent(kb.Enter))
	var panel struct {
		Open     bool     `json:"open"`
		Modal    string   `json:"modal"`
		Label    string   `json:"label"`
		Checks   []string `json:"checks"`
		Focused  bool     `json:"focused"`
		Text     string   `json:"text"`
		CertLink string   `json:"cert"`
	}
	read := badgeJS(id, `(() => { const d = root.querySelector('[role=dialog]'); if (!d) return {open: false};
	  const l = d.getAttribute('aria-labelledby'); const a = d.querySelector('a[href]');
	  return {open: true, modal: d.getAttribute('aria-modal'), label: l && root.getElementById(l) ? root.getElementById(l).textContent : '',
	    checks: [...d.querySelectorAll('li[data-check]')].map((li) => li.dataset.check), focused: d.contains(root.activeElement),
	    text: d.innerText, cert: a ? a.href : ''}; })()`)
	b.run(t, "read the panel", chromedp.Evaluate(read, &panel))
	if !panel.Open || panel.Modal != "true" || panel.Label == "" || !panel.Focused {
		t.Fatalf("after Enter on the badge: %+v; want an open labelled modal dialog holding focus", panel)
	}
	if want := []string{"watermark", "sha256", "perceptual_hash", "blockchain"}; !reflect.DeepEqual(panel.Checks, want) {
		t.Errorf("panel checks %v, want %v", panel.Checks, want)
	}
	for _, s := range []string{"Authentic — signed and unchanged", "byte for byte the file signed by unverified organisation: Widget News", "Confidence", "Signed at", "Transaction", "Block",
		"Network: provenant-dev (chain id 1337), a " + wire.LocalChainDescription} {
		if !strings.Contains(panel.Text, s) {
			t.Errorf("panel text lacks %q:\n%s", s, panel.Text)
		}
	}
	if !strings.Contains(panel.CertLink, "/certificate") {
		t.Errorf("certificate link %q", panel.CertLink)
	}
	// Tab cycles inside the dialog.
	for i := 0; i < 4; i++ {
		b.run(t, "Tab inside the dialog", chromedp.KeyEvent(kb.Tab))
		var inside bool
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(badgeJS(id, `root.querySelector('[role=dialog]').contains(root.activeElement)`), &inside)); err != nil || !inside {
			t.Fatalf("after %d Tabs focus left the dialog (%v)", i+1, err)
		}
	}

	var shot []byte
	b.run(t, "screenshot of the open panel", chromedp.CaptureScreenshot(&shot))
	saveShot(t, artifactDir(t), "widget-panel", shot, 50)

	b.run(t, "Escape", chromedp.KeyEvent(kb.Escape))
	var after struct {
		Open       bool `json:"open"`
		BadgeFocus bool `json:"badge_focus"`
	}
	b.run(t, "read the state after Escape", chromedp.Evaluate(badgeJS(id, `({open: !!root.querySelector('[role=dialog]'), badge_focus: root.activeElement === root.querySelector('button.badge')})`), &after))
	if after.Open || !after.BadgeFocus {
		t.Errorf("after Escape: open %v, focus back on the badge %v; want closed and true", after.Open, after.BadgeFocus)
	}
}

// distinctColours counts the colours of a PNG (up to 10,000).
func distinctColours(t *testing.T, b []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	seen := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y && len(seen) < 10000; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			c := img.At(x, y)
			rr, g, bb, a := c.RGBA()
			seen[[4]uint32{rr, g, bb, a}] = true
		}
	}
	_ = image.Point{}
	return len(seen)
}

// TestDemoPage: on an empty data dir the origin creates the demo account
// and pictures; GET /demo, under its strict CSP, shows every picture's
// expected badge (verified, altered, none, revoked) computed in Chromium.
func TestDemoPage(t *testing.T) {
	chromiumPath(t)
	modules := modulesFS(t)
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Verifier = modules
		c.Demo = true
		c.Anchor.PollInterval = 20 * time.Millisecond
	})
	b := newBrowser(t)
	b.run(t, "open the demo page", chromedp.EmulateViewport(1100, 1500), chromedp.Navigate(ts.base+"/demo"))
	var expect map[string]string
	b.run(t, "name the demo pictures", chromedp.Evaluate(`(() => { const m = {}; document.querySelectorAll('figure img').forEach((img, i) => { img.id = 'demo' + i; m[img.id] = img.closest('figure').dataset.expect; }); return m; })()`, &expect))
	if len(expect) < 6 {
		t.Fatalf("demo page shows %d pictures, want 6", len(expect))
	}
	// The demo records are anchored seconds after start; a badge read while
	// anchoring is pending says so, so wait for the final states.
	deadline := time.Now().Add(40 * time.Second)
	for {
		got := b.waitBadges(t, len(expect), 30*time.Second)
		var wrong []string
		for id, want := range expect {
			if got[id].Status != want {
				wrong = append(wrong, fmt.Sprintf("%s: %s (want %s)", id, got[id].Status, want))
			}
		}
		if len(wrong) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo badges: %v\nconsole:\n%s", wrong, b.consoleLog())
		}
		b.run(t, "reload the demo page", chromedp.Reload())
		b.run(t, "rename the demo pictures", chromedp.Evaluate(`document.querySelectorAll('figure img').forEach((img, i) => { img.id = 'demo' + i; })`, nil))
	}
	dir := artifactDir(t)
	b.screenshot(t, dir, "demo")
	// The panel of a picture that is not authentic says so.
	for id, want := range expect {
		if want != "altered" {
			continue
		}
		var text string
		var shot []byte
		b.run(t, "open the panel of "+id, chromedp.Evaluate(badgeJS(id, `(root.querySelector('button.badge').click(), root.querySelector('[role=dialog]').innerText)`), &text),
			chromedp.CaptureScreenshot(&shot))
		if !strings.Contains(text, "Not authentic") || strings.Contains(text, "Authentic\n") {
			t.Errorf("altered picture's panel:\n%s", text)
		}
		saveShot(t, dir, "demo-altered-panel", shot, 30)
	}
}

// captioned draws a caption bar over the bottom sixth of a signed picture
// and re-encodes it: a local edit the widget must show as altered.
func captioned(t *testing.T, signed []byte) []byte {
	t.Helper()
	m := toRGBA(t, signed)
	b := m.Bounds()
	draw.Draw(m, image.Rect(b.Min.X, b.Max.Y-b.Dy()/6, b.Max.X, b.Max.Y), &image.Uniform{color.Black}, image.Point{}, draw.Src)
	return testkit.EncodeJPEG(t, m, 90)
}

// startBrowserServer skips the test without Chromium, then starts an
// origin that serves the built verifier module to the widget, anchors in
// batches of batchSize records and polls the chain every 20 ms; mutate, if
// set, adjusts the rest of the configuration. clk may be nil.
func startBrowserServer(t *testing.T, clk *clock.Fake, batchSize int, mutate func(*Config)) *testServer {
	t.Helper()
	chromiumPath(t)
	modules := modulesFS(t)
	return startServer(t, "", clk, func(c *Config, _ *deps) {
		c.Verifier = modules
		c.Anchor.BatchSize = batchSize
		c.Anchor.PollInterval = 20 * time.Millisecond
		if mutate != nil {
			mutate(c)
		}
	})
}
