package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/shared/clock"
)

// phoneWidths are the narrow screens every page must fit: the common
// phone widths from the smallest still sold to the largest.
var phoneWidths = []int64{360, 390, 414}

// webPage is one page of the web app as a test opens it: its address,
// what must hold once it is ready, and an optional step that fills it
// (a verdict shown, a search hit) before it is measured.
type webPage struct {
	name, path, ready string
	fill              func(t *testing.T)
}

// fitsAndShoot opens each page, fills it, and at every phone width checks
// that the document is no wider than the screen (naming the widest
// element when it is), runs the accessibility check at phone width, and
// saves a screenshot at desktop and at phone width
// (page-<name>-desktop.png, page-<name>-phone.png).
func fitsAndShoot(t *testing.T, b *browser, base, dir string, axe []byte, pages []webPage) {
	t.Helper()
	for _, p := range pages {
		b.run(t, "desktop width", chromedp.EmulateViewport(1280, 900))
		if p.path != "" {
			b.run(t, "open "+p.name, chromedp.Navigate(base+p.path))
		}
		b.waitJS(t, p.name+" ready", p.ready, 15*time.Second)
		if p.fill != nil {
			p.fill(t)
		}
		b.screenshot(t, dir, "page-"+p.name+"-desktop")
		for _, w := range phoneWidths {
			b.run(t, fmt.Sprintf("%s at %d px", p.name, w), chromedp.EmulateViewport(w, 800))
			time.Sleep(100 * time.Millisecond)
			var m struct {
				Width  int    `json:"width"`
				Widest string `json:"widest"`
			}
			b.eval(t, `(() => {
				const W = document.documentElement.clientWidth;
				let widest = "", right = W;
				for (const e of document.querySelectorAll("body *")) {
					const r = e.getBoundingClientRect();
					if (r.width && r.right > right + 0.5 && !(e.parentElement && e.parentElement.closest(".table-wrap"))) { right = r.right; widest = e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : "") + " (" + Math.round(r.right) + " px)"; }
				}
				return {width: document.documentElement.scrollWidth, widest};
			})()`, &m)
			if m.Width > int(w) {
				t.Errorf("%s at %d px wide is %d px wide (widest: %s)", p.name, w, m.Width, m.Widest)
			}
			if w == 390 {
				b.axeCheck(t, axe, p.name+"-phone")
				b.screenshot(t, dir, "page-"+p.name+"-phone")
			}
		}
	}
	b.run(t, "desktop width", chromedp.EmulateViewport(1100, 900))
}

