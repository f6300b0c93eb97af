package server

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// jsClick clicks the element sel in the page's script, so that it never
// acts on a node of the document before a form post's navigation.
func jsClick(sel string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).click()`, sel), nil)
}

// jsType sets the value of the input or select sel as typing would, with
// an input event.
func jsType(sel, v string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(e => { e.value = %q; e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); })(document.querySelector(%q))`, v, sel), nil)
}

// browserWaitFloor is the least a browser wait allows: the wait ends as
// soon as the page is ready, and on a loaded 2-core machine Chromium can
// take over 10 s to load and wire a page.
const browserWaitFloor = 30 * time.Second

// waitJS polls expr (a boolean JavaScript expression) in the page until it
// is true and, on a page of the web app, its script has wired the page.
func (b *browser) waitJS(t *testing.T, what, expr string, d time.Duration) {
	t.Helper()
	d = max(d, browserWaitFloor)
	deadline := time.Now().Add(d)
	ready := `(!document.querySelector('script[src^="/assets/app-"]') || document.body.dataset.ready === "1")`
	for {
		var ok bool
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(ready+` && !!(`+expr+`)`, &ok)); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var text string
			_ = chromedp.Run(b.ctx, chromedp.Evaluate(`location.href + "\n" + document.body.innerText`, &text))
			t.Fatalf("%s: not true within %v: %s\npage: %s\nconsole:\n%s", what, d, expr, text, b.consoleLog())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		t.Fatalf("%s: %v\nconsole:\n%s", what, err, b.consoleLog())
	}
}

func (b *browser) eval(t *testing.T, expr string, out any) {
	t.Helper()
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(expr, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatalf("evaluate %s: %v\nconsole:\n%s", expr, err, b.consoleLog())
	}
}

