package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

// TestOwnSignedPicturesSkipC2PAModule: in headless Chromium, a page of the
// service's own signed pictures, each carrying its C2PA manifest, gets
// every badge with the c2pa member of the origin's /verify response and
// never fetches the C2PA module, whichever decoder reads the pixels: the lookup answers the member from the
// bytes the service stored. A picture carrying another signer's manifest
// still gets the C2PA module, and the same c2pa member as the origin's.
func TestOwnSignedPicturesSkipC2PAModule(t *testing.T) {
	ts := startBrowserServer(t, nil, 2, nil)
	s := ts.newSignerOrg("desk@credentials.example", "Credential News")
	meadow, meadowID := ts.signTestdata(s, "meadow.jpg", "sign meadow")
	water, waterID := ts.signTestdata(s, "water.jpg", "sign water")
	camera, _, _, err := c2pa.Embed(photo(t, 9, 640, 480), c2pa.Manifest{ClaimGenerator: "Camera/1.0", Format: "image/jpeg"},
		c2patest.NewSigner(t, c2patest.CertOptions{Org: "Third Party Camera"}))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"/img/meadow.jpg": meadow, "/img/water.jpg": water, "/img/camera.jpg": camera,
		"/own.html":         widgetPage(ts.base, []string{"meadow", "water"}, ` data-decoder="wasm"`),
		"/own-browser.html": widgetPage(ts.base, []string{"meadow", "water"}, ` data-decoder="browser"`),
		"/other.html":       widgetPage(ts.base, []string{"camera"}, ` data-decoder="wasm"`)}
	page := servePage(t, files)

	for _, tt := range []struct {
		page      string
		pictures  map[string]string // name -> record id ("" when none)
		c2paFetch bool
	}{
		{"/own.html", map[string]string{"meadow": meadowID, "water": waterID}, false},
		// The browser's own decoder: the same c2pa member and record (its
		// pixels differ from the origin's by a level or two).
		{"/own-browser.html", map[string]string{"meadow": meadowID, "water": waterID}, false},
		{"/other.html", map[string]string{"camera": ""}, true},
	} {
		t.Run(strings.TrimSuffix(tt.page[1:], ".html"), func(t *testing.T) {
			b := newBrowser(t)
			b.run(t, "open "+tt.page, chromedp.Navigate(page+tt.page))
			got := b.waitBadges(t, len(tt.pictures), 60*time.Second)
			for name, id := range tt.pictures {
				g := got[name]
				if g.Verification == nil || g.Status == "error" {
					t.Fatalf("%s: badge %q (%+v)\n%s", name, g.Status, g.Verification, b.consoleLog())
				}
				want := ts.verifyWire(files["/img/"+name+".jpg"])
				v := g.Verification.Result
				if tt.page == "/own-browser.html" {
					v, want = verdictOnly(v), verdictOnly(want)
				}
				if want.C2PA == nil || !reflect.DeepEqual(v, want) {
					gj, _ := json.MarshalIndent(v, "", " ")
					wj, _ := json.MarshalIndent(want, "", " ")
					t.Errorf("%s: browser verdict\n%s\norigin /verify\n%s", name, gj, wj)
				}
				if id != "" && (v.RecordID != id || v.C2PA == nil || !v.C2PA.Ours || !v.C2PA.Trusted) {
					t.Errorf("%s: record %q, c2pa %+v; want %s with our trusted manifest", name, v.RecordID, v.C2PA, id)
				}
			}
			var verifier, c2paModule, lookups int
			for _, r := range b.requests() {
				switch {
				case strings.Contains(r.URL, "/api/v1/widget/c2pa-"):
					c2paModule++
				case strings.Contains(r.URL, "/api/v1/widget/verifier-"):
					verifier++
				case strings.HasSuffix(r.URL, "/api/v1/verify/lookup"):
					lookups++
				}
			}
			if verifier != 1 || (c2paModule > 0) != tt.c2paFetch || lookups < len(tt.pictures) {
				t.Errorf("fetched the verifier module %d times and the C2PA module %d times (want it: %v), %d lookups",
					verifier, c2paModule, tt.c2paFetch, lookups)
			}
		})
	}
}