// TestWebAppEveryPageAtPhoneWidth opens every page of the web app, the
// public certificate and the demo, each with its content shown (records
// with their thumbnails, a verdict with its evidence, a search hit, a
// refused webhook's guidance), and requires each to fit 360, 390 and 414
// px wide screens without horizontal scrolling and to pass the
// accessibility check there; screenshots at desktop and phone width go to
// $PROVENANT_TEST_ARTIFACTS. On the way it follows the webhook page's own
// words: a loopback receiver is refused with the setting to use, and an
// origin started with exactly that setting accepts it.
func TestWebAppEveryPageAtPhoneWidth(t *testing.T) {
	clk := clock.NewFake(time.Now().UTC().Truncate(time.Second))
	ts := startBrowserServer(t, clk, 1, func(c *Config) {
		c.Demo = true
		// The default webhook policy: loopback receivers are refused.
	})
	dir := artifactDir(t)
	axe := axeScript(t)
	tmp := t.TempDir()
	b := newBrowser(t)

	s := ts.newSignerOrg("desk@phone.example", "Harbour Evening Standard and Gazette of the Northern Coast")
	var ids []string
	var signedPath string
	for i, name := range []string{"meadow.jpg", "water.jpg"} {
		r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "a-very-long-file-name-from-the-photo-desk-" + name, readTestdata(t, name)}}, map[string]string{"return_file": "true"})
		ts.mustStatus(r, 201, "sign "+name)
		ids = append(ids, r.header.Get("X-Record-Id"))
		ts.waitAnchored(s, ids[i])
		if i == 0 {
			signedPath = filepath.Join(tmp, "meadow.signed.jpg")
			if err := os.WriteFile(signedPath, r.body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A derivative by a second organisation, so that a chain shows.
	other := ts.newSignerOrg("desk@wire.example", "Second Wire")
	r := ts.signFile(other, reencode(t, testkit.ReadFile(t, signedPath), 0.8, 85), map[string]string{"derivative_of": ids[0]})
	ts.mustStatus(r, 201, "sign a derivative")
	derivID := r.header.Get("X-Record-Id")
	derivPath := filepath.Join(tmp, "derivative.jpg")
	if err := os.WriteFile(derivPath, r.body, 0o644); err != nil {
		t.Fatal(err)
	}
	ts.waitAnchored(other, derivID)

	verified := func(path string) func(t *testing.T) {
		return func(t *testing.T) {
			b.run(t, "choose a file", chromedp.SetUploadFiles("#file", []string{path}, chromedp.ByQuery))
			b.waitJS(t, "verdict", `document.querySelector("#result").dataset.status && document.querySelector("#evidence img") && document.querySelector("#evidence img").complete`, 30*time.Second)
		}
	}
	public := []webPage{
		{name: "welcome", path: "/", ready: `document.body.dataset.page === "welcome"`},
		{name: "login", path: "/login", ready: `document.querySelector("#email")`},
		{name: "register", path: "/register", ready: `document.querySelector("#org_type")`},
		{name: "forgot-password", path: "/forgot-password", ready: `document.querySelector("#email")`},
		{name: "reset-password", path: "/reset-password", ready: `document.querySelector("#token")`},
		{name: "verify-public", path: "/verify", ready: `document.querySelector("#file")`, fill: verified(derivPath)},
		{name: "search", path: "/search", ready: `document.querySelector("#sha256")`, fill: func(t *testing.T) {
			b.run(t, "search", chromedp.SetUploadFiles("#hash-file", []string{signedPath}, chromedp.ByQuery), jsClick(`#search-form button[type="submit"]`))
			b.waitJS(t, "hit", `document.querySelectorAll("#hits tbody tr").length === 1`, 10*time.Second)
		}},
		{name: "certificate", path: "/api/v1/content-records/" + derivID + "/certificate", ready: `document.querySelector("h1").textContent === "Provenance certificate" && document.querySelector(".hashbox button.copy")`},
		{name: "demo", path: "/demo", ready: `document.querySelectorAll("provenant-badge[status]").length >= 6`, fill: func(t *testing.T) {
			// The footer's snippet names this origin; the page's icon exists.
			var foot, icon string
			b.eval(t, `document.querySelector("footer").innerText`, &foot)
			b.eval(t, `fetch(document.querySelector('link[rel="icon"]').href).then(r => r.status + " " + r.headers.get("Content-Type"))`, &icon)
			if !strings.Contains(foot, ts.base+"/api/v1/widget/embed.js") || strings.Contains(foot, "{origin}") {
				t.Errorf("demo footer: %q, want the snippet with %s", foot, ts.base)
			}
			if icon != "200 image/svg+xml" {
				t.Errorf("demo icon: %s", icon)
			}
		}},
	}
	fitsAndShoot(t, b, ts.base, dir, axe, public)

	// The certificate names the organisation type and the origin in words.
	b.run(t, "open the certificate", chromedp.Navigate(ts.base+"/api/v1/content-records/"+ids[0]+"/certificate"))
	b.waitJS(t, "certificate", `document.querySelector(".verdict-box")`, 10*time.Second)
	var cert string
	b.eval(t, `document.querySelector("main").innerText`, &cert)
	for _, want := range []string{"News organisation", "Camera photo", "Who signed", "When", "Where it is anchored", "Checking it yourself", "Raw fields"} {
		if !strings.Contains(cert, want) {
			t.Errorf("certificate does not say %q:\n%s", want, cert)
		}
	}
	if strings.Contains(cert, "news_org") || strings.Contains(cert, "signature_hex") {
		t.Errorf("certificate shows a raw code or field name outside its folded raw fields:\n%s", cert)
	}

	// Log in; the account's pages, each with its content.
	b.run(t, "log in", chromedp.Navigate(ts.base+"/login"), jsType("#email", s.email), jsType("#password", s.password), jsClick(`form button[type="submit"]`))
	b.waitJS(t, "overview", `location.pathname === "/" && document.querySelector("#counters")`, 10*time.Second)

	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer rcv.Close()
	var guide string
	account := []webPage{
		{name: "overview", path: "/", ready: `document.querySelectorAll("#recent tbody img.thumb").length === 2`},
		{name: "sign", path: "/sign", ready: `document.querySelector("#signing_key_id").value !== ""`, fill: func(t *testing.T) {
			a, c := filepath.Join(tmp, "a-first-picture-with-a-long-name.jpg"), filepath.Join(tmp, "b-second.jpg")
			if err := os.WriteFile(a, photo(t, 21, 640, 480), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(c, photo(t, 22, 640, 480), 0o644); err != nil {
				t.Fatal(err)
			}
			b.run(t, "sign two", chromedp.SetUploadFiles("#files", []string{a, c}, chromedp.ByQuery))
			b.waitJS(t, "signed", `document.querySelectorAll("#results li.done").length === 2`, 30*time.Second)
			var order []string
			b.eval(t, `Array.from(document.querySelectorAll("#results li strong")).map(s => s.textContent)`, &order)
			if len(order) != 2 || order[0] != "a-first-picture-with-a-long-name.jpg" {
				t.Errorf("sign results in the order %v, want the order chosen", order)
			}
			var name string
			b.eval(t, `document.querySelector("#results a.download").download`, &name)
			if name != "a-first-picture-with-a-long-name.signed.jpg" {
				t.Errorf("download name %q, want the CLI's NAME.signed.EXT", name)
			}
		}},
		{name: "records", path: "/records", ready: `document.querySelectorAll("#records tbody img.thumb").length >= 2`, fill: func(t *testing.T) {
			var row string
			b.eval(t, `document.querySelector("#records tbody").innerText`, &row)
			if !strings.Contains(row, "Camera photo") || strings.Contains(row, "camera_image") || !strings.Contains(row, "a-very-long-file-name-from-the-photo-desk-meadow.jpg") {
				t.Errorf("records list does not show names and labels:\n%s", row)
			}
		}},
		{name: "record", path: "/records/" + ids[0], ready: `document.querySelector("#picture img.record-pic") && document.querySelector("#picture img").complete && !document.querySelector("#download").hidden`},
		{name: "keys", path: "/keys", ready: `document.querySelector("#signing-keys tbody").innerText.includes("Camera photo")`},
		{name: "webhooks", path: "/webhooks", ready: `document.querySelector("#webhooks").innerText.includes("No webhook")`, fill: func(t *testing.T) {
			b.run(t, "a loopback receiver", jsType("#wh-url", rcv.URL+"/hook"), jsClick(`#wh-form button[type="submit"]`))
			b.waitJS(t, "guidance", `!document.querySelector("#wh-guide").hidden`, 10*time.Second)
			b.eval(t, `document.querySelector("#wh-guide").innerText`, &guide)
		}},
		{name: "verify", path: "/verify", ready: `document.querySelector("#file")`, fill: verified(signedPath)},
	}
	fitsAndShoot(t, b, ts.base, dir, axe, account)

	// The thumbnail is the owner's only.
	if r := ts.do("GET", "/api/v1/content-records/"+ids[0]+"/thumbnail", other.apiKey, nil); r.status != 404 {
		t.Errorf("another account's thumbnail: %d, want 404", r.status)
	}
	if r := ts.do("GET", "/api/v1/content-records/"+ids[0]+"/thumbnail", "", nil); r.status != 401 {
		t.Errorf("thumbnail without credentials: %d, want 401", r.status)
	}
	th := ts.do("GET", "/api/v1/content-records/"+ids[0]+"/thumbnail", s.apiKey, nil)
	ts.mustStatus(th, 200, "owner's thumbnail")
	if ct := th.header.Get("Content-Type"); ct != "image/jpeg" || len(th.body) > 40<<10 {
		t.Errorf("thumbnail %s of %d bytes, want a small JPEG", ct, len(th.body))
	}
	// The record page's download link gives the signed file again.
	b.run(t, "open the record", chromedp.Navigate(ts.base+"/records/"+ids[0]))
	b.waitJS(t, "download link", `!document.querySelector("#download").hidden`, 10*time.Second)
	var again string
	b.eval(t, `fetch(document.querySelector("#download").href).then(r => r.headers.get("X-Content-SHA256") + " " + r.headers.get("Content-Disposition"))`, &again)
	rec := ts.do("GET", "/api/v1/content-records/"+ids[0], s.apiKey, nil)
	if sum, _ := rec.json(t)["sha256"].(string); !strings.HasPrefix(again, sum+" ") || !strings.Contains(again, `meadow.signed.jpg`) {
		t.Errorf("re-download from the record: %q, want the signed file (sha256 %s) named .signed.jpg", again, sum)
	}

	// Follow the webhook page's words: the setting it names, given to an
	// origin, lets the same receiver be created.
	set := regexp.MustCompile(`PROVENANT_WEBHOOK_[A-Z_]+=\S+`).FindAllString(guide, -1)
	if len(set) == 0 || !strings.Contains(guide, "PROVENANT_WEBHOOK_ALLOW_CIDRS=127.0.0.1/32") {
		t.Fatalf("the refused loopback webhook's guidance names no setting:\n%s", guide)
	}
	env := map[string]string{}
	for _, kv := range set {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	wc, err := WebhooksConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("the page's setting %v does not parse: %v", set, err)
	}
	ts2 := startServer(t, "", clk, func(c *Config, _ *deps) { c.Webhooks = wc })
	s2 := ts2.newSignerOrg("desk@hooks.example", "Hooks Desk")
	b.run(t, "log in to the reconfigured origin", chromedp.Navigate(ts2.base+"/login"), jsType("#email", s2.email), jsType("#password", s2.password), jsClick(`form button[type="submit"]`))
	b.waitJS(t, "overview", `location.pathname === "/"`, 10*time.Second)
	b.run(t, "open webhooks", chromedp.Navigate(ts2.base+"/webhooks"))
	b.waitJS(t, "webhooks", `document.querySelector("#webhooks").innerText.includes("No webhook")`, 10*time.Second)
	b.run(t, "the same receiver", jsType("#wh-url", rcv.URL+"/hook"), jsClick(`#wh-form button[type="submit"]`))
	b.waitJS(t, "created", `!document.querySelector("#new-secret").hidden && document.querySelector("#wh-guide").hidden`, 10*time.Second)
}