// artifactDir is where browser tests leave screenshots
// ($PROVENANT_TEST_ARTIFACTS, or a temporary directory).
func artifactDir(t *testing.T) string {
	dir := os.Getenv("PROVENANT_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot saves the whole page as name.png and fails on a blank one.
func (b *browser) screenshot(t *testing.T, dir, name string) {
	t.Helper()
	var shot []byte
	b.run(t, "screenshot "+name, chromedp.FullScreenshot(&shot, 100))
	saveShot(t, dir, name, shot, 30)
}

// saveShot writes the PNG shot as dir/name.png and fails on a blank one
// (fewer than minColours colours).
func saveShot(t *testing.T, dir, name string, shot []byte, minColours int) {
	t.Helper()
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	if n := distinctColours(t, shot); n < minColours {
		t.Errorf("screenshot %s has %d distinct colours: blank", name, n)
	}
}

// axeScript returns axe-core's source ($PROVENANT_AXE, else the copy
// .ci/run installs under .ci/node), or nil when there is none; under CI
// a missing copy fails the test.
func axeScript(t *testing.T) []byte {
	t.Helper()
	path := os.Getenv("PROVENANT_AXE")
	if path == "" {
		if root, err := wasmtest.RepoRoot(); err == nil {
			path = filepath.Join(root, ".ci", "node", "node_modules", "axe-core", "axe.min.js")
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if testtool.UnderCI() {
			t.Fatalf("axe-core not found (%v): .ci/run installs it (npm install axe-core) and CI must run the accessibility check", err)
		}
		t.Logf("skipping the accessibility check: axe-core not found (%v); run .ci/run or npm install --prefix .ci/node axe-core@4.10.3", err)
		return nil
	}
	return b
}

// axeCheck runs axe-core (WCAG 2 A and AA rules) on the current page and
// fails on any serious or critical violation.
func (b *browser) axeCheck(t *testing.T, axe []byte, page string) {
	t.Helper()
	if axe == nil {
		return
	}
	var loaded bool
	b.eval(t, `typeof axe === "object"`, &loaded)
	if !loaded {
		// Evaluated through the DevTools protocol, so the page's CSP
		// (script-src 'self') does not apply.
		b.eval(t, string(axe)+"\n;true", &loaded)
	}
	var violations []struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
		Nodes  []struct {
			Target []string `json:"target"`
		} `json:"nodes"`
	}
	b.eval(t, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}).then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => ({target: n.target.map(String)}))})))`, &violations)
	var minor []string
	for _, v := range violations {
		if v.Impact != "serious" && v.Impact != "critical" {
			minor = append(minor, v.Impact+" "+v.ID)
		}
		if v.Impact == "serious" || v.Impact == "critical" {
			var where []string
			for _, n := range v.Nodes {
				where = append(where, strings.Join(n.Target, " "))
			}
			t.Errorf("accessibility (%s): %s %s: %s at %v", page, v.Impact, v.ID, v.Help, where)
		}
	}
	t.Logf("axe on %s: %d violations, none serious or critical expected; minor: %v", page, len(violations), minor)
}

// TestWebAppInChromium walks the web app as a new user would, in one
// headless Chromium: register, create a signing key and an API key (shown
// once), sign a photo through the file input, download the signed file,
// verify it on the public page in the browser (the file is not sent),
// revoke it and see it revoked; then a webhook whose receiver fails,
// the failed delivery, Retry once the receiver is back, delivered; and a
// cross-site form post refused. Screenshots of the main pages are saved.
func TestWebAppInChromium(t *testing.T) {
	// The browser checks cookie expiry against its own clock.
	clk := clock.NewFake(time.Now().UTC().Truncate(time.Second))
	ts := startBrowserServer(t, clk, 1, func(c *Config) {
		c.Webhooks = loopbackWebhooks()
		c.Webhooks.Schedule = []time.Duration{} // one attempt per round: fails at once
		c.Webhooks.Timeout = 2 * time.Second
	})
	dir := artifactDir(t)
	tmp := t.TempDir()
	axe := axeScript(t)
	b := newBrowser(t)

	// The welcome page, then register (the checker first proves it sees a
	// violation).
	b.run(t, "open welcome", chromedp.Navigate(ts.base+"/"))
	b.waitJS(t, "welcome", `document.body.dataset.page === "welcome"`, 10*time.Second)
	b.screenshot(t, dir, "webapp-welcome")
	b.axeCheck(t, axe, "welcome")
	b.run(t, "open register", chromedp.Navigate(ts.base+"/register"))
	if axe != nil {
		var n int
		b.eval(t, string(axe)+`;document.body.append(Object.assign(document.createElement("input"), {id: "axe-probe"}));
			axe.run(document, {runOnly: {type: "rule", values: ["label"]}}).then(r => (document.querySelector("#axe-probe").remove(), r.violations.length))`, &n)
		if n != 1 {
			t.Fatalf("axe found %d label violations with an unlabelled input on the page, want 1", n)
		}
	}
	b.axeCheck(t, axe, "register")
	// A refused registration shows the API's words and marks the field.
	b.run(t, "register with a short password",
		jsType("#email", "desk@journey.example"),
		jsType("#password", "short"),
		jsType("#org_name", "Journey News"),
		jsClick(`form button[type="submit"]`))
	b.waitJS(t, "password marked", `document.querySelector('#password[aria-invalid="true"]') && document.querySelector('[role="alert"]')`, 10*time.Second)
	b.screenshot(t, dir, "webapp-register-error")
	b.axeCheck(t, axe, "register-error")
	b.run(t, "register",
		jsType("#email", ""), jsType("#org_name", ""),
		jsType("#email", "desk@journey.example"),
		jsType("#password", "correct horse battery"),
		jsType("#org_name", "Journey News"),
		jsClick(`form button[type="submit"]`))
	b.waitJS(t, "keys page after register", `location.pathname === "/keys" && document.querySelector("#sk-form")`, 10*time.Second)

	// A signing key (a missing name first: the field is marked and
	// focused), then an API key whose value is shown once.
	b.run(t, "signing key without a name", jsClick(`#sk-form button[type="submit"]`))
	b.waitJS(t, "name marked", `document.querySelector('#sk-name[aria-invalid="true"]') === document.activeElement && document.querySelector('#msg [role="alert"]').textContent.includes("name")`, 10*time.Second)
	b.run(t, "create signing key",
		jsType("#sk-name", "Desk camera"),
		jsType("#sk-origin", "camera_image"),
		jsType("#sk-device", "CAM-0042"),
		jsClick(`#sk-form button[type="submit"]`))
	b.waitJS(t, "signing key listed", `document.querySelector("#signing-keys tbody").innerText.includes("CAM-0042")`, 10*time.Second)
	b.run(t, "create API key",
		jsType("#ak-name", "Newsroom CMS"),
		jsClick(`#ak-form input[value="webhooks"]`),
		jsClick(`#ak-form button[type="submit"]`))
	b.waitJS(t, "API key shown", `!document.querySelector("#new-key").hidden && document.querySelector("#new-key-value").value.startsWith("iai_")`, 10*time.Second)
	var apiKey string
	b.eval(t, `document.querySelector("#new-key-value").value`, &apiKey)
	b.waitJS(t, "API key listed", `document.querySelector("#api-keys tbody").innerText.includes("Newsroom CMS")`, 10*time.Second)
	b.screenshot(t, dir, "webapp-keys")
	b.axeCheck(t, axe, "webapp-keys")
	b.run(t, "reload keys", chromedp.Reload())
	b.waitJS(t, "API key list after reload", `document.querySelector("#api-keys tbody").innerText.includes("Newsroom CMS")`, 10*time.Second)
	var shownAgain bool
	b.eval(t, fmt.Sprintf(`document.documentElement.outerHTML.includes(%q) || !document.querySelector("#new-key").hidden`, apiKey), &shownAgain)
	if shownAgain {
		t.Error("the API key value is shown again after a reload")
	}
	if r := ts.do("GET", "/api/v1/content-records", apiKey, nil); r.status != 200 {
		t.Fatalf("the API key from the page does not work: %d %s", r.status, r.body)
	}

	// Sign a photo through the file input.
	photoPath := filepath.Join(tmp, "meadow.jpg")
	if err := os.WriteFile(photoPath, readTestdata(t, "meadow.jpg"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.run(t, "open sign", chromedp.Navigate(ts.base+"/sign"))
	b.waitJS(t, "signing keys loaded", `document.querySelector("#signing_key_id").value !== ""`, 10*time.Second)
	waterPath := filepath.Join(tmp, "water.jpg")
	if err := os.WriteFile(waterPath, readTestdata(t, "water.jpg"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.run(t, "choose two photos", chromedp.SetUploadFiles("#files", []string{photoPath, waterPath}, chromedp.ByQuery))
	b.waitJS(t, "both signed", `document.querySelectorAll("#results li.done a.download").length === 2 || document.querySelector("#results li.failed")`, 30*time.Second)
	var signed struct {
		RecordID string `json:"record_id"`
		Name     string `json:"name"`
		Progress float64
		Failed   string `json:"failed"`
	}
	b.eval(t, `(() => { const li = Array.from(document.querySelectorAll("#results li")).find(l => l.querySelector("strong").textContent === "meadow.jpg"); return {record_id: li.dataset.recordId || "", name: (li.querySelector("a.download") || {}).download || "",
		progress: li.querySelector("progress").value, failed: li.classList.contains("failed") ? li.innerText : ""}; })()`, &signed)
	if signed.Failed != "" || signed.RecordID == "" || signed.Name != "meadow.signed.jpg" {
		t.Fatalf("sign result %+v", signed)
	}
	if signed.Progress != 1 {
		t.Errorf("upload progress %v at the end, want 1", signed.Progress)
	}
	// A third photo by drag and drop onto the drop zone.
	dropped := base64.StdEncoding.EncodeToString(photo(t, 11, 640, 480))
	b.run(t, "drop a photo", chromedp.Evaluate(fmt.Sprintf(`(() => {
		const bin = atob(%q), u = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
		const dt = new DataTransfer();
		dt.items.add(new File([u], "dropped.jpg", {type: "image/jpeg"}));
		const zone = document.querySelector("#drop");
		zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: dt, bubbles: true, cancelable: true}));
		zone.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`, dropped), nil))
	b.waitJS(t, "dropped photo signed", `document.querySelectorAll("#results li.done a.download").length === 3 || document.querySelector("#results li.failed")`, 30*time.Second)
	var droppedOK bool
	b.eval(t, `!!document.querySelector('#results li.done a.download[download="dropped.signed.jpg"]')`, &droppedOK)
	if !droppedOK {
		t.Error("the dropped photo was not signed")
	}
	b.screenshot(t, dir, "webapp-sign")
	b.axeCheck(t, axe, "webapp-sign")

	// Download the watermarked file through the page's link.
	var b64 string
	b.eval(t, `fetch(document.querySelector('#results a.download[download="meadow.signed.jpg"]').href).then(r => r.arrayBuffer()).then(b => { let s = ""; const u = new Uint8Array(b); for (let i = 0; i < u.length; i += 8192) s += String.fromCharCode(...u.subarray(i, i + 8192)); return btoa(s); })`, &b64)
	file, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	rec := ts.do("GET", "/api/v1/content-records/"+signed.RecordID, apiKey, nil)
	ts.mustStatus(rec, 200, "record of the signed file")
	sum := sha256Hex(file)
	if got := rec.json(t)["sha256"]; got != sum {
		t.Fatalf("downloaded file sha256 %s, record says %v", sum, got)
	}
	signedPath := filepath.Join(tmp, signed.Name)
	if err := os.WriteFile(signedPath, file, 0o644); err != nil {
		t.Fatal(err)
	}
	ts.waitAnchored(signer{apiKey: apiKey}, signed.RecordID)

	// The owner's verification counter, read with the page's session: a
	// verification made in the browser counts once, as one on the server.
	verifiedCount := func() float64 {
		t.Helper()
		var n float64
		b.eval(t, `fetch("/api/v1/dashboard/stats", {credentials: "same-origin", headers: {Accept: "application/json"}}).then(r => r.json()).then(s => s.total_verified)`, &n)
		return n
	}
	countsOnce := func(before float64, how string) {
		t.Helper()
		if after := verifiedCount(); after != before+1 {
			t.Errorf("total_verified %v -> %v after a verification %s, want +1", before, after, how)
		}
	}

	// Verify it on the public page, in the browser.
	verify := func(want string) {
		t.Helper()
		before := len(b.requests())
		b.run(t, "open verify", chromedp.Navigate(ts.base+"/verify"))
		counted := verifiedCount()
		b.run(t, "choose the signed file", chromedp.SetUploadFiles("#file", []string{signedPath}, chromedp.ByQuery))
		b.waitJS(t, "verdict", `document.querySelector("#result").dataset.status`, 30*time.Second)
		var res struct {
			Status, Path, Decoder, Text string
		}
		b.eval(t, `(() => { const r = document.querySelector("#result"); return {status: r.dataset.status, path: r.dataset.path, decoder: r.dataset.decoder, text: r.innerText}; })()`, &res)
		if res.Status != want || res.Path != "browser" {
			t.Fatalf("verify page: status %q path %q, want %q in the browser\n%s\nconsole:\n%s", res.Status, res.Path, want, res.Text, b.consoleLog())
		}
		// The browser's own decoder read the pixels.
		if res.Decoder != "browser" {
			t.Errorf("verify page: pixels read by %q, want the browser's decoder", res.Decoder)
		}
		says := []string{"did not leave your machine", "decoded by the browser itself", signed.RecordID}
		if want == "verified" {
			says = append(says, "Authentic — signed and unchanged", "Journey News", "Camera", "Exact file (SHA-256): passed", "Blockchain anchoring: passed", "block ",
				"Anchored on the service's local chain", "provenant-dev (chain id 1337), a "+wire.LocalChainDescription)
			if strings.Contains(res.Text, "public ledger") {
				t.Errorf("verify page calls the embedded chain a public ledger:\n%s", res.Text)
			}
		} else {
			says = append(says, "Not authentic — record revoked", "published in error")
		}
		for _, s := range says {
			if !strings.Contains(res.Text, s) {
				t.Errorf("verify page (%s) does not say %q:\n%s", want, s, res.Text)
			}
		}
		for _, r := range b.requests()[before:] {
			if r.BodyBytes >= len(file)/2 || r.URL == ts.base+"/api/v1/verify" {
				t.Errorf("the verify page sent %d bytes to %s: the file must stay in the browser", r.BodyBytes, r.URL)
			}
		}
		countsOnce(counted, "in the browser")
	}
	verify("verified")
	b.screenshot(t, dir, "webapp-verify")
	b.axeCheck(t, axe, "webapp-verify")
	// The certificate, from the verdict's link: the origin's label, the
	// anchoring and how to check it independently.
	b.run(t, "open the certificate", jsClick("#cert-link a"))
	b.waitJS(t, "certificate", `document.querySelector("h1") && document.querySelector("h1").textContent === "Provenance certificate"`, 10*time.Second)
	var cert string
	b.eval(t, `document.body.innerText`, &cert)
	for _, want := range []string{signed.RecordID, "Camera photo (camera_image)", "Merkle root", "Checking it yourself", "eth_getTransactionByHash"} {
		if !strings.Contains(cert, want) {
			t.Errorf("certificate page does not say %q:\n%s", want, cert)
		}
	}
	b.screenshot(t, dir, "webapp-certificate")

	// Without WebAssembly the page falls back to the server and says so.
	before := len(b.requests())
	b.run(t, "open verify", chromedp.Navigate(ts.base+"/verify"))
	counted := verifiedCount()
	b.eval(t, `delete globalThis.WebAssembly`, nil)
	b.run(t, "choose the file without WebAssembly", chromedp.SetUploadFiles("#file", []string{signedPath}, chromedp.ByQuery))
	b.waitJS(t, "fallback verdict", `document.querySelector("#result").dataset.status`, 30*time.Second)
	var fb struct{ Status, Path, Text string }
	b.eval(t, `(() => { const r = document.querySelector("#result"); return {status: r.dataset.status, path: r.dataset.path, text: r.innerText}; })()`, &fb)
	if fb.Status != "verified" || fb.Path != "server" || !strings.Contains(fb.Text, "cannot run WebAssembly, so the file was sent to the server") {
		t.Errorf("verify without WebAssembly: status %q path %q, want verified on the server, saying so:\n%s", fb.Status, fb.Path, fb.Text)
	}
	sent := false
	for _, r := range b.requests()[before:] {
		sent = sent || (r.URL == ts.base+"/api/v1/verify" && r.Method == "POST")
	}
	if !sent {
		t.Error("the fallback did not POST /api/v1/verify")
	}
	countsOnce(counted, "on the server")

	// Registry search by file: the hash is computed in the browser.
	b.run(t, "open search", chromedp.Navigate(ts.base+"/search"),
		chromedp.SetUploadFiles("#hash-file", []string{signedPath}, chromedp.ByQuery),
		jsClick(`#search-form button[type="submit"]`))
	b.waitJS(t, "search hit", fmt.Sprintf(`document.querySelector("#hits tbody").innerText.includes(%q) && document.querySelector("#sha256").value === %q`,
		signed.RecordID[:16], sum), 10*time.Second)
	b.axeCheck(t, axe, "search")

	// Records: list, detail with the proof, revoke with confirmation.
	b.run(t, "open records", chromedp.Navigate(ts.base+"/records"))
	b.waitJS(t, "record listed", fmt.Sprintf(`document.querySelector("#records tbody").innerText.includes(%q)`, signed.RecordID[:16]), 10*time.Second)
	var pager bool
	b.eval(t, `!!(document.querySelector("#more").offsetParent || document.querySelector("#first").offsetParent)`, &pager)
	if pager {
		t.Error("records page shows page buttons with a single page of records")
	}
	b.screenshot(t, dir, "webapp-records")
	b.axeCheck(t, axe, "webapp-records")
	b.run(t, "open the record", jsClick(`#records tbody a[href="/records/`+signed.RecordID+`"]`))
	b.waitJS(t, "proof shown", `document.querySelector("#proof").textContent.includes("root")`, 10*time.Second)
	var anchoring string
	b.eval(t, `document.querySelector("#anchoring").innerText`, &anchoring)
	if !strings.Contains(anchoring, "provenant-dev (chain id 1337), a "+wire.LocalChainDescription) {
		t.Errorf("record page anchoring does not name the local chain as such:\n%s", anchoring)
	}
	b.screenshot(t, dir, "webapp-record")
	b.axeCheck(t, axe, "webapp-record")
	b.run(t, "revoke", jsClick("#revoke"))
	b.waitJS(t, "confirmation dialog", `document.querySelector("#revoke-dialog").open`, 5*time.Second)
	b.run(t, "confirm", jsType("#reason", "published in error"), jsClick("#revoke-confirm"))
	b.waitJS(t, "revoked", `document.querySelector("#details").innerText.includes("revoked") && document.querySelector("#revoke-panel").hidden`, 10*time.Second)
	verify("revoked")
	b.screenshot(t, dir, "webapp-verify-revoked")
	b.axeCheck(t, axe, "webapp-verify-revoked")
	b.run(t, "records filtered by status", chromedp.Navigate(ts.base+"/records"))
	b.waitJS(t, "records loaded", `document.querySelectorAll("#records tbody tr").length === 3`, 10*time.Second)
	b.run(t, "filter revoked", jsType("#f-status", "revoked"), jsClick(`#filters button[type="submit"]`))
	b.waitJS(t, "only the revoked record", fmt.Sprintf(`document.querySelectorAll("#records tbody tr").length === 1 && document.querySelector("#records tbody").innerText.includes(%q)`, signed.RecordID[:16]), 10*time.Second)

	// Webhooks: a receiver that fails, then recovers; Retry delivers.
	var failing atomic.Bool
	failing.Store(true)
	var got atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()
	b.run(t, "open webhooks", chromedp.Navigate(ts.base+"/webhooks"))
	b.waitJS(t, "webhooks loaded", `document.querySelector("#webhooks").innerText.includes("No webhook")`, 10*time.Second)
	b.run(t, "create webhook", jsType("#wh-url", rcv.URL+"/hook"),
		jsClick(`#wh-form button[type="submit"]`))
	b.waitJS(t, "secret shown", `!document.querySelector("#new-secret").hidden && document.querySelector("#new-secret-value").value.length > 20`, 10*time.Second)
	// The list is re-rendered after the secret is shown: wait for the new
	// webhook's row before pressing its button.
	b.waitJS(t, "webhook listed", `document.querySelector("#webhooks article button:nth-of-type(2)") !== null`, 10*time.Second)
	b.run(t, "send a test event", jsClick(`#webhooks article button:nth-of-type(2)`))
	// refreshUntil presses the deliveries filter's button until js holds
	// (the list is not live: only a refresh shows a new state).
	refreshUntil := func(what, js string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			b.run(t, "refresh deliveries", jsClick(`#dl-filter button[type="submit"]`))
			time.Sleep(200 * time.Millisecond)
			var ok bool
			b.eval(t, js, &ok)
			if ok {
				return
			}
			if time.Now().After(deadline) {
				b.waitJS(t, what, `false`, 0)
			}
		}
	}
	b.run(t, "show failed deliveries", jsType("#dl-status", "failed"))
	refreshUntil("failed delivery", `!!document.querySelector('#deliveries tr[data-status="failed"] button')`)
	var others bool
	b.eval(t, `!!document.querySelector('#deliveries tr[data-status]:not([data-status="failed"])')`, &others)
	if others {
		t.Error("the failed filter shows deliveries in another state")
	}
	failing.Store(false)
	b.run(t, "retry", jsClick(`#deliveries tr[data-status="failed"] button`), jsType("#dl-status", "succeeded"))
	refreshUntil("delivered after retry", `!!document.querySelector('#deliveries tr[data-status="succeeded"]')`)
	if got.Load() != 1 {
		t.Errorf("receiver got %d deliveries after the retry, want 1", got.Load())
	}
	b.screenshot(t, dir, "webapp-webhooks")
	b.axeCheck(t, axe, "webapp-webhooks")

	// Edit events, rotate the secret, delete (confirmations accepted).
	b.eval(t, `window.confirm = () => true`, nil)
	b.run(t, "unsubscribe content.verified",
		jsClick(`#webhooks article input[value="content.verified"]`),
		jsClick(`#webhooks article button:nth-of-type(1)`))
	b.waitJS(t, "events saved", `document.querySelector("#msg").innerText.includes("Events saved")`, 10*time.Second)
	r := ts.do("GET", "/api/v1/webhooks", apiKey, nil)
	if !strings.Contains(string(r.body), `"events":["content.signed","batch.anchored"]`) {
		t.Errorf("after Save events the webhook is %s", r.body)
	}
	var oldSecret, newSecret string
	b.eval(t, `document.querySelector("#new-secret-value").value`, &oldSecret)
	b.run(t, "rotate", jsClick(`#webhooks article button:nth-of-type(3)`))
	b.waitJS(t, "new secret", fmt.Sprintf(`document.querySelector("#new-secret-value").value !== %q`, oldSecret), 10*time.Second)
	b.eval(t, `document.querySelector("#new-secret-value").value`, &newSecret)
	if !strings.HasPrefix(newSecret, "whsec_") {
		t.Errorf("rotated secret %q", newSecret)
	}
	b.run(t, "delete", jsClick(`#webhooks article button.danger`))
	b.waitJS(t, "deleted", `document.querySelector("#webhooks").innerText.includes("No webhook")`, 10*time.Second)

	// Overview: counters, the daily chart and recent records.
	b.run(t, "open overview", chromedp.Navigate(ts.base+"/"))
	// Three verifications: two in the browser (the authentic file, then
	// the revoked one), one through the server fallback.
	b.waitJS(t, "counters", `document.querySelector('[data-stat="total_signed"]').textContent === "3" && document.querySelector('[data-stat="total_verified"]').textContent === "3" && document.querySelector("#chart svg rect.bar")`, 10*time.Second)
	var bars struct {
		N    int     `json:"n"`
		Last float64 `json:"last"`
	}
	b.eval(t, `(() => { const r = document.querySelectorAll("#chart rect.bar"); return {n: r.length, last: parseFloat(r[r.length - 1].getAttribute("height"))}; })()`, &bars)
	if bars.N != 30 || bars.Last <= 0 {
		t.Errorf("chart: %d bars, today's height %v; want 30 with today's above zero", bars.N, bars.Last)
	}
	b.screenshot(t, dir, "webapp-overview")
	b.axeCheck(t, axe, "webapp-overview")
	// Phone width: nothing wider than the screen.
	b.run(t, "phone width", chromedp.EmulateViewport(390, 844), chromedp.Reload())
	b.waitJS(t, "counters on a phone", `document.querySelector('[data-stat="total_signed"]').textContent === "3"`, 10*time.Second)
	var wide int
	b.eval(t, `document.documentElement.scrollWidth`, &wide)
	if wide > 390 {
		t.Errorf("overview on a 390 px wide screen is %d px wide", wide)
	}
	b.screenshot(t, dir, "webapp-overview-phone")
	b.run(t, "desktop width", chromedp.EmulateViewport(1100, 900))

	// Revoke the API key (confirmed): it stops working.
	b.run(t, "open keys", chromedp.Navigate(ts.base+"/keys"))
	b.waitJS(t, "keys listed", `document.querySelector("#api-keys tbody").innerText.includes("Newsroom CMS")`, 10*time.Second)
	b.eval(t, `window.confirm = () => true`, nil)
	b.run(t, "revoke the API key", jsClick(`#api-keys button.danger`))
	b.waitJS(t, "API key revoked", `!document.querySelector("#api-keys button.danger") && document.querySelector("#api-keys tbody").innerText.includes("revoked")`, 10*time.Second)
	if r := ts.do("GET", "/api/v1/content-records", apiKey, nil); r.status != 401 {
		t.Errorf("revoked API key = %d, want 401", r.status)
	}

	// When the session ends, the next call from a page says so.
	clk.Advance(2 * time.Hour)
	b.run(t, "create a key after expiry", jsType("#ak-name", "late"), jsClick(`#ak-form button[type="submit"]`))
	b.waitJS(t, "session expired page", `location.pathname === "/session-expired" && document.querySelector("h1").textContent.includes("session has expired")`, 10*time.Second)
	var stillCookie bool
	b.eval(t, `fetch("/api/v1/auth/me").then(r => r.status !== 401)`, &stillCookie)
	if stillCookie {
		t.Error("after expiry the session cookie still authenticates")
	}
	clk.Advance(-2 * time.Hour)
	b.run(t, "log in again", jsClick(`main a.button`))
	b.waitJS(t, "login page", `location.pathname === "/login"`, 10*time.Second)
	b.run(t, "log in", jsType("#email", "desk@journey.example"),
		jsType("#password", "correct horse battery"),
		jsClick(`form button[type="submit"]`))
	b.waitJS(t, "back on the overview", `location.pathname === "/" && document.querySelector("#counters")`, 10*time.Second)

	// A cross-site form post (another port is the same site, so the
	// SameSite cookie is sent) is refused by the CSRF check.
	evil := servePage(t, map[string][]byte{"/evil.html": []byte(fmt.Sprintf(`<!doctype html><form method="post" action="%s/api/v1/keys/api-keys" enctype="text/plain">
<input name='{"name":"evil","x":"' value='"}'></form><script>document.forms[0].submit()</script>`, ts.base))})
	b.run(t, "cross-site post", chromedp.Navigate(evil+"/evil.html"))
	b.waitJS(t, "cross-site answer", `location.href.includes("/api/v1/keys/api-keys")`, 10*time.Second)
	var answer string
	b.eval(t, `document.body.innerText`, &answer)
	if !strings.Contains(answer, "csrf_failed") {
		t.Errorf("cross-site form post answered %q, want csrf_failed", answer)
	}
	b.run(t, "back to keys", chromedp.Navigate(ts.base+"/keys"))
	b.waitJS(t, "keys listed", `document.querySelector("#api-keys tbody").innerText.includes("Newsroom CMS")`, 10*time.Second)
	var evilKey bool
	b.eval(t, `document.querySelector("#api-keys tbody").innerText.includes("evil")`, &evilKey)
	if evilKey {
		t.Error("the cross-site post created an API key")
	}
}
